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
/* The pair and the options as a plan on `size` ranks takes them (plan.c): the algorithm's
   name (REDIST_ERR_UNKNOWN_ALGORITHM), the permutation and the extents it maps, every option
   (redist__check_options), the layouts' ranks within size; src and dst not NULL. Local. */
int redist__check_pair(redist_layout src, redist_layout dst, int size, const redist_options *opt);
/* The options' fingerprints (algorithm name and every field), for redist__agree. */
void redist__fp_options(redist__fingerprints *fp, const redist_options *opt);

/* redist_explain's checks and report (explain.c): the arguments checked as
   redist_plan_create checks them (less the type and the arrays), then
   redist__explain_report_make (algo/explain.h) for ranks of `cores` CPUs (0: this
   process's); the tool's text explain reads the report. Free r with
   redist__explain_report_free whatever the result. */
struct redist__explain_report;
int redist__explain_checked(redist_layout src, redist_layout dst, int comm_size, int64_t elsize,
                            const redist_options *opt, int cores, struct redist__explain_report *r);

/* The Fortran module's plan constructor (fortran.c): Fortran MPI handles, the algorithm
   (NULL: auto), max_buffer_bytes and memory as the only options. */
int redist_f_plan_create(redist_layout src, redist_layout dst, MPI_Fint type, MPI_Fint comm,
                         const char *algorithm, int64_t max_buffer_bytes, int memory,
                         redist_plan *plan);

#endif
