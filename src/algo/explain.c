/* What a plan would do, computed without MPI for any communicator size (explain.h): the
 * pair's case as a plan would agree on it (model/pair.c), then the algorithm's own rules and
 * prediction from the registry, with the default machine. */
#include "algo/explain.h"
#include "algo/algo.h"

#include <string.h>

int redist__explain(redist_layout src, redist_layout dst, int comm_size, int64_t elsize,
                    const char *algorithm, redist__explanation *out)
{
    if (out == NULL)
        return redist__fail(REDIST_ERR_ARG, "explain: NULL output");
    const char *name = algorithm == NULL ? "auto" : algorithm;
    const redist__algorithm *a = redist__algorithm_by_name(name);
    if (a == NULL && strcmp(name, "auto") != 0)
        return redist__fail(REDIST_ERR_UNKNOWN_ALGORITHM, "unknown algorithm '%s'", name);
    redist__case c;
    int64_t total_messages = 0, total_bytes = 0;
    int err = redist__pair_case(src, dst, comm_size, elsize, &c, &total_messages, &total_bytes);
    if (err != REDIST_SUCCESS)
        return err;
    const redist__machine *m = redist__machine_default();
    redist_options opt;
    redist_options_init(&opt);
    if (a == NULL) {
        a = redist__choose(&c, m, &opt);
        if (a == NULL)
            return redist__fail(REDIST_ERR_NOT_APPLICABLE, "no algorithm applies");
    } else if (a->applicable(&c) != REDIST_SUCCESS) {
        return redist__fail(REDIST_ERR_NOT_APPLICABLE, "'%s' cannot perform this redistribution",
                            name);
    }
    memset(out, 0, sizeof *out);
    out->chosen = a->name;
    out->steps = a->steps(&c, m, &opt);
    out->transport = redist__choose_transport(a, &c, m, &opt, REDIST_TRANSPORT_AUTO);
    out->predicted_seconds = a->predict(&c, m, &opt, out->transport);
    out->total_messages = total_messages;
    out->total_bytes = total_bytes;
    out->max_messages_per_rank = c.t.max_sent_messages;
    out->max_bytes_per_rank = c.t.max_sent_bytes;
    int64_t own[4];
    if (a->explain != NULL && a->explain(&c, m, &opt, own) == REDIST_SUCCESS) {
        out->max_messages_per_rank = own[0];
        out->max_bytes_per_rank = own[1];
        out->total_messages = own[2];
        out->total_bytes = own[3];
    }
    return REDIST_SUCCESS;
}
