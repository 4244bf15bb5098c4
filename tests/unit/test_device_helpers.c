/* link: redist */
/* Serial test of the device helpers for bindings (redist.h: redist_device_alloc, _free and
 * _copy) on the emulated device, without MPI:
 *
 * - alloc of sizes whose rounding to pages would overflow (SIZE_MAX, SIZE_MAX - 1, just over
 *   INT64_MAX) is REDIST_ERR_NOMEM with *ptr NULL, never a small allocation;
 * - free takes only what alloc returned and has not freed: a host pointer, a pointer inside
 *   an allocation and a second free are REDIST_ERR_ARG and free nothing (the allocation
 *   still copies afterwards); free(NULL) is REDIST_SUCCESS;
 * - copies in and out keep every byte, across the emulated device's host view of the memory;
 * - the device pointer itself stays inaccessible to the host (its mapping has no access
 *   rights: a host read or write faults), from its first byte to its last.
 */
#include "redist.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/check.h"

static void oversized(void)
{
    size_t sizes[] = {SIZE_MAX, SIZE_MAX - 1, (size_t)INT64_MAX + 1};
    for (int i = 0; i < 3; i++) {
        void *p = &p;
        int rc = redist_device_alloc(sizes[i], &p);
        CHECK(rc == REDIST_ERR_NOMEM, "alloc(%zu) returned %d, not NOMEM", sizes[i], rc);
        CHECK(p == NULL, "alloc(%zu) left *ptr = %p", sizes[i], p);
    }
}

/* Copies n bytes of a pattern onto the device and back; 1 if every byte came back. */
static int round_trip(void *dev, size_t n, int seed)
{
    unsigned char *in = malloc(n), *out = calloc(n, 1);
    for (size_t i = 0; i < n; i++)
        in[i] = (unsigned char)(i * 7 + (size_t)seed);
    int ok = redist_device_copy(dev, in, n) == REDIST_SUCCESS &&
             redist_device_copy(out, dev, n) == REDIST_SUCCESS && memcmp(in, out, n) == 0;
    free(in);
    free(out);
    return ok;
}

static void frees(void)
{
    void *p = NULL;
    int rc = redist_device_alloc(1000, &p);
    CHECK(rc == REDIST_SUCCESS && p != NULL, "alloc(1000) returned %d", rc);
    if (p == NULL)
        return;
    CHECK(round_trip(p, 1000, 1), "a copy in and out of a new allocation changed bytes");
    double host[4];
    CHECK(redist_device_free(host) == REDIST_ERR_ARG, "free of a host pointer is not ARG");
    CHECK(redist_device_free((char *)p + 8) == REDIST_ERR_ARG,
          "free of a pointer inside an allocation is not ARG");
    CHECK(round_trip(p, 1000, 2), "the allocation no longer copies after refused frees");
    CHECK(redist_device_free(NULL) == REDIST_SUCCESS, "free(NULL) is not SUCCESS");
    CHECK(redist_device_free(p) == REDIST_SUCCESS, "free of the allocation failed");
    CHECK(redist_device_free(p) == REDIST_ERR_ARG, "a second free is not ARG");
    void *zero = NULL;
    CHECK(redist_device_alloc(0, &zero) == REDIST_SUCCESS && zero != NULL,
          "alloc(0) gives no pointer to free");
    CHECK(redist_device_free(zero) == REDIST_SUCCESS, "free of alloc(0)'s pointer failed");
}

/* The protection of the mapping that holds p, as /proc/self/maps writes it ("---p",
   "rw-s", ...), in perms[5]; 0, or -1 if no mapping holds p. Read rather than tried: a read
   that faults would be an error to valgrind, which runs these tests too. */
static int protection(const void *p, char perms[5])
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (f == NULL)
        return -1;
    char line[512];
    int found = -1;
    uintptr_t a = (uintptr_t)p;
    while (found != 0 && fgets(line, sizeof line, f) != NULL) {
        unsigned long lo = 0, hi = 0;
        if (sscanf(line, "%lx-%lx %4s", &lo, &hi, perms) == 3 && a >= lo && a < hi)
            found = 0;
    }
    fclose(f);
    return found;
}

static void inaccessible(void)
{
    void *p = NULL;
    if (redist_device_alloc(3 * 4096, &p) != REDIST_SUCCESS) {
        CHECK(0, "alloc of 3 pages failed");
        return;
    }
    CHECK(round_trip(p, 3 * 4096, 3), "3 pages did not copy in and out");
    const char *at[] = {p, (char *)p + 3 * 4096 - 1};
    for (int i = 0; i < 2; i++) {
        char perms[5] = "";
        CHECK(protection(at[i], perms) == 0 && strncmp(perms, "---", 3) == 0,
              "device memory at %p is mapped '%s', not inaccessible to the host", at[i], perms);
    }
    char perms[5] = "";
    static char host[64];
    CHECK(protection(host, perms) == 0 && perms[0] == 'r',
          "host memory is mapped '%s': the reading of /proc/self/maps is wrong", perms);
    redist_device_free(p);
}

int main(void)
{
    setenv("REDIST_DEVICE_BACKEND", "emulated", 1); /* read at the first device call */
    oversized();
    frees();
    inaccessible();
    if (failures)
        fprintf(stderr, "test_device_helpers: %ld failures\n", failures);
    return failures != 0;
}
