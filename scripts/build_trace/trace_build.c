/*
 * trace_build: which of the library's functions one deviceless fe_graph_build runs, in order.
 * The library is built with -finstrument-functions (scripts/trace_build.sh); the hooks below
 * record every entry and exit of its functions while the build runs, as offsets into the library
 * (addr2line turns them into functions and files: scripts/build_trace/analyze_trace.py).
 *
 *   trace_build GRAPH.json DEVICE.json OUT.trace [cached]
 *
 * cached: with the in-process plan cache on (the default of fe_build_options; a first build, so a
 * miss that stores the plan), else off.
 *
 * OUT.trace: the library's path, then one line a call: "> offset" on entry, "<" on exit.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudnnfe.h"

#define NO_TRACE __attribute__((no_instrument_function))

static int recording;
static FILE *out;
static char library[4096];

NO_TRACE static int in_library(void *fn, uintptr_t *offset) {
    Dl_info info;
    if (!dladdr(fn, &info) || !info.dli_fname || !strstr(info.dli_fname, "libcudnnfe.so")) return 0;
    if (!library[0]) snprintf(library, sizeof library, "%s", info.dli_fname);
    *offset = (uintptr_t)fn - (uintptr_t)info.dli_fbase;
    return 1;
}

NO_TRACE void __cyg_profile_func_enter(void *fn, void *site) {
    (void)site;
    uintptr_t offset;
    if (recording && in_library(fn, &offset)) fprintf(out, "> %lx\n", (unsigned long)offset);
}

NO_TRACE void __cyg_profile_func_exit(void *fn, void *site) {
    (void)site;
    uintptr_t offset;
    if (recording && in_library(fn, &offset)) fputs("<\n", out);
}

NO_TRACE static char *read_text(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *text = malloc((size_t)n + 1);
    size_t got = fread(text, 1, (size_t)n, f);
    text[got] = '\0';
    fclose(f);
    return text;
}

NO_TRACE int main(int argc, char **argv) {
    if (argc != 4 && !(argc == 5 && !strcmp(argv[4], "cached"))) {
        fprintf(stderr, "usage: trace_build GRAPH.json DEVICE.json OUT.trace [cached]\n");
        return 2;
    }
    char *graph_json = read_text(argv[1]), *device = read_text(argv[2]);
    if (!graph_json || !device) {
        fprintf(stderr, "trace_build: cannot read %s\n", graph_json ? argv[2] : argv[1]);
        return 1;
    }
    fe_graph *g = NULL;
    if (fe_graph_from_json(graph_json, strlen(graph_json), &g) != FE_OK) {
        fprintf(stderr, "trace_build: %s\n", fe_last_error_message());
        return 1;
    }
    char *body = NULL;
    size_t body_size = 0;
    out = open_memstream(&body, &body_size);
    fe_build_options o = FE_BUILD_OPTIONS_INIT;
    o.device_properties_json = device;
    o.use_plan_cache = argc == 5;
    recording = 1;
    fe_status status = fe_graph_build(g, NULL, &o);
    recording = 0;
    fclose(out);
    if (status != FE_OK) {
        fprintf(stderr, "trace_build: fe_graph_build: %s\n", fe_last_error_message());
        return 1;
    }
    FILE *file = fopen(argv[3], "w");
    if (!file) return 1;
    fprintf(file, "%s\n", library);
    fwrite(body, 1, body_size, file);
    fclose(file);
    free(body);
    fe_graph_destroy(g);
    return 0;
}
