/* What a plan would do, computed without MPI for any communicator size (explain.h): the
 * pair's case as a plan would agree on it (model/pair.c), then the algorithm's own rules and
 * prediction from the registry, with this process's machine (model/machine.c). */
#include "algo/explain.h"

#include "algo/algo.h"
#include "device/device.h"
#include "exec/engine.h"
#include "exec/shared.h"

#include <string.h>

int redist__explain_ranks_per_node(void)
{
    int per_node = 0;
    if (redist__ranks_per_node(&per_node) != REDIST_SUCCESS) { /* malformed: unset, as plans */
        redist__clear_error();
        per_node = 0;
    }
    return per_node;
}

int redist__explain(redist_layout src, redist_layout dst, int comm_size, int64_t elsize,
                    const char *algorithm, redist__explanation *out)
{
    return redist__explain_with(src, dst, comm_size, elsize, algorithm, NULL, 1, out);
}

/* The mode the plan would run in, as the planner decides it: bounded if asked, or if the default
   mode's buffers would not fit in a rank's share of its node's memory (auto then choosing
   among the algorithms that run bounded). The ranks per node are the cost model's: every
   rank on this machine's node where the machine is one node (shared_node, the default),
   else one rank per node (no more is known without a launch). */
static int choose_mode(const redist__case *c, const redist__machine *m, int comm_size,
                       redist_options *opt, const redist__algorithm **a, int auto_chosen,
                       redist__explanation *out)
{
    out->transport = redist__choose_transport(*a, c, m, opt, opt->transport);
    out->default_bytes = redist__default_buffer_bytes(c, *a, out->transport);
    int64_t bound = opt->max_buffer_bytes;
    int node_ranks = c->t.n.nodes > 1 ? c->t.n.ranks_per_node : m->shared_node ? comm_size : 1;
    if (bound == 0 && (bound = redist__fallback_bound(c, *a, out->transport, node_ranks)) > 0) {
        int bounded = 0;
        *a =
            redist__choose_bounded(redist__registry(), *a, auto_chosen, c, m, opt, bound, &bounded);
        if (!bounded)
            bound = 0; /* the datatype transport, or NOMEM: the planner says which */
        else if (bound < 2 * (int64_t)c->t.elsize)
            return redist__fail_no_room(bound);
        else
            opt->max_buffer_bytes = bound;
    }
    if (bound > 0) {
        out->bounded = 1;
        out->transport = REDIST_TRANSPORT_PACK;
        out->chunk_bytes = redist__strip_chunk_elems(bound, c->t.elsize) * (int64_t)c->t.elsize;
        out->buffer_bytes = out->default_bytes < bound ? out->default_bytes : bound;
    } else {
        out->buffer_bytes = out->default_bytes;
    }
    return REDIST_SUCCESS;
}

static int explain_pair(redist_layout src, redist_layout dst, int comm_size, int64_t elsize,
                        const char *algorithm, const redist_options *options, int threads,
                        redist__explanation *out);

int redist__explain_with(redist_layout src, redist_layout dst, int comm_size, int64_t elsize,
                         const char *algorithm, const redist_options *options, int threads,
                         redist__explanation *out)
{
    if (options != NULL && options->reduce != MPI_OP_NULL &&
        redist__memory_served(options->memory) != REDIST_MEMORY_HOST) /* as a plan refuses */
        return redist__fail(REDIST_ERR_UNSUPPORTED,
                            "options.reduce (partial sums) reduces on the host: device memory "
                            "(options.memory) is not supported with it");
    struct redist_layout_s *partial = NULL;
    int err = redist__partial_source(src, options, &partial);
    if (err == REDIST_SUCCESS)
        err = explain_pair(partial != NULL ? partial : src, dst, comm_size, elsize, algorithm,
                           options, threads, out);
    redist_layout_free(&partial);
    return err;
}

int redist__partial_source(redist_layout src, const redist_options *opt,
                           struct redist_layout_s **partial)
{
    *partial = NULL;
    if (opt == NULL || opt->reduce == MPI_OP_NULL || src == NULL)
        return REDIST_SUCCESS;
    if ((*partial = redist__layout_copy(src)) == NULL)
        return redist__fail(REDIST_ERR_NOMEM, "explain: the partial source");
    (*partial)->partial = 1;
    return REDIST_SUCCESS;
}

