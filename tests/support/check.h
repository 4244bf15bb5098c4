/* The serial unit tests' check: counts a failure and prints the first 20 with their place,
   never stops the test. Each test ends by reporting `failures` and returning non-zero if any. */
#ifndef REDIST_TEST_CHECK_H
#define REDIST_TEST_CHECK_H

#include <stdio.h>

static long failures;
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            if (failures++ < 20) {                                                                 \
                fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                                    \
                fprintf(stderr, __VA_ARGS__);                                                      \
                fputc('\n', stderr);                                                               \
            }                                                                                      \
        }                                                                                          \
    } while (0)

#endif
