/* See owned_memory.h. Few records are alive at once (option structs are short-lived), so a
 * linear table under one lock is enough. */
#include "owned_memory.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const void *field;
    void *memory;
} owned_record;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static owned_record *records;
static size_t record_count, record_capacity;

static void remove_at(size_t i) {
    free(records[i].memory);
    records[i] = records[--record_count];
}

void *fe_swig_own(const void *field, void *memory) {
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < record_count; ++i) {
        if (records[i].field == field) {
            remove_at(i);
            break;
        }
    }
    if (memory) {
        if (record_count == record_capacity) {
            size_t capacity = record_capacity ? 2 * record_capacity : 16;
            owned_record *grown = realloc(records, capacity * sizeof *grown);
            if (!grown) {
                /* Keep the copy alive rather than leave the field dangling. */
                pthread_mutex_unlock(&lock);
                return memory;
            }
            records = grown;
            record_capacity = capacity;
        }
        records[record_count].field = field;
        records[record_count].memory = memory;
        ++record_count;
    }
    pthread_mutex_unlock(&lock);
    return memory;
}

void fe_swig_release(const void *start, size_t size) {
    const char *begin = start, *end = begin + size;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < record_count;) {
        const char *field = records[i].field;
        if (field >= begin && field < end)
            remove_at(i);
        else
            ++i;
    }
    pthread_mutex_unlock(&lock);
}

char *fe_swig_strdup(const char *text) {
    return text ? fe_swig_memdup(text, strlen(text) + 1) : NULL;
}

void *fe_swig_memdup(const void *data, size_t size) {
    if (!data || size == 0) return NULL;
    void *copy = malloc(size);
    if (copy) memcpy(copy, data, size);
    return copy;
}