static int explain_pair(redist_layout src, redist_layout dst, int comm_size, int64_t elsize,
                        const char *algorithm, const redist_options *options, int threads,
                        redist__explanation *out)
{
    if (out == NULL)
        return redist__fail(REDIST_ERR_ARG, "explain: NULL output");
    memset(out, 0, sizeof *out);
    const char *name = algorithm == NULL ? "auto" : algorithm;
    const redist__algorithm *a = redist__algorithm_by_name(name);
    if (a == NULL && strcmp(name, "auto") != 0)
        return redist__fail(REDIST_ERR_UNKNOWN_ALGORITHM, "unknown algorithm '%s'", name);
    int per_node = redist__explain_ranks_per_node();
    int on_nodes = per_node > 0 && per_node < comm_size;
    redist__case c;
    int64_t total_messages = 0, total_bytes = 0;
    int err = redist__pair_case_on_nodes(src, dst, comm_size, on_nodes ? per_node : 0, elsize, &c,
                                         &total_messages, &total_bytes);
    if (err != REDIST_SUCCESS)
        return err;
    redist_options opt;
    if (options != NULL)
        opt = *options;
    else
        redist_options_init(&opt);
    opt.algorithm = name;
    opt.memory = redist__memory_served(opt.memory); /* AUTO: this process's backend decides */
    int64_t max_buffer_bytes = opt.max_buffer_bytes;
    int memory = opt.memory;
    redist__machine machine;
    redist__machine_current(&machine, NULL, 0);
    /* as a plan scales it (planner.c, agree_on_case): by the ranks per core of its node, all
       comm_size ranks on this machine's node where the machine is one node (shared_node).
       On several nodes packed messages cross the network, not shared memory, and each node
       is taken to have a core per rank (a cluster's, not this machine's) */
    if (on_nodes)
        machine.shared_node = machine.shared_arrays = 0;
    redist__machine_scale(&machine,
                          redist__ranks_per_core(!on_nodes && machine.shared_node ? comm_size : 1));
    redist__machine_threads(&machine, threads);
    /* as the planner: kernels move the arrays, and on one node with options.memory = CUDA
       they pull the node's messages over inter-process memory (where the driver lets them:
       the plan's probe finds out; REDIST_DEVICE_IPC=0 turns it off) */
    machine.device_ipc = redist__device_ipc_asked(&opt);
    machine.gpu_mpi = memory == REDIST_MEMORY_CUDA && redist__mpi_gpu_aware(NULL, 0);
    if (memory != REDIST_MEMORY_HOST)
        redist__machine_device(&machine);
    const redist__machine *m = &machine;
    int auto_chosen = a == NULL;
    err = redist__choose_algorithm(redist__registry(), name, &c, m, &opt, &a, &out->why_not);
    if (err != REDIST_SUCCESS)
        return err;
    if (max_buffer_bytes > 0 &&
        (err = redist__check_bound(max_buffer_bytes, (size_t)elsize)) != REDIST_SUCCESS)
        return err;
    err = choose_mode(&c, m, comm_size, &opt, &a, auto_chosen, out);
    if (err != REDIST_SUCCESS)
        return err;
    out->chosen = a->name;
    out->steps = out->bounded ? c.t.shift_steps : a->steps(&c, m, &opt);
    out->predicted_seconds = out->bounded ? redist__strip_predict(&c, m, opt.max_buffer_bytes)
                                          : a->predict(&c, m, &opt, out->transport);
    out->predicted_seconds += redist__cost_agreement(&c, m, redist__agreements(&opt));
    if (memory != REDIST_MEMORY_HOST) {
        out->staging_seconds =
            redist__predict_staging(a, &c, m, &opt, out->transport, !out->bounded);
        out->device_ipc = redist__staging_pulled(a, m, &opt, out->transport, !out->bounded);
        out->device_mpi = !out->bounded && redist__staging_gpu_mpi(a, m, &opt, out->transport);
        out->predicted_seconds += out->staging_seconds;
    }
    out->total_messages = total_messages;
    out->total_bytes = total_bytes;
    out->max_messages_per_rank = c.t.max_sent_messages;
    out->max_bytes_per_rank = c.t.max_sent_bytes;
    redist__traffic_summary own;
    if (a->explain != NULL && a->explain(&c, m, &opt, &own) == REDIST_SUCCESS) {
        out->max_messages_per_rank = own.max_messages_per_rank;
        out->max_bytes_per_rank = own.max_bytes_per_rank;
        out->total_messages = own.total_messages;
        out->total_bytes = own.total_bytes;
    }
    return REDIST_SUCCESS;
}
