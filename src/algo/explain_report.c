/* The whole explain report (explain.h): every algorithm's row, the pattern's traffic and the
 * model's parameters, as redist_explain returns them in JSON and `redist explain` prints
 * them. No MPI: any communicator size. */
#include "algo/explain.h"

#include "algo/algo.h"
#include "exec/exec.h"

#include <stdio.h>
#include <string.h>

static void keep_max(int64_t *max, int64_t value)
{
    if (value > *max)
        *max = value;
}

/* Every member rank's traffic (ranks in neither layout have none, however many there are). */
static int summarise_pattern(redist_layout src, redist_layout dst, int comm_size, int64_t elsize,
                             redist__pattern_summary *p)
{
    memset(p, 0, sizeof *p);
    redist__case c; /* its node terms, on the nodes a plan would see */
    int err = redist__pair_case_on_nodes(src, dst, comm_size, redist__explain_ranks_per_node(),
                                         elsize, &c, NULL, NULL);
    if (err != REDIST_SUCCESS)
        return err;
    p->nodes = c.t.n;
    int *members = NULL, n = 0;
    int rc = redist__member_ranks(src, dst, &members, &n);
    for (int m = 0; rc == REDIST_SUCCESS && m < n; m++) {
        redist__rank_traffic t;
        rc = redist__rank_traffic_compute(src, dst, members[m], elsize, &t);
        if (rc != REDIST_SUCCESS)
            break;
        keep_max(&p->max_sent_messages, t.messages_sent);
        keep_max(&p->max_sent_bytes, t.bytes_sent);
        keep_max(&p->max_received_messages, t.messages_received);
        keep_max(&p->max_received_bytes, t.bytes_received);
        keep_max(&p->max_peers, t.peers_max);
        p->total_messages += t.messages_sent;
        p->total_bytes += t.bytes_sent;
        p->bytes_copied += t.bytes_copied;
    }
    redist__free(members);
    return rc;
}

/* Every algorithm's row; the requested one's failure returned with its own detail. */
static int explain_rows(redist_layout src, redist_layout view, const redist_options *opt,
                        redist__explain_report *r)
{
    r->count = redist_algorithm_count();
    r->rows = redist__calloc((size_t)r->count, sizeof *r->rows);
    if (r->rows == NULL)
        return redist__fail(REDIST_ERR_NOMEM, "explain: the algorithms' rows");
    int head_rc = REDIST_SUCCESS;
    redist__kept_detail detail; /* the requested row's, as the other rows overwrite it */
    for (int i = 0; i < r->count; i++) {
        redist__explain_row *row = &r->rows[i];
        row->name = redist_algorithm_name(i);
        row->rc = redist__explain_with(src, view, r->procs, r->elsize, row->name, opt,
                                       redist__model_threads(r->threads, r->cores), &row->e);
        if (strcmp(row->name, r->requested) != 0)
            continue;
        r->head = row;
        head_rc = row->rc;
        redist__detail_keep(&detail);
    }
    if (head_rc != REDIST_SUCCESS)
        redist__detail_restore(&detail);
    return head_rc;
}

int redist__explain_report_make(redist_layout src, redist_layout dst, int comm_size, int64_t elsize,
                                const redist_options *opt, int cores, redist__explain_report *r)
{
    memset(r, 0, sizeof *r);
    r->requested = opt != NULL && opt->algorithm != NULL ? opt->algorithm : "auto";
    int64_t min_bytes = 0;
    int err = redist__threads_resolve(opt, &r->threads, &min_bytes);
    if (err != REDIST_SUCCESS)
        return err;
    r->procs = comm_size;
    r->cores = cores > 0 ? cores : redist__cores();
    r->elsize = elsize;
    r->memory = redist__memory_served(opt != NULL ? opt->memory : REDIST_MEMORY_HOST);
    r->elements = 1;
    for (int k = 0; k < src->ndims; k++)
        r->elements *= src->extent[k]; /* < 2^63 / elsize: check_array_bytes */
    if (opt != NULL && opt->permutation != NULL) {
        r->permutation = opt->permutation;
        r->npermute = src->ndims;
    }
    /* the plan's view of the destination: its dimensions named as the source's */
    redist_layout view = r->permutation ? redist__layout_permuted(dst, r->permutation) : dst;
    if (view == NULL)
        return redist__fail(REDIST_ERR_NOMEM, "explain: the permuted destination");
    /* partial sums: the pattern of a plan whose source replicas all send */
    struct redist_layout_s *partial = NULL;
    err = redist__partial_source(src, opt, &partial);
    if (err == REDIST_SUCCESS)
        err = summarise_pattern(partial != NULL ? partial : src, view, comm_size, elsize,
                                &r->pattern);
    redist_layout_free(&partial);
    if (err == REDIST_SUCCESS)
        err = explain_rows(src, view, opt, r);
    if (view != dst)
        redist_layout_free(&view);
    return err;
}

