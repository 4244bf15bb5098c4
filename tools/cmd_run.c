/* redist run: one redistribution with real data, timed the papers' way and verified. */
#define _POSIX_C_SOURCE 200809L

#include "commands.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "data.h"
#include "device/device.h"
#include "measure.h"
#include "report.h"

const char tool_run_help[] =
    "usage: mpirun -n P redist run --from SPEC --to SPEC [options]\n"
    "\n"
    "Redistributes an array with real data: every source element holds a value computed\n"
    "from its global index, the plan runs n1 x n2 times and the destination can be checked\n"
    "element by element.\n"
    "\n"
    "options:\n"
    "  --from SPEC        source layout (e.g. n=4000x4000,block=64x64,grid=2x2,order=col,\n"
    "                     n=64x64x64,pencil=0 or n=64x64,boxes=FILE; docs/tool.md);\n"
    "                     without procs/grid/ranks it spans all MPI processes\n"
    "  --to SPEC          destination layout\n"
    "  --type T           char, int, double (default) or double3 (3 doubles, 24 bytes)\n"
    "  --algorithm A      auto (default) or a name from `redist explain` / the docs\n"
    "  --repeat n1xn2     n1 trials of n2 consecutive executes each ([LBP96] Fig. 13);\n"
    "  --repeat R         R trials of 1 execute; default: chosen from a warm-up run\n"
    "  --verify           check every destination element; exit 1 if any is wrong\n"
    "  --relabel          let redist_relabel choose which rank holds each destination grid\n"
    "                     position (the most data stays in place); --to's ranks are replaced\n"
    "  --inter            two groups joined by an intercommunicator: the first P_src MPI\n"
    "                     processes (--from must name them: procs, grid or ranks) send, the\n"
    "                     others receive; --to's ranks count within the receiving group\n"
    "  --max-buffer B     bounded mode: at most B bytes of buffers per rank (e.g. 1M, 2^20),\n"
    "                     the data moving in chunks (redist_options.max_buffer_bytes)\n"
    "  --threads N        N threads per rank for local moves: packing, unpacking, the self\n"
    "                     copy (redist_options.threads; default REDIST_NUM_THREADS, else 1)\n"
    "  --memory M         host (default), cuda (both arrays in device memory) or auto (the\n"
    "                     source on the device, the destination in host memory); the data\n"
    "                     is made and verified on the host (redist_options.memory)\n"
    "  --permute P        axis permutation (N-D transpose), e.g. 1,0 or 2,0,1: the source's\n"
    "                     element (g_0 .. g_d-1) goes to the destination's (g_P0 .. g_Pd-1),\n"
    "                     so --to's n is --from's permuted (redist_options.permutation)\n"
    "  --alpha A, --beta B  dst = B dst + A src while unpacking (type double); --verify then\n"
    "                     checks one more execute onto a destination of ones\n"
    "  --batch K          K copies of the pair in one batch plan (redist_plan_create_batch:\n"
    "                     one message per peer pair), every destination verified\n"
    "  --reduce OP        partial sums: every source holder of an element holds a part of\n"
    "                     it, and the destination gets their reduction by OP: sum, prod, max,\n"
    "                     min, land, lor, lxor, band, bor or bxor (redist_options.reduce)\n"
    "  --quiet            print one key=value line instead of the report\n"
    "\n"
    "Timing: per trial, a barrier, then n2 executes timed on each rank; the trial's time is\n"
    "the slowest rank's average. Tmin/Tmed/Tavg/Tmax are over the n1 trials; GB/s is the\n"
    "bytes one execute moves (the array's, all K arrays' with --batch K) / Tmed. A progress\n"
    "line goes to stderr when the run takes > 2 s.\n";

/* ---- redist run ------------------------------------------------------------------------- */

typedef struct run_args {
    tool_pair_opts pair; /* --from, --to, --algorithm, --type */
    int n1, n2;          /* 0: chosen from the warm-up */
    int verify, quiet;
    int inter;  /* --inter: source and destination groups joined by an intercommunicator */
    int scaled; /* --alpha, --beta given */
    double alpha, beta;
    int batch; /* --batch K: K arrays of the pair in one batch plan (0: a plain plan) */
} run_args;

