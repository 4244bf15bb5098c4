/* Helpers shared by the MPI tests (MPICH's mtest style). */
#ifndef REDIST_MTEST_H
#define REDIST_MTEST_H

/* Sums the error counts of all ranks, prints " No Errors" or " Found N errors" on rank 0,
   finalizes MPI and returns the process exit status (0 only if no rank found an error). */
int mtest_finalize(int errs);

#endif