void redist__explain_report_free(redist__explain_report *r)
{
    redist__free(r->rows);
    r->rows = NULL;
    r->count = 0;
    r->head = NULL;
}

/* ---- JSON ------------------------------------------------------------------------------- */

static void json_explanation(redist__text *t, const redist__explanation *e)
{
    redist__text_printf(t,
                        "\"steps\": %d, \"max_messages_per_rank\": %lld, \"max_bytes_per_rank\": "
                        "%lld, \"total_messages\": %lld, \"total_bytes\": %lld, \"transport\": "
                        "\"%s\", \"bounded\": %s, \"buffer_bytes\": %lld, \"predicted_seconds\": ",
                        e->steps, (long long)e->max_messages_per_rank,
                        (long long)e->max_bytes_per_rank, (long long)e->total_messages,
                        (long long)e->total_bytes,
                        e->transport == REDIST_TRANSPORT_DATATYPE ? "datatype" : "pack",
                        e->bounded ? "true" : "false", (long long)e->buffer_bytes);
    redist__text_json_double(t, e->predicted_seconds);
    redist__text_printf(t, ", \"staging_seconds\": ");
    redist__text_json_double(t, e->staging_seconds);
    redist__text_printf(t, ", \"device_ipc\": %s, \"device_mpi\": %s",
                        e->device_ipc ? "true" : "false", e->device_mpi ? "true" : "false");
}

/* The algorithm auto chooses for the pair: what its row explains (NULL if none applies). */
static const char *auto_choice(const redist__explain_report *r)
{
    for (int i = 0; i < r->count; i++)
        if (!strcmp(r->rows[i].name, "auto"))
            return r->rows[i].rc == REDIST_SUCCESS ? r->rows[i].e.chosen : NULL;
    return NULL;
}

/* One entry per algorithm; `chosen` is true on the row of the algorithm auto chooses (auto's
   own row explains that algorithm's plan and is not marked), whatever was requested. */
static void json_rows(redist__text *t, const redist__explain_report *r)
{
    const char *choice = auto_choice(r);
    redist__text_printf(t, "[");
    for (int i = 0; i < r->count; i++) {
        const redist__explain_row *row = &r->rows[i];
        redist__text_printf(t, "%s{\"name\": ", i ? ", " : "");
        redist__text_json_string(t, row->name);
        if (row->rc == REDIST_SUCCESS) {
            int chosen = choice && strcmp(row->name, "auto") && !strcmp(row->name, choice);
            redist__text_printf(t, ", \"applicable\": true, \"chosen\": %s, ",
                                chosen ? "true" : "false");
            json_explanation(t, &row->e);
        } else {
            redist__text_printf(t, ", \"applicable\": false, \"error\": ");
            redist__text_json_string(t, redist_error_name(row->rc));
            redist__text_printf(t, ", \"why_not\": "); /* the planner's reason, or null */
            redist__text_json_string(t, row->e.why_not);
        }
        redist__text_printf(t, "}");
    }
    redist__text_printf(t, "]");
}

static void json_pattern(redist__text *t, const redist__pattern_summary *p)
{
    redist__text_printf(t,
                        "{\"max_messages_sent\": %lld, \"max_bytes_sent\": %lld, "
                        "\"max_messages_received\": %lld, \"max_bytes_received\": %lld, "
                        "\"max_peers\": %lld, \"total_messages\": %lld, \"total_bytes\": %lld, "
                        "\"bytes_copied\": %lld}",
                        (long long)p->max_sent_messages, (long long)p->max_sent_bytes,
                        (long long)p->max_received_messages, (long long)p->max_received_bytes,
                        (long long)p->max_peers, (long long)p->total_messages,
                        (long long)p->total_bytes, (long long)p->bytes_copied);
}

