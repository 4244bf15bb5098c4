/* What the options ask, for every layer that reads them (pure); their defaults, which
   name MPI_OP_NULL, are set in exec/options.c. */
#include "core/core.h"

#include <string.h>

int redist__options_scale(const redist_options *opt)
{
    return opt != NULL && (opt->alpha[0] != 1.0 || opt->alpha[1] != 0.0 || opt->beta[0] != 0.0 ||
                           opt->beta[1] != 0.0 || opt->conjugate != 0);
}
