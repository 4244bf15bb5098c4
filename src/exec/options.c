/* The options' defaults (redist.h). Here, above the MPI-free layers, because the default of
 * options.reduce is MPI_OP_NULL, which is not zero in every MPI. */
#include "exec/exec.h"

#include <string.h>

/* The MPI-free view of redist_options (core, index, model) has a union where this one has
   MPI_Op: the same size and place as long as MPI_Op fits in 8 bytes. */
_Static_assert(sizeof(MPI_Op) <= 8 && _Alignof(MPI_Op) <= 8,
               "redist_options' MPI-free view assumes MPI_Op fits in 8 bytes");

void redist_options_init(redist_options *opt)
{
    if (opt == NULL)
        return;
    memset(opt, 0, sizeof *opt);
    opt->algorithm = NULL;
    opt->check_arguments = 1;
    opt->shared_memory = 1;
    opt->transport = REDIST_TRANSPORT_AUTO;
    opt->hybrid_degree = -1;
    opt->synchronous_receive = 0;
    opt->bmmc_method = 0;
    opt->alpha[0] = 1.0;
    opt->reduce = MPI_OP_NULL;
}
