/* The options' defaults (redist.h): pure, for every layer that reads options. */
#include "core/core.h"

#include <string.h>

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
}

int redist__options_scale(const redist_options *opt)
{
    return opt != NULL && (opt->alpha[0] != 1.0 || opt->alpha[1] != 0.0 || opt->beta[0] != 0.0 ||
                           opt->beta[1] != 0.0 || opt->conjugate != 0);
}
