/* redist explain: what a plan would do, without MPI (src/explain.h). */
#include "explain.h"
#include "tables.h"
#include "tool.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char tool_explain_help[] =
    "usage: redist explain --from SPEC --to SPEC [options]\n"
    "\n"
    "Shows the plan without running it (no MPI launch needed): the algorithm auto chooses,\n"
    "then per algorithm the communication steps, the most messages and bytes any rank sends,\n"
    "the totals and the cost model's predicted time for one execute.\n"
    "\n"
    "options:\n"
    "  --from SPEC, --to SPEC   the layouts (see redist --help, docs/tool.md)\n"
    "  --procs P                communicator size (default: the largest rank the specs use\n"
    "                           + 1); also stands for procs= in a spec that names no\n"
    "                           procs, grid or ranks\n"
    "  --type T                 char, int, double (default) or double3 (24 bytes)\n"
    "  --algorithm A            headline this algorithm instead of auto's choice\n"
    "  --tables                 for a 1-D cyclic(x) -> cyclic(Kx) pair (or the dual) on the\n"
    "                           same P: paper 000's tables S, R, P (and S', P_s, D_s, R',\n"
    "                           P_r, D_r when K <= P)\n"
    "  --json                   one JSON object instead of text\n"
    "\n"
    "JSON keys: algorithm, requested, steps, max_messages_per_rank, max_bytes_per_rank,\n"
    "total_messages, total_bytes, predicted_seconds (for the headline algorithm), procs, type,\n"
    "element_bytes, elements, array_bytes, from, to, pattern, algorithms[], tables.\n";

typedef struct explain_args {
    tool_pair_opts pair; /* --from, --to, --algorithm, --type */
    int64_t procs;
    int json, tables;
} explain_args;

static int usage(const char *fmt, ...)
{
    if (tool_env_is_rank0()) {
        va_list ap;
        va_start(ap, fmt);
        fputs("redist: ", stderr);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
    }
    return TOOL_USAGE;
}

static int parse_args(int argc, char **argv, explain_args *a)
{
    memset(a, 0, sizeof *a);
    tool_pair_init(&a->pair);
    char msg[768];
    for (int i = 0; i < argc; i++) {
        const char *v = NULL;
        int m = tool_pair_option(argc, argv, &i, &a->pair, msg, sizeof msg);
        if (msg[0])
            return usage("%s", msg);
        if (m != 0)
            ; /* a shared option */
        else if ((m = tool_opt_value(argc, argv, &i, "--procs", &v)) != 0) {
            if (m > 0 &&
                (spec_parse_count(v, &a->procs) != 0 || a->procs < 1 || a->procs > INT32_MAX))
                return usage("--procs: expected a positive integer, got '%s'", v);
        } else if (!strcmp(argv[i], "--json"))
            a->json = 1;
        else if (!strcmp(argv[i], "--tables"))
            a->tables = 1;
        else
            return usage("explain: unexpected argument '%s' (see redist explain --help)", argv[i]);
        if (m < 0)
            return usage("%s needs a value", argv[i]);
    }
    if (tool_pair_check(&a->pair, "explain", msg, sizeof msg) != 0)
        return usage("%s", msg);
    return TOOL_OK;
}

/* ---- JSON output ------------------------------------------------------------------------ */

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void json_double(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.9g", v);
    else
        fputs("null", f);
}

static void json_spec(FILE *f, const char *text, const tool_spec *s)
{
    char buf[512];
    fputs("{\"spec\": ", f);
    json_string(f, text);
    spec_format(s, buf, sizeof buf);
    fputs(", \"canonical\": ", f);
    json_string(f, buf);
    fputs(", \"n\": [", f);
    for (int k = 0; k < s->ndims; k++)
        fprintf(f, "%s%lld", k ? ", " : "", (long long)s->extent[k]);
    fputs("], \"block\": [", f);
    for (int k = 0; k < s->ndims; k++)
        fprintf(f, "%s%lld", k ? ", " : "", (long long)s->block[k]);
    fputs("], \"grid\": [", f);
    for (int k = 0; k < s->ndims; k++)
        fprintf(f, "%s%d", k ? ", " : "", s->grid[k]);
    fputs("], \"first\": [", f);
    for (int k = 0; k < s->ndims; k++)
        fprintf(f, "%s%d", k ? ", " : "", s->first[k]);
    spec_format_ranks(s, buf, sizeof buf);
    fputs("], \"ranks\": ", f);
    json_string(f, buf);
    fprintf(f, ", \"order\": \"%s\"}", s->order == REDIST_COL_MAJOR ? "col" : "row");
}

