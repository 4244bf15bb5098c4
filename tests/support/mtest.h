/* Helpers shared by the MPI tests (MPICH's mtest style). */
#ifndef REDIST_MTEST_H
#define REDIST_MTEST_H

#include <stdint.h>

/* Sums the error counts of all ranks, prints " No Errors" or " Found N errors" on rank 0,
   finalizes MPI and returns the process exit status (0 only if no rank found an error). */
int mtest_finalize(int errs);

/* The test oracle of the layout rule (redist.h), independent of the library: the global
   index along one dimension of local index l at grid coordinate c, for cyclic(b) over P
   coordinates with global block 0 on coordinate `first`. */
int64_t mtest_global_of(int64_t l, int64_t b, int P, int first, int c);

/* Prints "[rank R] what: <fmt ...>" and a newline on stdout (flushed) and counts one error in
 *errs. rank is the caller's MPI_COMM_WORLD rank (calls before MPI_Init pass 0). */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
void mtest_fail(int *errs, int rank, const char *what, const char *fmt, ...);

#endif