/* What one run holds: every step may fail, and run_free then releases whatever exists. */
typedef struct run_state {
    MPI_Comm comm;
    int rank, size;
    run_args a;
    tool_spec from, to;
    int p_src;                 /* --inter: the source group is world ranks 0 .. p_src - 1 */
    MPI_Comm group, intercomm; /* --inter: this rank's group and the intercommunicator */
    int64_t kept, moved;       /* --relabel: elements that stay on their rank, and cross */
    MPI_Datatype type;         /* MPI_DATATYPE_NULL until the arguments are good */
    redist_layout src_layout, dst_layout;
    tool_arrays data;
    redist_plan plan;
    double plan_seconds, warm; /* the slowest rank's */
    tool_plan_summary sum;
    int n1, n2;                 /* the repeat counts in use */
    int threads_lo, threads_hi; /* the threads the ranks' plans use: the fewest, the most */
    const char *threads_from;   /* where rank 0's came from (tool_threads) */
    tool_timing tm;
    const void **bsrc; /* --batch: the K arrays (one source, read by all; K destinations) */
    void **bdst;
    redist__device *dev;     /* --memory cuda or auto: the device backend */
    void *dev_src, *dev_dst; /* the arrays' device twins (NULL: the host array is used) */
    const void **xsrc;       /* --batch: what the execute gets, the twins where there are */
    void **xdst, **dev_bdst; /* dev_bdst[k]: destination k's twin (k >= 1; [0] is dev_dst) */
} run_state;

static int parse_repeat(const char *text, int *n1, int *n2)
{
    int64_t a, b = 1;
    const char *end = text + strlen(text), *x = strchr(text, 'x');
    if (spec_parse_count_span(text, x ? x : end, &a) != 0 ||
        (x && spec_parse_count_span(x + 1, end, &b) != 0))
        return -1;
    if (a < 1 || b < 1 || a > 1000000 || b > 1000000)
        return -1;
    *n1 = (int)a;
    *n2 = (int)b;
    return 0;
}

/* The options only run has (a tool_option_fn). */
/* --alpha A, --beta B: finite numbers. */
static int scale_option(int argc, char **argv, int *i, run_args *a, int rank0)
{
    const char *v = NULL;
    int is_alpha = 1, m = tool_opt_value(argc, argv, i, "--alpha", &v);
    if (m == 0) {
        is_alpha = 0;
        m = tool_opt_value(argc, argv, i, "--beta", &v);
    }
    if (m <= 0)
        return m;
    char *end = NULL;
    double x = strtod(v, &end);
    if (end == v || *end != '\0' || !isfinite(x)) {
        tool_error(rank0, TOOL_USAGE, "--%s: expected a number, got '%s'",
                   is_alpha ? "alpha" : "beta", v);
        return TOOL_OPT_REPORTED;
    }
    if (!a->scaled)
        a->alpha = 1.0, a->beta = 0.0;
    a->scaled = 1;
    *(is_alpha ? &a->alpha : &a->beta) = x;
    return 1;
}

static int run_option(int argc, char **argv, int *i, void *ctx, int rank0)
{
    run_args *a = ctx;
    const char *v = NULL;
    int m = tool_opt_value(argc, argv, i, "--repeat", &v);
    if (m > 0 && parse_repeat(v, &a->n1, &a->n2) != 0) {
        tool_error(rank0, TOOL_USAGE, "--repeat: expected n1xn2 or R (positive integers), got '%s'",
                   v);
        return TOOL_OPT_REPORTED;
    }
    if (m != 0)
        return m;
    if (!strcmp(argv[*i], "--verify"))
        a->verify = 1;
    else if (!strcmp(argv[*i], "--quiet") || !strcmp(argv[*i], "-q"))
        a->quiet = 1;
    else if (!strcmp(argv[*i], "--inter"))
        a->inter = 1;
    else if ((m = scale_option(argc, argv, i, a, rank0)) != 0)
        return m;
    else if ((m = tool_opt_value(argc, argv, i, "--batch", &v)) > 0) {
        char *end = NULL;
        long k = strtol(v, &end, 10);
        if (end == v || *end || k < 1 || k > 64) {
            tool_error(rank0, TOOL_USAGE, "--batch: expected a count from 1 to 64, got '%s'", v);
            return TOOL_OPT_REPORTED;
        }
        a->batch = (int)k;
    } else
        return 0;
    return 1;
}

/* --inter: --from names the source group (world ranks 0 .. p_src - 1), --to is parsed over
   the rest and its ranks moved past the source group's, so that both specs number world
   ranks (the data is made and checked that way); the plan gets the group numbering back. */
