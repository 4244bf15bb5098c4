/* Helpers shared by the MPI tests (MPICH's mtest style). */
#ifndef REDIST_MTEST_H
#define REDIST_MTEST_H

/* Sums the error counts of all ranks, prints " No Errors" or " Found N errors" on rank 0,
   finalizes MPI and returns the process exit status (0 only if no rank found an error). */
int mtest_finalize(int errs);

/* Prints "[rank R] what: <fmt ...>" and a newline on stdout (flushed) and counts one error in
 *errs. rank is the caller's MPI_COMM_WORLD rank (calls before MPI_Init pass 0). */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
void mtest_fail(int *errs, int rank, const char *what, const char *fmt, ...);

#endif
