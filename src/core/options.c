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
}
