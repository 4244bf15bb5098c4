/* A main() for the fuzz targets without libFuzzer: runs LLVMFuzzerTestOneInput on every file
 * named on the command line, and on every file of every directory named (sorted by name, not
 * recursive). The regular builds link each target with it and register the committed corpus
 * (tests/fuzz/corpus/<target>/) as a CTest test, so `make check` replays every corpus input
 * through every target, with the sanitizers in build-asan/. A failing input aborts inside the
 * target after its name was printed; exit status 1 if a file or directory cannot be read or
 * no input was found.
 */
#define _POSIX_C_SOURCE 200809L
#include "fuzz.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return 1;
    }
    size_t cap = 4096, n = 0;
    uint8_t *data = malloc(cap);
    for (size_t got; data != NULL && (got = fread(data + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap) {
            uint8_t *more = realloc(data, cap *= 2);
            if (more == NULL)
                free(data);
            data = more;
        }
    }
    int bad = ferror(f) || data == NULL;
    fclose(f);
    if (bad) {
        free(data);
        fprintf(stderr, "replay: cannot read %s\n", path);
        return 1;
    }
    fprintf(stderr, "replay: %s (%zu bytes)\n", path, n);
    /* An exactly sized copy, as libFuzzer passes it: reads past the end are caught. */
    uint8_t *exact = malloc(n > 0 ? n : 1);
    if (exact == NULL) {
        free(data);
        return 1;
    }
    memcpy(exact, data, n);
    free(data);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    return 0;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file of a directory, sorted; *count gets how many ran. */
static int run_dir(const char *dir, int *count)
{
    DIR *d = opendir(dir);
    if (d == NULL) {
        fprintf(stderr, "replay: cannot open directory %s\n", dir);
        return 1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    int err = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            char **more = realloc(names, (cap = cap ? 2 * cap : 64) * sizeof *names);
            if (more == NULL) {
                err = 1;
                break;
            }
            names = more;
        }
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        if ((names[n] = malloc(len)) == NULL) {
            err = 1;
            break;
        }
        snprintf(names[n++], len, "%s/%s", dir, e->d_name);
    }
    closedir(d);
    if (n > 0)
        qsort(names, n, sizeof *names, compare_names);
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (!err && stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
            err |= run_file(names[i]);
            ++*count;
        }
        free(names[i]);
    }
    free(names);
    return err;
}

int main(int argc, char **argv)
{
    int err = 0, count = 0;
    LLVMFuzzerInitialize(&argc, &argv);
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: no such file or directory: %s\n", argv[i]);
            err = 1;
        } else if (S_ISDIR(st.st_mode)) {
            err |= run_dir(argv[i], &count);
        } else {
            err |= run_file(argv[i]);
            count++;
        }
    }
    if (count == 0) {
        fprintf(stderr, "replay: no inputs (usage: %s file-or-directory...)\n", argv[0]);
        return 1;
    }
    printf("replay: %d inputs, %s\n", count, err ? "some could not be read" : "all passed");
    return err;
}
