/* A libcudnnfe of another version, for the bindings' tests: preloaded (LD_PRELOAD) ahead of the
 * real library, its fe_version is the one every caller sees, which plants a stale C library under
 * a binding. Each binding's load-time check must refuse it, naming both versions. */
#include <stdint.h>

uint32_t fe_version(void) { return 10300; }
