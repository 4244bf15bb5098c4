/* Internal (not installed): the api layer, the public entry points that create plans
 * (plan.c: redist_plan_create and the child-plan constructor; bmmc_plan.c:
 * redist_plan_create_bmmc). The top of the stack: it calls the registry and the algorithms. */
#ifndef REDIST_API_H
#define REDIST_API_H

#include "algo/algo.h"

/* The start of every public plan constructor: clears the error detail, sets *plan = NULL
   (if plan is not NULL), and checks MPI and comm (initialized, a valid intracommunicator).
   Local: REDIST_ERR_MPI, REDIST_ERR_ARG, REDIST_ERR_UNSUPPORTED (an intercommunicator). */
int redist__plan_prologue(MPI_Comm comm, redist_plan *plan, int *rank, int *size);
/* The ranks of comm on the caller's node (collective: MPI_Comm_split_type), who share its
   memory; comm's size if MPI cannot tell. */
int redist__node_ranks(MPI_Comm comm);
/* The maxima over the ranks of the stats' messages_sent and bytes_sent (collective):
   REDIST_ERR_MPI if the reduction fails. */
int redist__stats_maxima(struct redist_plan_s *p);
/* Every option checked (the plan's own and every algorithm's, registry.c): REDIST_ERR_ARG
   naming the field, REDIST_ERR_UNKNOWN_ALGORITHM. NULL options are the defaults. Local. */
int redist__check_options(const redist_options *opt, int comm_size);
/* The options' fingerprints (algorithm name and every field), for redist__agree. */
void redist__fp_options(redist__fingerprints *fp, const redist_options *opt);
/* The options a plan keeps: the defaults for NULL, and its own copies of the strings
   (*strings, freed with the plan). REDIST_ERR_NOMEM if a copy fails. */
int redist__keep_options(const redist_options *opt, redist_options *kept, char **strings);

/* The Fortran module's plan constructor (fortran.c): Fortran MPI handles, the algorithm
   (NULL: auto) and max_buffer_bytes as the only options. */
int redist_f_plan_create(redist_layout src, redist_layout dst, MPI_Fint type, MPI_Fint comm,
                         const char *algorithm, int64_t max_buffer_bytes, redist_plan *plan);

#endif