static int parse_inter_specs(run_state *s)
{
    char err[256];
    int rank0 = s->rank == 0, rc = spec_parse(s->a.pair.from, 0, &s->from, err, sizeof err);
    if (rc == -2)
        return tool_error(
            rank0, TOOL_USAGE,
            "--from: with --inter it must name the source group's processes (procs, grid or ranks)");
    if (rc != 0)
        return tool_error(rank0, TOOL_USAGE, "--from: %s", err);
    s->p_src = s->from.max_rank + 1;
    if (s->p_src >= s->size)
        return tool_error(
            rank0, TOOL_USAGE,
            "--inter: the source group takes %d of the %d MPI processes; none are left to receive",
            s->p_src, s->size);
    if (spec_parse(s->a.pair.to, s->size - s->p_src, &s->to, err, sizeof err) != 0)
        return tool_error(rank0, TOOL_USAGE, "--to: %s", err);
    if (s->to.max_rank >= s->size - s->p_src)
        return tool_error(rank0, TOOL_USAGE,
                          "--to: uses rank %d but the receiving group has %d processes",
                          s->to.max_rank, s->size - s->p_src);
    /* --to in world ranks (as boxes, the source group's ranks then hold empty boxes) */
    for (int i = 0; i < s->to.nprocs; i++)
        s->to.ranks[i] += s->p_src;
    s->to.max_rank += s->p_src;
    if (tool_specs_check(&s->from, &s->to, &s->a.pair, err, sizeof err) != 0)
        return tool_error(rank0, TOOL_USAGE, "%s", err);
    return TOOL_OK;
}

/* Parses both specs; the same verdict on every rank. */
static int parse_specs(run_state *s)
{
    if (s->a.inter && s->a.pair.relabel)
        return tool_error(s->rank == 0, TOOL_USAGE,
                          "--relabel and --inter exclude each other (relabelling chooses among "
                          "the ranks of one communicator)");
    if (s->a.scaled && s->a.pair.type != TOOL_DOUBLE)
        return tool_error(s->rank == 0, TOOL_USAGE,
                          "--alpha and --beta scale doubles here (--type double); the library "
                          "also scales float and complex types");
    if (s->a.batch && (s->a.inter || s->a.pair.relabel || s->a.pair.max_buffer))
        return tool_error(s->rank == 0, TOOL_USAGE,
                          "--batch: not with --inter, --relabel or --max-buffer");
    if (s->a.inter)
        return parse_inter_specs(s);
    return tool_pair_specs(&s->a.pair, s->size, &s->from, &s->to, s->rank == 0);
}

/* --relabel: the destination's grid positions get the ranks redist_relabel chooses, in the
   spec too (the data is made and checked from the specs), and the volumes are reported. */
static int relabel(run_state *s)
{
    int *ranks = malloc((size_t)s->to.nprocs * sizeof *ranks);
    int rc = ranks != NULL ? REDIST_SUCCESS : REDIST_ERR_NOMEM;
    rc = tool_agree_code(rc, s->comm);
    if (rc == REDIST_SUCCESS)
        rc = redist_relabel(s->src_layout, s->dst_layout, s->comm, ranks, &s->kept, &s->moved);
    if (rc == REDIST_SUCCESS) {
        memcpy(s->to.ranks, ranks, (size_t)s->to.nprocs * sizeof *ranks);
        tool_layouts_free(&s->src_layout, &s->dst_layout);
        rc = tool_agree_code(tool_layouts(&s->from, &s->to, &s->src_layout, &s->dst_layout),
                             s->comm);
    }
    free(ranks);
    return rc;
}

/* --batch K: the pointer lists, every array reading the one source and writing its own
   destination (the first is the pair's); with device memory, what the execute gets: the
   source's twin, and each destination's under --memory cuda. */
static int batch_arrays(run_state *s)
{
    int k = s->a.batch, bad = 0;
    size_t bytes = (size_t)(s->data.ndst ? s->data.ndst : 1) * s->data.el;
    s->bsrc = calloc((size_t)k, sizeof *s->bsrc);
    s->bdst = calloc((size_t)k, sizeof *s->bdst);
    s->xsrc = calloc((size_t)k, sizeof *s->xsrc);
    s->xdst = calloc((size_t)k, sizeof *s->xdst);
    s->dev_bdst = calloc((size_t)k, sizeof *s->dev_bdst);
    bad = !s->bsrc || !s->bdst || !s->xsrc || !s->xdst || !s->dev_bdst;
    for (int i = 0; !bad && i < k; i++) {
        s->bsrc[i] = s->data.src;
        s->bdst[i] = i == 0 ? s->data.dst : malloc(bytes);
        bad = s->bdst[i] == NULL;
        if (!bad && i > 0)
            memcpy(s->bdst[i], s->data.dst, bytes); /* the poison pattern */
        if (!bad && i > 0 && s->dev_dst != NULL)
            bad = redist__device_alloc(s->dev, bytes, &s->dev_bdst[i]) != REDIST_SUCCESS;
        s->xsrc[i] = s->dev_src != NULL ? s->dev_src : s->data.src;
        s->xdst[i] = i == 0 ? (s->dev_dst != NULL ? s->dev_dst : s->data.dst)
                            : (s->dev_bdst[i] != NULL ? s->dev_bdst[i] : s->bdst[i]);
    }
    if (tool_agree_status(bad, s->comm))
        return tool_error(s->rank == 0, TOOL_FAILED, "out of memory for the batch's arrays");
    return TOOL_OK;
}

