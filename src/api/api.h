/* Internal (not installed): the api layer, the public entry points that create plans
 * (plan.c: redist_plan_create; bmmc_plan.c: redist_plan_create_bmmc; batch.c; inter.c;
 * relabel.c; fortran.c). The top of the stack: it checks the arguments, hands the registry's
 * table to the planner (src/planner/) and builds on the algorithms. */
#ifndef REDIST_API_H
#define REDIST_API_H

#include "algo/algo.h"

/* The start of every public plan constructor: clears the error detail, sets *plan = NULL
   (if plan is not NULL), and checks MPI and comm (initialized, a valid intracommunicator).
   Local: REDIST_ERR_MPI, REDIST_ERR_ARG, REDIST_ERR_UNSUPPORTED (an intercommunicator). */
int redist__plan_prologue(MPI_Comm comm, redist_plan *plan, int *rank, int *size);
/* Every option checked (the plan's own and every algorithm's, registry.c): REDIST_ERR_ARG
   naming the field, REDIST_ERR_UNKNOWN_ALGORITHM. NULL options are the defaults. Local. */
int redist__check_options(const redist_options *opt, int comm_size);
/* The options' fingerprints (algorithm name and every field), for redist__agree. */
void redist__fp_options(redist__fingerprints *fp, const redist_options *opt);

/* The Fortran module's plan constructor (fortran.c): Fortran MPI handles, the algorithm
   (NULL: auto), max_buffer_bytes and memory as the only options. */
int redist_f_plan_create(redist_layout src, redist_layout dst, MPI_Fint type, MPI_Fint comm,
                         const char *algorithm, int64_t max_buffer_bytes, int memory,
                         redist_plan *plan);

#endif