typedef struct explain_row {
    const char *name;
    int rc;
    redist__explanation e;
} explain_row;

static void json_explanation(FILE *f, const redist__explanation *e)
{
    fprintf(f,
            "\"steps\": %d, \"max_messages_per_rank\": %lld, \"max_bytes_per_rank\": %lld, "
            "\"total_messages\": %lld, \"total_bytes\": %lld, \"transport\": \"%s\", "
            "\"predicted_seconds\": ",
            e->steps, (long long)e->max_messages_per_rank, (long long)e->max_bytes_per_rank,
            (long long)e->total_messages, (long long)e->total_bytes,
            e->transport == REDIST_TRANSPORT_DATATYPE ? "datatype" : "pack");
    json_double(f, e->predicted_seconds);
}

/* The pattern itself, whatever the schedule: every rank's traffic. */
typedef struct pattern_summary {
    int64_t max_sent_messages, max_sent_bytes, max_received_messages, max_received_bytes;
    int64_t max_peers, total_messages, total_bytes, bytes_copied;
} pattern_summary;

static void keep_max(int64_t *max, int64_t value)
{
    if (value > *max)
        *max = value;
}

static int summarise_pattern(redist_layout src, redist_layout dst, int procs, int64_t el,
                             pattern_summary *p)
{
    memset(p, 0, sizeof *p);
    (void)procs; /* ranks in neither layout have no traffic, however many there are */
    int *members = NULL, n = 0;
    int rc = redist__member_ranks(src, dst, &members, &n);
    for (int m = 0; rc == REDIST_SUCCESS && m < n; m++) {
        redist__rank_traffic t;
        rc = redist__rank_traffic_compute(src, dst, members[m], el, &t);
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
    free(members);
    return rc;
}

static void print_json(const explain_args *a, const tool_spec *from, const tool_spec *to, int procs,
                       const pattern_summary *pat, const explain_row *rows, int count,
                       const explain_row *head, const tool_tables *tables, const char *why)
{
    FILE *f = stdout;
    int64_t el = tool_type_sizes[a->pair.type], n = spec_elements(from);
    fputs("{\"from\": ", f);
    json_spec(f, a->pair.from, from);
    fputs(", \"to\": ", f);
    json_spec(f, a->pair.to, to);
    fprintf(f,
            ", \"procs\": %d, \"type\": \"%s\", \"element_bytes\": %lld, \"elements\": %lld, "
            "\"array_bytes\": ",
            procs, tool_type_names[a->pair.type], (long long)el, (long long)n);
    fprintf(f, "%lld", (long long)(n * el)); /* < 2^63: tool_specs_check */
    fputs(", \"requested\": ", f);
    json_string(f, a->pair.algorithm);
    fputs(", \"algorithm\": ", f);
    json_string(f, head->e.chosen ? head->e.chosen : head->name);
    fputs(", ", f);
    json_explanation(f, &head->e);
    fprintf(f,
            ", \"pattern\": {\"max_messages_sent\": %lld, \"max_bytes_sent\": %lld, "
            "\"max_messages_received\": %lld, \"max_bytes_received\": %lld, "
            "\"max_peers\": %lld, \"total_messages\": %lld, \"total_bytes\": %lld, "
            "\"bytes_copied\": %lld}",
            (long long)pat->max_sent_messages, (long long)pat->max_sent_bytes,
            (long long)pat->max_received_messages, (long long)pat->max_received_bytes,
            (long long)pat->max_peers, (long long)pat->total_messages, (long long)pat->total_bytes,
            (long long)pat->bytes_copied);
    fputs(", \"algorithms\": [", f);
    for (int i = 0; i < count; i++) {
        const explain_row *r = &rows[i];
        fputs(i ? ", {\"name\": " : "{\"name\": ", f);
        json_string(f, r->name);
        if (r->rc == REDIST_SUCCESS) {
            fputs(", \"applicable\": true, \"chosen\": ", f);
            json_string(f, r->e.chosen ? r->e.chosen : r->name);
            fputs(", ", f);
            json_explanation(f, &r->e);
        } else {
            fputs(", \"applicable\": false, \"error\": ", f);
            json_string(f, redist_error_name(r->rc));
        }
        fputc('}', f);
    }
    fputc(']', f);
    if (a->tables) {
        fputs(", \"tables\": ", f);
        if (tables)
            tables_print_json(f, tables);
        else {
            fputs("null, \"tables_note\": ", f);
            json_string(f, why);
        }
    }
    fputs("}\n", f);
}

static void print_text(const explain_args *a, const tool_spec *from, const tool_spec *to, int procs,
                       const pattern_summary *pat, const explain_row *rows, int count,
                       const explain_row *head, const tool_tables *tables, const char *why)
{
    char b[6][64], text[512];
    int64_t el = tool_type_sizes[a->pair.type], n = spec_elements(from);
    printf("redist explain: %d process%s, ", procs, procs == 1 ? "" : "es");
    for (int k = 0; k < from->ndims; k++)
        printf("%s%lld", k ? "x" : "", (long long)from->extent[k]);
    printf(" %s (%lld byte%s each, %s in all)\n", tool_type_names[a->pair.type], (long long)el,
           el == 1 ? "" : "s", tool_fmt_bytes(b[0], sizeof b[0], (double)n * (double)el));
    spec_format(from, text, sizeof text);
    printf("  from     %s\n", text);
    spec_format(to, text, sizeof text);
    printf("  to       %s\n", text);
    printf("  pattern  per rank at most %lld message%s (%s) sent and %lld (%s) received, %lld "
           "peer%s;\n",
           (long long)pat->max_sent_messages, pat->max_sent_messages == 1 ? "" : "s",
           tool_fmt_bytes(b[0], sizeof b[0], (double)pat->max_sent_bytes),
           (long long)pat->max_received_messages,
           tool_fmt_bytes(b[1], sizeof b[1], (double)pat->max_received_bytes),
           (long long)pat->max_peers, pat->max_peers == 1 ? "" : "s");
    printf("           %lld messages and %s cross between ranks, %s stay on their rank\n",
           (long long)pat->total_messages,
           tool_fmt_bytes(b[0], sizeof b[0], (double)pat->total_bytes),
           tool_fmt_bytes(b[1], sizeof b[1], (double)pat->bytes_copied));
    const char *chosen = head->e.chosen ? head->e.chosen : head->name;
    if (!strcmp(a->pair.algorithm, "auto"))
        printf("  auto     chooses %s: %d step%s, predicted %s per execute\n", chosen,
               head->e.steps, head->e.steps == 1 ? "" : "s",
               tool_fmt_seconds(b[0], sizeof b[0], head->e.predicted_seconds));
    else
        printf("  forced   %s: %d step%s, predicted %s per execute\n", chosen, head->e.steps,
               head->e.steps == 1 ? "" : "s",
               tool_fmt_seconds(b[0], sizeof b[0], head->e.predicted_seconds));

    printf("\n  %-27s %6s %10s %12s %11s %12s %10s\n", "algorithm", "steps", "msgs/rank",
           "bytes/rank", "total msgs", "total bytes", "predicted");
    for (int i = 0; i < count; i++) {
        const explain_row *r = &rows[i];
        char name[80];
        const char *how =
            r->rc == REDIST_SUCCESS && r->e.transport == REDIST_TRANSPORT_DATATYPE ? " (dt)" : "";
        if (r->rc == REDIST_SUCCESS && r->e.chosen && strcmp(r->e.chosen, r->name))
            snprintf(name, sizeof name, "%s -> %s%s", r->name, r->e.chosen, how);
        else
            snprintf(name, sizeof name, "%s%s", r->name, how);
        if (r->rc == REDIST_ERR_NOT_APPLICABLE) {
            printf("  %-27s (not applicable to this pair)\n", name);
            continue;
        }
        if (r->rc != REDIST_SUCCESS) {
            printf("  %-27s (%s)\n", name, redist_strerror(r->rc));
            continue;
        }
        printf("  %-27s %6d %10lld %12s %11lld %12s %10s\n", name, r->e.steps,
               (long long)r->e.max_messages_per_rank,
               tool_fmt_bytes(b[1], sizeof b[1], (double)r->e.max_bytes_per_rank),
               (long long)r->e.total_messages,
               tool_fmt_bytes(b[2], sizeof b[2], (double)r->e.total_bytes),
               tool_fmt_seconds(b[3], sizeof b[3], r->e.predicted_seconds));
    }
    if (a->tables) {
        printf("\n");
        if (tables)
            tables_print(stdout, tables, "  ", 1);
        else
            printf("  (no tables: %s)\n", why);
    }
}

int tool_explain(int argc, char **argv)
{
    explain_args a;
    int status = parse_args(argc, argv, &a);
    if (status != TOOL_OK)
        return status;
    int rank0 = tool_env_is_rank0();

    tool_spec from, to;
    char err[256], err2[256];
    memset(&to, 0, sizeof to);
    /* A spec without procs/grid/ranks spans --procs, or else the other spec's processes. */
    memset(&from, 0, sizeof from);
    int rf = spec_parse(a.pair.from, (int)a.procs, &from, err, sizeof err);
    int rt = rf == -1 ? 0 : spec_parse(a.pair.to, (int)a.procs, &to, err2, sizeof err2);
    if (rf == -2 && rt == 0) {
        spec_free(&from);
        rf = spec_parse(a.pair.from, to.max_rank + 1, &from, err, sizeof err);
    } else if (rt == -2 && rf == 0) {
        spec_free(&to);
        rt = spec_parse(a.pair.to, from.max_rank + 1, &to, err2, sizeof err2);
    }
    if (rf != 0 || rt != 0) {
        spec_free(&from);
        spec_free(&to);
        const char *missing = "missing procs, grid or ranks (or give --procs P)";
        return rf != 0 ? usage("--from: %s", rf == -2 ? missing : err)
                       : usage("--to: %s", rt == -2 ? missing : err2);
    }
    status = TOOL_OK;
    if (tool_specs_check(&from, &to, a.pair.type, err, sizeof err) != 0)
        status = usage("%s", err);
    int procs = (int)a.procs;
    int need = (from.max_rank > to.max_rank ? from.max_rank : to.max_rank) + 1;
    if (status == TOOL_OK && procs && need > procs) {
        status = usage("%s: uses rank %d but --procs is %d",
                       from.max_rank >= procs ? "--from" : "--to", need - 1, procs);
    }
    if (status != TOOL_OK) {
        spec_free(&from);
        spec_free(&to);
        return status;
    }
    if (!procs)
        procs = need;

    redist_layout src = NULL, dst = NULL;
    explain_row *rows = NULL;
    tool_tables tables, *tp = NULL;
    char why[256] = "";
    int64_t el = tool_type_sizes[a.pair.type];
    int count = redist_algorithm_count();
    int rc = spec_layout(&from, &src);
    if (rc == REDIST_SUCCESS)
        rc = spec_layout(&to, &dst);
    if (rc != REDIST_SUCCESS) {
        if (rank0)
            fprintf(stderr, "redist: %s\n", tool_lib_error(err, sizeof err, "layout", rc));
        status = TOOL_FAILED;
        goto done;
    }
    pattern_summary pat;
    rc = summarise_pattern(src, dst, procs, el, &pat);
    if (rc != REDIST_SUCCESS) {
        if (rank0)
            fprintf(stderr, "redist: %s\n", tool_lib_error(err, sizeof err, "explain", rc));
        status = TOOL_FAILED;
        goto done;
    }
    rows = calloc((size_t)count, sizeof *rows);
    if (!rows) {
        status = TOOL_FAILED;
        goto done;
    }
    const explain_row *head = NULL;
    for (int i = 0; i < count; i++) {
        rows[i].name = redist_algorithm_name(i);
        rows[i].rc = redist__explain(src, dst, procs, el, rows[i].name, &rows[i].e);
        if (!strcmp(rows[i].name, a.pair.algorithm))
            head = &rows[i];
    }
    if (!head || head->rc != REDIST_SUCCESS) {
        if (rank0)
            fprintf(stderr, "redist: explain: %s: %s\n", a.pair.algorithm,
                    redist_strerror(head ? head->rc : REDIST_ERR_UNKNOWN_ALGORITHM));
        status = TOOL_FAILED;
        goto done;
    }
    if (a.tables && tables_compute(&from, &to, &tables, why, sizeof why) == 0)
        tp = &tables;
    if (rank0) {
        if (a.json)
            print_json(&a, &from, &to, procs, &pat, rows, count, head, tp, why);
        else
            print_text(&a, &from, &to, procs, &pat, rows, count, head, tp, why);
    }

done:
    if (tp)
        tables_free(tp);
    free(rows);
    if (src)
        redist_layout_free(&src);
    if (dst)
        redist_layout_free(&dst);
    spec_free(&from);
    spec_free(&to);
    return status;
}