/* The source and destination arguments of an execute: the pair's arrays, or the batch's
   pointer lists. */
static const void *exec_src(const run_state *s)
{
    return s->a.batch ? (const void *)s->xsrc : s->dev_src ? s->dev_src : s->data.src;
}
static void *exec_dst(const run_state *s)
{
    return s->a.batch ? (void *)s->xdst : s->dev_dst ? s->dev_dst : s->data.dst;
}

/* --memory cuda or auto: the device twins of the arrays (cuda: both; auto: the source),
   filled from the host arrays; every rank's verdict alike. auto on a rank where no device
   loads keeps its arrays on the host, as the library takes them there. */
static int make_device_arrays(run_state *s)
{
    int rc = redist__device_get(&s->dev);
    if (rc != REDIST_SUCCESS && s->a.pair.memory == REDIST_MEMORY_AUTO) {
        s->dev = NULL;
        rc = REDIST_SUCCESS;
    } else if (rc == REDIST_SUCCESS) {
        size_t sb = (size_t)s->data.nsrc * s->data.el, db = (size_t)s->data.ndst * s->data.el;
        rc = redist__device_alloc(s->dev, sb + 1, &s->dev_src);
        if (rc == REDIST_SUCCESS)
            rc = redist__device_from_host(s->dev, s->dev_src, s->data.src, sb, NULL);
        if (rc == REDIST_SUCCESS)
            rc = redist__device_sync(s->dev, NULL); /* copies may be asynchronous */
        if (rc == REDIST_SUCCESS && s->a.pair.memory == REDIST_MEMORY_CUDA)
            rc = redist__device_alloc(s->dev, db + 1, &s->dev_dst);
    }
    char why[768];
    snprintf(why, sizeof why, "%s", redist_last_error_detail());
    if (tool_agree_code(rc, s->comm) != REDIST_SUCCESS)
        return tool_error(s->rank == 0, TOOL_FAILED, "--memory %s: %s",
                          s->a.pair.memory == REDIST_MEMORY_CUDA ? "cuda" : "auto",
                          rc != REDIST_SUCCESS ? why : "another rank has no device memory");
    return TOOL_OK;
}

/* The destinations between the host arrays and their device twins (none: nothing to do). */
static void dst_move(const run_state *s, int to_device)
{
    size_t bytes = (size_t)s->data.ndst * s->data.el;
    for (int k = 0; s->dev_dst != NULL && k < (s->a.batch ? s->a.batch : 1); k++) {
        void *h = k == 0 ? s->data.dst : s->bdst[k], *d = k == 0 ? s->dev_dst : s->dev_bdst[k];
        if (to_device)
            redist__device_from_host(s->dev, d, h, bytes, NULL);
        else
            redist__device_to_host(s->dev, h, d, bytes, NULL);
    }
    if (s->dev_dst != NULL)
        redist__device_sync(s->dev, NULL); /* copies may be asynchronous */
}
static void dst_to_device(const run_state *s)
{
    dst_move(s, 1);
}
static void dst_to_host(const run_state *s)
{
    dst_move(s, 0);
}

/* The layouts, and the local arrays filled: the data is checked with the tool's own layout
   formulas, so the library's local sizes must match them. */
static int make_data(run_state *s)
{
    char why[768];
    int rank = s->rank;
    int rc =
        tool_agree_code(tool_layouts(&s->from, &s->to, &s->src_layout, &s->dst_layout), s->comm);
    if (rc != REDIST_SUCCESS)
        return tool_error(rank == 0, TOOL_FAILED, "%s",
                          tool_lib_error(why, sizeof why, "layout", rc));
    if (s->a.pair.relabel && (rc = relabel(s)) != REDIST_SUCCESS)
        return tool_error(rank == 0, TOOL_FAILED, "%s",
                          tool_lib_error(why, sizeof why, "relabel", rc));
    int64_t nsrc = spec_local_count(&s->from, rank), ndst = spec_local_count(&s->to, rank);
    int64_t lib_src = -1, lib_dst = -1;
    redist_layout_local_size(s->src_layout, rank, &lib_src);
    redist_layout_local_size(s->dst_layout, rank, &lib_dst);
    int differ = lib_src != nsrc || lib_dst != ndst ||
                 tool_layout_agrees(&s->from, s->src_layout, rank) != 0 ||
                 tool_layout_agrees(&s->to, s->dst_layout, rank) != 0;
    if (tool_agree_status(differ, s->comm))
        return tool_error(
            rank == 0, TOOL_FAILED,
            "the library's local shapes or grid coordinates disagree with the layout formulas (rank %d: %lld/%lld source, %lld/%lld destination elements)",
            rank, (long long)lib_src, (long long)nsrc, (long long)lib_dst, (long long)ndst);
    if (tool_arrays_alloc(&s->data, &s->from, &s->to, s->a.pair.type, s->a.pair.reduce, rank,
                          s->comm) != 0)
        return tool_error(rank == 0, TOOL_FAILED, "out of memory for the local arrays");
    tool_arrays_poison(&s->data);
    if (s->a.pair.memory != REDIST_MEMORY_HOST) {
        int st = make_device_arrays(s);
        if (st != TOOL_OK)
            return st;
    }
    int st = s->a.batch ? batch_arrays(s) : TOOL_OK;
    if (st == TOOL_OK)
        dst_to_device(s); /* the poison pattern: elements never written show up */
    return st;
}

