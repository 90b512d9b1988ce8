/* An outside program that uses no header: dlopen the installed library by its soname (argv[1])
 * and resolve every function of the ABI list (argv[2], abi/symbols.txt); then call
 * fe_version_string and compare it with the package version (argv[3]). */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: dlopen_client SONAME SYMBOLS_FILE VERSION\n");
        return 2;
    }
    void *library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        fprintf(stderr, "dlopen %s: %s\n", argv[1], dlerror());
        return 1;
    }
    FILE *list = fopen(argv[2], "r");
    if (!list) {
        fprintf(stderr, "cannot read %s\n", argv[2]);
        return 1;
    }
    char name[256];
    int resolved = 0, missing = 0;
    while (fscanf(list, "%255s", name) == 1) {
        if (dlsym(library, name)) {
            ++resolved;
        } else {
            fprintf(stderr, "%s does not resolve %s\n", argv[1], name);
            ++missing;
        }
    }
    fclose(list);
    const char *(*version_string)(void);
    *(void **)(&version_string) = dlsym(library, "fe_version_string");
    if (!version_string || strcmp(version_string(), argv[3]) != 0) {
        fprintf(stderr, "fe_version_string: %s, package %s\n", version_string ? version_string() : "(missing)", argv[3]);
        return 1;
    }
    printf("%s %s: %d functions resolved, %d missing\n", argv[1], version_string(), resolved, missing);
    return missing ? 1 : 0;
}