/* The nodes (REDIST_RANKS_PER_NODE's; one without it) and what crosses between them. */
static void json_nodes(redist__text *t, const redist__node_traffic *n)
{
    redist__text_printf(t,
                        "{\"nodes\": %d, \"ranks_per_node\": %d, \"max_messages_off_node\": %lld, "
                        "\"max_bytes_off_node\": %lld, \"max_messages_sent_off_node\": %lld, "
                        "\"max_bytes_sent_off_node\": %lld, \"max_messages_on_node\": %lld, "
                        "\"max_node_bytes_off_node\": %lld, \"node_aware_pair_messages\": %lld, "
                        "\"node_aware_pair_bytes\": %lld, \"node_aware_messages_on_node\": %lld, "
                        "\"node_aware_bytes_on_node\": %lld}",
                        n->nodes, n->ranks_per_node, (long long)n->max_remote_messages,
                        (long long)n->max_remote_bytes, (long long)n->max_remote_sent_messages,
                        (long long)n->max_remote_sent_bytes, (long long)n->max_local_messages,
                        (long long)n->max_node_bytes, (long long)n->max_pair_messages,
                        (long long)n->max_pair_bytes, (long long)n->max_gather_messages,
                        (long long)n->max_gather_bytes);
}

/* The model's parameters and where they come from (machine file, environment, defaults). */
static void json_machine(redist__text *t)
{
    redist__machine m;
    char source[512];
    redist__machine_current(&m, source, sizeof source);
    redist__text_printf(t, "{\"source\": ");
    redist__text_json_string(t, source);
    for (int i = 0; i < REDIST__MACHINE_NPARAMS; i++)
        redist__text_printf(t, ", \"%s\": %.17g", redist__machine_params()[i].key,
                            redist__machine_get(&m, i));
    redist__text_printf(t, ", \"shared_node\": %d}", m.shared_node);
}

void redist__explain_report_json(const redist__explain_report *r, redist__text *t)
{
    static const char *const memory_names[] = {"host", "cuda", "auto"};
    const redist__explain_row *head = r->head;
    redist__text_printf(t,
                        "{\"procs\": %d, \"element_bytes\": %lld, \"elements\": %lld, "
                        "\"array_bytes\": %lld",
                        r->procs, (long long)r->elsize, (long long)r->elements,
                        (long long)(r->elements * r->elsize));
    if (r->npermute > 0) {
        redist__text_printf(t, ", \"permutation\": [");
        for (int j = 0; j < r->npermute; j++)
            redist__text_printf(t, "%s%d", j ? ", " : "", r->permutation[j]);
        redist__text_printf(t, "]");
    }
    redist__text_printf(t, ", \"requested\": ");
    redist__text_json_string(t, r->requested);
    redist__text_printf(t, ", \"algorithm\": ");
    redist__text_json_string(t, head->e.chosen ? head->e.chosen : head->name);
    redist__text_printf(t, ", ");
    json_explanation(t, &head->e);
    redist__text_printf(t, ", \"pattern\": ");
    json_pattern(t, &r->pattern);
    redist__text_printf(t, ", \"nodes\": ");
    json_nodes(t, &r->pattern.nodes);
    redist__text_printf(t,
                        ", \"memory\": {\"default_bytes\": %lld, \"bounded_bytes\": %lld, "
                        "\"chunk_bytes\": %lld}",
                        (long long)head->e.default_bytes,
                        (long long)(head->e.bounded ? head->e.buffer_bytes : 0),
                        (long long)head->e.chunk_bytes);
    redist__text_printf(t, ", \"machine\": ");
    json_machine(t);
    redist__text_printf(t, ", \"threads\": %d, \"cores\": %d, \"arrays\": \"%s\", \"algorithms\": ",
                        r->threads, r->cores, memory_names[r->memory]);
    json_rows(t, r);
    redist__text_printf(t, "}");
}