/* --inter: the two groups, joined; the destination layout in its group's numbering. */
static int plan_inter(run_state *s, const redist_options *opt)
{
    int is_source = s->rank < s->p_src;
    MPI_Comm_split(s->comm, is_source, s->rank, &s->group);
    MPI_Intercomm_create(s->group, 0, s->comm, is_source ? s->p_src : 0, 1, &s->intercomm);
    redist_layout dst = NULL;
    int rc = spec_layout_shifted(&s->to, s->p_src, &dst);
    if (rc == REDIST_SUCCESS)
        rc = redist_plan_create_inter(s->src_layout, dst, s->type, s->intercomm, is_source, opt,
                                      &s->plan);
    redist_layout_free(&dst);
    return rc;
}

/* --batch K: K copies of the pair in one batch plan. */
static int plan_batch(run_state *s, const redist_options *opt)
{
    redist_layout src[64], dst[64];
    MPI_Datatype types[64];
    for (int i = 0; i < s->a.batch; i++) {
        src[i] = s->src_layout;
        dst[i] = s->dst_layout;
        types[i] = s->type;
    }
    return redist_plan_create_batch(s->a.batch, src, dst, types, s->comm, opt, &s->plan);
}

/* The plan, its creation timed on the slowest rank, and its statistics. */
static int make_plan(run_state *s)
{
    redist_options opt;
    redist_options_init(&opt);
    opt.algorithm = s->a.pair.algorithm;
    opt.max_buffer_bytes = s->a.pair.max_buffer;
    opt.permutation = s->a.pair.permuted ? s->a.pair.permute : NULL;
    opt.threads = s->a.pair.threads;
    opt.memory = s->a.pair.memory;
    opt.reduce = tool_reduce_op(s->a.pair.reduce);
    if (s->a.scaled) {
        opt.alpha[0] = s->a.alpha;
        opt.beta[0] = s->a.beta;
    }
    MPI_Barrier(s->comm);
    double t0 = MPI_Wtime();
    int rc = s->a.inter   ? plan_inter(s, &opt)
             : s->a.batch ? plan_batch(s, &opt)
                          : redist_plan_create(s->src_layout, s->dst_layout, s->type, s->comm, &opt,
                                               &s->plan);
    double mine = MPI_Wtime() - t0;
    MPI_Allreduce(&mine, &s->plan_seconds, 1, MPI_DOUBLE, MPI_MAX, s->comm);
    rc = tool_agree_code(rc, s->comm);
    if (rc != REDIST_SUCCESS)
        return tool_plan_failed(s->rank == 0, s->a.pair.algorithm, rc);
    tool_plan_summarise(s->plan, s->comm, &s->sum);
    /* The plan took the same reading of options.threads, so this succeeds too. */
    tool_threads_span(s->a.pair.threads, s->comm, &s->threads_lo, &s->threads_hi, &s->threads_from);
    return TOOL_OK;
}

/* Auto repeat: trials of >= 20 ms, about 5 s in all, 3 to 10 trials. */
static void choose_repeat(double warm, int *n1, int *n2)
{
    double w = warm > 1e-7 ? warm : 1e-7;
    double m2 = ceil(0.02 / w);
    *n2 = m2 > 100 ? 100 : m2 < 1 ? 1 : (int)m2;
    double m1 = 5.0 / (w * *n2);
    *n1 = m1 > 10 ? 10 : m1 < 3 ? 3 : (int)m1;
}

