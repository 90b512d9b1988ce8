/*
 * Memory that an option struct owns on behalf of a binding.
 *
 * A binding's string (or array) lives only for the duration of one call into the glue, but an
 * option struct keeps the pointer until the struct is used in a later call. So a setter stores a
 * copy, recorded against the address of the field that points at it; setting the field again
 * frees the previous copy, and destroying the struct frees every copy held by its fields. The
 * record is keyed by field address, so this works for any struct without knowing its layout.
 */
#ifndef CUDNNFE_SWIG_OWNED_MEMORY_H
#define CUDNNFE_SWIG_OWNED_MEMORY_H

#include <stddef.h>

/* Record `memory` (malloc'ed, or NULL) as owned by the pointer field at `field`, freeing what
 * that field owned before. Returns `memory`. */
void *fe_swig_own(const void *field, void *memory);

/* Free every copy owned by a field inside [start, start + size). */
void fe_swig_release(const void *start, size_t size);

/* A malloc'ed copy of a string (NULL for NULL). */
char *fe_swig_strdup(const char *text);

/* A malloc'ed copy of `size` bytes (NULL when size is 0). */
void *fe_swig_memdup(const void *data, size_t size);

#endif