/* The first execute, timed: it also decides the automatic repeat count. */
static int warm_up(run_state *s)
{
    char why[768];
    int rc = tool_time_batch(s->plan, exec_src(s), exec_dst(s), s->comm, 1, &s->warm);
    /* The first execute pays for first touches; a second one, if cheap, is the better guess
       of the steady state. */
    if (rc == REDIST_SUCCESS && s->warm < 1.0)
        rc = tool_time_batch(s->plan, exec_src(s), exec_dst(s), s->comm, 1, &s->warm);
    if (rc != REDIST_SUCCESS)
        return tool_error(s->rank == 0, TOOL_FAILED, "%s",
                          tool_lib_error(why, sizeof why, "execute", rc));
    s->n1 = s->a.n1;
    s->n2 = s->a.n2;
    if (s->n1 == 0)
        choose_repeat(s->warm, &s->n1, &s->n2);
    return TOOL_OK;
}

static double array_bytes(const run_state *s)
{
    return (double)spec_elements(&s->from) * (double)s->data.el;
}

/* The arrays one execute moves: --batch K moves K, as the traffic lines count them. */
static int arrays_moved(const run_state *s)
{
    return s->a.batch > 1 ? s->a.batch : 1;
}

/* The bytes one execute moves, every array of a batch: what GB/s is of. */
static double moved_bytes(const run_state *s)
{
    return arrays_moved(s) * array_bytes(s);
}

/* The report's first lines: the pair, the plan and the timing about to run. */
static void print_header(const run_state *s)
{
    char b1[128], b2[64], b3[64], b4[64];
    const tool_plan_summary *p = &s->sum;
    const char *chosen = redist_plan_algorithm(s->plan);
    printf("redist run: %d MPI process%s, ", s->size, s->size == 1 ? "" : "es");
    for (int k = 0; k < s->from.ndims; k++)
        printf("%s%lld", k ? "x" : "", (long long)s->from.extent[k]);
    if (arrays_moved(s) > 1)
        printf(" %s, %d arrays (%s in all, %s each)\n", tool_type_names[s->a.pair.type],
               arrays_moved(s), tool_fmt_bytes(b1, sizeof b1, moved_bytes(s)),
               tool_fmt_bytes(b2, sizeof b2, array_bytes(s)));
    else
        printf(" %s (%s)\n", tool_type_names[s->a.pair.type],
               tool_fmt_bytes(b1, sizeof b1, array_bytes(s)));
    tool_print_spec("  from       ", &s->from);
    tool_print_spec("  to         ", &s->to);
    tool_print_reduce("  reduce     ", s->a.pair.reduce);
    if (s->a.pair.relabel)
        printf("  relabel    destination ranks chosen by redist_relabel: %lld elements stay, "
               "%lld cross between ranks\n",
               (long long)s->kept, (long long)s->moved);
    const char *how =
        p->transport == REDIST_TRANSPORT_DATATYPE ? "derived datatypes" : "packed runs";
    if (strcmp(s->a.pair.algorithm, "auto") == 0)
        printf("  algorithm  %s (chosen by auto), messages as %s\n", chosen ? chosen : "?", how);
    else
        printf("  algorithm  %s, messages as %s\n", chosen ? chosen : s->a.pair.algorithm, how);
    printf(
        "  plan       created in %s (slowest rank); %d step%s, at most %lld message%s and %s sent per rank\n",
        tool_fmt_seconds(b1, sizeof b1, s->plan_seconds), p->steps, p->steps == 1 ? "" : "s",
        (long long)p->max_messages, p->max_messages == 1 ? "" : "s",
        tool_fmt_bytes(b2, sizeof b2, (double)p->max_bytes));
    printf("             %lld messages and %s sent in all, %s copied locally; predicted %s\n",
           (long long)p->total_messages, tool_fmt_bytes(b3, sizeof b3, (double)p->total_bytes),
           tool_fmt_bytes(b4, sizeof b4, (double)p->total_copied),
           tool_fmt_seconds(b1, sizeof b1, p->predicted));
    if (p->nodes > 1)
        printf("  nodes      %d nodes of up to %d ranks; at most %lld message%s and %s sent off "
               "node per rank\n",
               p->nodes, p->ranks_per_node, (long long)p->max_off_messages,
               p->max_off_messages == 1 ? "" : "s",
               tool_fmt_bytes(b2, sizeof b2, (double)p->max_off_bytes));
    if (s->a.pair.memory != REDIST_MEMORY_HOST && p->total_received > 0)
        printf("  device     of %lld messages, %lld pulled from the senders' device arrays "
               "(inter-process memory), %lld sent from device buffers (GPU-aware MPI), %lld "
               "staged through the host\n",
               (long long)p->total_received, (long long)p->total_device_ipc,
               (long long)p->total_device_mpi,
               (long long)(p->total_received - p->total_device_ipc - p->total_device_mpi));
    printf("  memory     %s of buffers per rank at most, %s\n",
           tool_fmt_bytes(b1, sizeof b1, (double)p->max_buffer_bytes),
           p->bounded ? "bounded mode (chunks)" : "default mode");
    printf("  threads    %s\n",
           tool_fmt_threads(b1, sizeof b1, s->threads_lo, s->threads_hi, s->threads_from));
    printf("  cores      %s\n", tool_fmt_cores(b1, sizeof b1, p->cores_lo, p->cores_hi,
                                               p->model_threads, "each rank's affinity mask"));
    printf("  timing     %d trial%s x %d execute%s%s after a warm-up execute of %s;\n"
           "             per trial the slowest rank's average ([LBP96] Fig. 13)\n",
           s->n1, s->n1 == 1 ? "" : "s", s->n2, s->n2 == 1 ? "" : "s", s->a.n1 ? "" : " (auto)",
           tool_fmt_seconds(b2, sizeof b2, s->warm));
    fflush(stdout);
}

static int run_trials(run_state *s)
{
    char why[768];
    /* Long runs say how far they got. */
    int progress = !s->a.quiet && s->warm * s->n1 * s->n2 > 2.0;
    int rc =
        tool_time_plan(s->plan, exec_src(s), exec_dst(s), s->comm, s->n1, s->n2, progress, &s->tm);
    if (rc != REDIST_SUCCESS)
        return tool_error(s->rank == 0, TOOL_FAILED, "%s",
                          tool_lib_error(why, sizeof why, "execute", rc));
    return TOOL_OK;
}

static void print_quiet(const run_state *s, double gbps, int64_t wrong)
{
    const tool_timing *tm = &s->tm;
    const char *chosen = redist_plan_algorithm(s->plan);
    printf(
        "algorithm=%s n1=%d n2=%d plan_seconds=%.6e tmin=%.6e tmed=%.6e tavg=%.6e tmax=%.6e gbps=%.4f arrays=%d bytes=%.0f steps=%d max_messages_per_rank=%lld "
        "max_bytes_per_rank=%lld predicted_seconds=%.6e",
        chosen ? chosen : s->a.pair.algorithm, s->n1, s->n2, s->plan_seconds, tm->tmin, tm->tmed,
        tm->tavg, tm->tmax, gbps, arrays_moved(s), moved_bytes(s), s->sum.steps,
        (long long)s->sum.max_messages, (long long)s->sum.max_bytes, s->sum.predicted);
    printf(" bounded=%d buffer_bytes=%lld cores=%d threads=%d", s->sum.bounded,
           (long long)s->sum.max_buffer_bytes, s->sum.cores_lo, s->threads_hi);
    if (s->a.verify)
        printf(" wrong=%lld", (long long)wrong);
    printf("\n");
}

static void print_times(const run_state *s, double gbps, int64_t wrong)
{
    char b1[64], b2[64], b3[64], b4[64];
    const tool_timing *tm = &s->tm;
    printf("  Tmin %s   Tmed %s   Tavg %s   Tmax %s   %.3g GB/s (at Tmed%s)\n",
           tool_fmt_seconds(b1, sizeof b1, tm->tmin), tool_fmt_seconds(b2, sizeof b2, tm->tmed),
           tool_fmt_seconds(b3, sizeof b3, tm->tavg), tool_fmt_seconds(b4, sizeof b4, tm->tmax),
           gbps, arrays_moved(s) > 1 ? ", all the arrays" : "");
    if (s->a.verify && !wrong)
        printf("  verified   all %lld elements correct%s\n", (long long)spec_elements(&s->from),
               s->a.batch > 1 ? " in each array of the batch" : "");
}

/* Names the first wrong element by its global coordinates, as the user wrote the extents. */
static void print_first_wrong(const run_state *s, int64_t wrong, int64_t first_bad)
{
    /* The index is the source's (the value the element should hold): with --permute, in the
       source's coordinates. */
    const tool_spec *to = s->a.pair.permuted ? &s->from : &s->to;
    int64_t idx[SPEC_MAX_DIMS], rest = first_bad;
    for (int k = to->ndims - 1; k >= 0; k--) {
        int64_t e = to->extent[k] ? to->extent[k] : 1;
        idx[k] = rest % e;
        rest /= e;
    }
    int64_t held = spec_held_count(&s->to) * (s->a.batch > 1 ? s->a.batch : 1);
    if (held == spec_elements(&s->from))
        fprintf(stderr, "redist: verify: %lld of %lld elements wrong; the first at global index (",
                (long long)wrong, (long long)held);
    else /* replicas, overlapping boxes, a batch: W of their elements, not of the array's */
        fprintf(stderr,
                "redist: verify: %lld of the %lld elements the destination holders hold wrong; "
                "the first at global index (",
                (long long)wrong, (long long)held);
    for (int k = 0; k < to->ndims; k++)
        fprintf(stderr, "%s%lld", k ? "," : "", (long long)idx[k]);
    fprintf(stderr, ")\n");
}

/* Checks the destination (with --verify) and prints the times: TOOL_FAILED if any element is
   wrong. */
static int report(const run_state *s)
{
    double gbps = s->tm.tmed > 0 ? moved_bytes(s) / s->tm.tmed / 1e9 : 0;
    int64_t wrong = 0, first_bad = INT64_MAX;
    tool_expect e;
    tool_expect_init(&e, &s->from, s->a.pair.permuted ? s->a.pair.permute : NULL, s->a.scaled,
                     s->a.alpha, s->a.beta, 1.0, s->a.pair.reduce);
    if (s->a.verify && s->a.scaled) { /* repeated executes compound: one more onto ones */
        double *d = s->data.dst;
        for (int64_t i = 0; i < s->data.ndst; i++)
            d[i] = e.start;
        for (int k = 1; k < s->a.batch; k++)
            for (int64_t i = 0; i < s->data.ndst; i++)
                ((double *)s->bdst[k])[i] = e.start;
        dst_to_device(s);
        if (tool_agree_code(tool_execute(s->plan, exec_src(s), exec_dst(s)), s->comm) !=
            REDIST_SUCCESS)
            return tool_error(s->rank == 0, TOOL_FAILED, "verify: the scaled execute failed");
    }
    if (s->a.verify)
        dst_to_host(s);
    for (int k = 0; s->a.verify && k < (s->a.batch ? s->a.batch : 1); k++) {
        int64_t first = INT64_MAX;
        int64_t w =
            tool_verify_all_expect(&s->to, s->rank, s->a.pair.type,
                                   s->a.batch ? s->bdst[k] : s->data.dst, &e, s->comm, &first);
        if (w < 0)
            return tool_error(s->rank == 0, TOOL_FAILED, "verify: out of memory");
        wrong += w;
        first_bad = first < first_bad ? first : first_bad;
    }
    if (s->rank == 0) {
        if (s->a.quiet)
            print_quiet(s, gbps, wrong);
        else
            print_times(s, gbps, wrong);
        if (wrong)
            print_first_wrong(s, wrong, first_bad);
    }
    return wrong ? TOOL_FAILED : TOOL_OK;
}

static void run_free(run_state *s)
{
    if (s->plan)
        redist_plan_free(&s->plan);
    tool_layouts_free(&s->src_layout, &s->dst_layout);
    if (s->type != MPI_DATATYPE_NULL && s->a.pair.type == TOOL_DOUBLE3)
        MPI_Type_free(&s->type);
    for (int k = 1; s->bdst != NULL && k < s->a.batch; k++)
        free(s->bdst[k]);
    free(s->bdst);
    free(s->bsrc);
    free(s->xsrc);
    free(s->xdst);
    if (s->dev != NULL) {
        redist__device_free(s->dev, s->dev_src);
        redist__device_free(s->dev, s->dev_dst);
        for (int k = 1; s->dev_bdst != NULL && k < s->a.batch; k++)
            redist__device_free(s->dev, s->dev_bdst[k]);
    }
    free(s->dev_bdst);
    tool_arrays_free(&s->data);
    spec_free(&s->from);
    spec_free(&s->to);
    if (s->intercomm != MPI_COMM_NULL)
        MPI_Comm_free(&s->intercomm);
    if (s->group != MPI_COMM_NULL)
        MPI_Comm_free(&s->group);
}

int tool_run(int argc, char **argv)
{
    run_state s;
    memset(&s, 0, sizeof s);
    s.comm = MPI_COMM_WORLD;
    s.type = MPI_DATATYPE_NULL;
    s.group = s.intercomm = MPI_COMM_NULL;
    MPI_Comm_rank(s.comm, &s.rank);
    MPI_Comm_size(s.comm, &s.size);

    int status = tool_parse_args(argc, argv, "run", &s.a.pair, run_option, &s.a, s.rank == 0);
    tool_share_spec_files(s.comm); /* boxes=FILE: every rank parses rank 0's text */
    if (status == TOOL_OK)
        status = parse_specs(&s);
    if (status == TOOL_OK) {
        s.type = tool_mpi_type(s.a.pair.type);
        status = make_data(&s);
    }
    if (status == TOOL_OK)
        status = make_plan(&s);
    if (status == TOOL_OK)
        status = warm_up(&s);
    if (status == TOOL_OK && s.rank == 0 && !s.a.quiet)
        print_header(&s);
    if (status == TOOL_OK)
        status = run_trials(&s);
    if (status == TOOL_OK)
        status = report(&s);
    run_free(&s);
    return status;
}
