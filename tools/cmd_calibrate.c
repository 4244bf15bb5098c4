/* redist calibrate: measures the cost model's parameters on this machine and stores them in
 * the machine file that every plan reads (src/model/machine.c; docs/tool.md, docs/api.md).
 *
 * Each parameter comes from a sweep and a least-squares line (src/model/fit.c), printed with
 * the fit's R^2:
 *   startup, per_byte   synchronised shift steps (every rank sends to rank + 1 and receives
 *                       from rank - 1 at once, [LBP96]'s step) of 0 B .. 64 MiB: time = T_d +
 *                       bytes tau_d, between ranks of one node (T_d from the small messages,
 *                       tau_d from the large: sweep_steps);
 *   remote_*            the same between one rank per node, when there are several nodes
 *                       (found as plans find them, redist__plan_node_comm: MPI_COMM_TYPE_SHARED,
 *                       split further into virtual nodes of k ranks by REDIST_RANKS_PER_NODE=k,
 *                       whose "network" is whatever MPI uses between them on one machine);
 *   per_message         k = 1 .. 16 small messages posted at once to distinct peers: the
 *                       slope of time against k;
 *   copy_per_byte       memcpy of long buffers on every rank at once (the ranks share the
 *                       memory bus as they do when they pack);
 *   window_per_byte     copying out of another rank's part of a shared-memory window what
 *                       it has just copied in (the shared-memory transport's unpack), less
 *                       a local copy;
 *   copy_per_run        the library's own pack and unpack (src/index/copy.c) of runs of
 *                       8 B .. 4 KiB: the intercept of time per run against run bytes;
 *   per_piece           MPI's datatype engine: a shift step of single doubles as a vector
 *                       type, less the same bytes contiguous, per piece;
 *   stream_gain         one copy on a node's pull (src/index/pull.c): rows of runs of 288 B
 *                       from two sources, in dst's order, with ordinary stores over the same
 *                       with non-temporal ones, every rank at once (above 1: plans stream);
 *   copy_thread_limit   with --threads N: the library's own local moves (a plan over
 *                       MPI_COMM_SELF re-blocking a 2-D array, 36^2 -> 128^2 on a grid of one,
 *                       every byte kept on its rank) with T = 1, 2, 4, ..., N threads
 *                       (options.threads), every rank at once: L of the speedup law
 *                       T / (1 + (T - 1) / L) by least squares (redist__fit_thread_limit).
 *                       Without --threads, the value plans read now is kept.
 *   device_*            where every rank has a device (the CUDA driver; tests:
 *                       REDIST_DEVICE_BACKEND=emulated): round trips off and onto it of
 *                       8 B .. 64 MiB from pinned memory, every rank at once (device_launch
 *                       from the small ones: two copies and a wait; device_per_byte from the
 *                       large), and a device plan re-blocking 36^2 -> 128^2 over
 *                       MPI_COMM_SELF (device_copy_per_byte: its kernel), and on one node
 *                       of two ranks or more a device plan shifting each rank's share to
 *                       the next (device_ipc_per_byte: pulled from the sender's device
 *                       memory). Elsewhere the values plans read now are kept.
 * Every rank takes part in every measurement (times are the slowest rank's, medians of
 * several trials), so the figures include what the ranks share: cores, memory bandwidth.
 * With more ranks on a node than cores the ranks take turns, so the figures are divided by
 * the ranks per core before they are stored, and a plan multiplies them by its own
 * (planner/construct.c); both count the ranks of the machine (MPI_COMM_TYPE_SHARED alone),
 * which REDIST_RANKS_PER_NODE's virtual nodes share. Run it with the ranks per node the
 * application uses.
 */
#define _POSIX_C_SOURCE 200809L

#include "commands.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmdline.h"
#include "measure.h"
#include "report.h"

#include "device/device.h"
#include "exec/shared.h"
#include "index/index.h"
#include "model/model.h"

const char tool_calibrate_help[] =
    "usage: mpirun -n P redist calibrate [--output FILE] [--no-write] [--quick] [--verbose]\n"
    "                                    [--threads N]\n"
    "Measures the cost model's parameters on this machine (start-up and per-byte time of\n"
    "messages between ranks of one node, and of different nodes where there are several,\n"
    "the cost of a further message in flight, the local copy rate of long runs and the\n"
    "cost per run of packing runs of 8 B to 4 KiB, the cost per piece of MPI's datatype\n"
    "engine) by sweeps and least squares, prints each with its fit quality (R^2) and writes\n"
    "the machine file every plan reads: $REDIST_MACHINE_FILE, else\n"
    "$XDG_CACHE_HOME/redist/machine, else ~/.cache/redist/machine. Run it with as many\n"
    "ranks per node as the application uses: the ranks share cores and memory bandwidth.\n"
    "Nodes are found as plans find them: REDIST_RANKS_PER_NODE=k makes virtual nodes of k\n"
    "ranks, whose messages between them are timed as the network's.\n"
    "With --threads N it also times the library's local moves with 1, 2, 4, ..., N threads\n"
    "per rank and fits copy_thread_limit, the L of the speedup T / (1 + (T - 1) / L) that\n"
    "plans with options.threads = T expect (without it, the value plans read now is kept).\n"
    "Where every rank has a GPU it also measures the device plans' terms: copies off and\n"
    "onto the GPU (device_per_byte, device_launch) and its kernels (device_copy_per_byte).\n"
    "  --output FILE  write the machine file there instead\n"
    "  --no-write     print only\n"
    "  --quick        smaller sweeps (a few seconds; for tests)\n"
    "  --verbose      every point of each sweep, measured and fitted\n"
    "  --threads N    measure the speedup of local moves with up to N threads per rank\n"
    "                 (run with OMP_WAIT_POLICY=passive when ranks x N exceed the cores)\n";

typedef struct cal {
    MPI_Comm world, node, leaders; /* leaders: rank 0 of each node (MPI_COMM_NULL elsewhere) */
    int rank, size, node_size, nodes, rank0, quick, verbose;
    int max_machine_ranks; /* the most ranks on one machine (MPI_COMM_TYPE_SHARED alone) */
    int per_node;          /* REDIST_RANKS_PER_NODE's k: 0 unset, -1 not a positive whole number */
    int one_host;          /* 1: the nodes' leaders report one processor name (virtual nodes) */
    double target;         /* seconds one timed batch should last */
    char *a, *b;           /* message or copy buffers, max_bytes each */
    size_t max_bytes;
} cal;

/* ---- timing ------------------------------------------------------------------------------ */

typedef void (*cal_op)(cal *c, MPI_Comm comm, void *arg);

static double batch(cal *c, MPI_Comm comm, cal_op op, void *arg, int reps)
{
    MPI_Barrier(comm);
    double t0 = MPI_Wtime();
    for (int i = 0; i < reps; i++)
        op(c, comm, arg);
    double mine = (MPI_Wtime() - t0) / reps, slowest;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
    return slowest;
}

/* Seconds per op on comm: the median of several trials, each the slowest rank's average over
   a batch long enough to time (the same on every rank of comm). */
static double time_op(cal *c, MPI_Comm comm, cal_op op, void *arg)
{
    op(c, comm, arg); /* warm: first-touch pages, connections */
    double once = batch(c, comm, op, arg, 1);
    int reps = once > 0 ? (int)(c->target / once) : 1000;
    reps = reps < 1 ? 1 : reps > 2000 ? 2000 : reps;
    enum { TRIALS = 5 };
    double t[TRIALS];
    for (int i = 0; i < TRIALS; i++)
        t[i] = batch(c, comm, op, arg, reps);
    tool_timing tm;
    tool_timing_summarise(t, TRIALS, &tm);
    return tm.tmed;
}

/* ---- the operations timed ------------------------------------------------------------------ */

static void shift_step(cal *c, MPI_Comm comm, void *arg)
{
    int r, n, bytes = *(const int *)arg;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &n);
    MPI_Sendrecv(c->a, bytes, MPI_BYTE, (r + 1) % n, 0, c->b, bytes, MPI_BYTE, (r + n - 1) % n, 0,
                 comm, MPI_STATUS_IGNORE);
}

enum { MAX_IN_FLIGHT = 16 };

/* k messages of 8 bytes posted at once, message j to rank + 1 + j mod (n - 1). */
static void in_flight(cal *c, MPI_Comm comm, void *arg)
{
    int r, n, k = *(const int *)arg;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &n);
    MPI_Request req[2 * MAX_IN_FLIGHT];
    for (int j = 0; j < k; j++) {
        int d = 1 + j % (n - 1);
        MPI_Irecv(c->b + 8 * j, 8, MPI_BYTE, (r + n - d) % n, j, comm, &req[j]);
    }
    for (int j = 0; j < k; j++)
        MPI_Isend(c->a + 8 * j, 8, MPI_BYTE, (r + 1 + j % (n - 1)) % n, j, comm, &req[k + j]);
    MPI_Waitall(2 * k, req, MPI_STATUSES_IGNORE);
}

static void copy_long(cal *c, MPI_Comm comm, void *arg)
{
    (void)comm;
    memcpy(c->b, c->a, *(const size_t *)arg);
}

/* The library's pack then unpack of one message of `count` runs of len doubles, the source
   runs 2 len apart. */
static void pack_runs(cal *c, MPI_Comm comm, void *arg)
{
    (void)comm;
    const redist__msg *m = arg;
    redist__pack(m, c->a, c->b, 8);
    redist__unpack(m, c->b, c->a, 8, NULL);
}

typedef struct pieces_arg {
    MPI_Datatype type; /* n single doubles, 16 bytes apart, or n contiguous doubles */
} pieces_arg;

static void pieces_step(cal *c, MPI_Comm comm, void *arg)
{
    const pieces_arg *p = arg;
    int r, n;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &n);
    MPI_Sendrecv(c->a, 1, p->type, (r + 1) % n, 0, c->b, 1, p->type, (r + n - 1) % n, 0, comm,
                 MPI_STATUS_IGNORE);
}

/* ---- the sweeps ---------------------------------------------------------------------------- */

static void print_fit(const cal *c, const char *what, const char *result, double r2, int n)
{
    if (c->rank0)
        printf("  %-22s %s   R^2 = %.4f over %d points%s\n", what, result, r2, n,
               r2 < 0.9 ? " (noisy)" : "");
}

/* --verbose: every point of a sweep against the fitted line. */
static void print_points(const cal *c, const char *xname, const double *x, const double *y, int n,
                         const redist__fit *f)
{
    for (int i = 0; c->verbose && c->rank0 && i < n; i++)
        printf("      %s %-10.0f measured %-10.4g fitted %-10.4g\n", xname, x[i], y[i],
               f->a + f->b * x[i]);
}

/* The line through a sweep's points, printed point by point with --verbose; -1 (and a
   "no fit" line) if there is none. */
static int fit_sweep(const cal *c, const char *what, const char *xname, const double *x,
                     const double *y, int n, redist__fit *f)
{
    if (redist__fit_line(x, y, n, f) != 0) {
        print_fit(c, what, "no fit (times of zero)", 0, n);
        return -1;
    }
    print_points(c, xname, x, y, n, f);
    return 0;
}

/* The points of a sweep with x in [lo, hi]. */
static int select_points(const double *x, const double *y, int n, double lo, double hi, double *sx,
                         double *sy)
{
    int m = 0;
    for (int i = 0; i < n; i++)
        if (x[i] >= lo && x[i] <= hi)
            sx[m] = x[i], sy[m++] = y[i];
    return m;
}

/* startup and per_byte of shift steps on comm (left as they were if there is no fit). One
   line does not fit both ends: a message that stays in the caches moves 2-3x faster per byte
   than one of 64 MiB. So T_d is the intercept of the small messages (up to 64 KiB: start-up
   bound) and tau_d the slope of the large ones (from 1/64 of the largest: bandwidth bound,
   the cases where bytes decide the choice). */
static void sweep_steps(cal *c, MPI_Comm comm, const char *what, double *startup, double *per_byte)
{
    double x[16], y[16], sx[16], sy[16];
    int n = 0;
    size_t top = c->quick ? (size_t)1 << 20 : c->max_bytes; /* to beyond the caches */
    for (size_t bytes = 0; bytes <= top && n < 16; bytes = bytes ? bytes * 4 : 64) {
        int b = (int)bytes;
        x[n] = (double)bytes;
        y[n++] = time_op(c, comm, shift_step, &b);
    }
    redist__fit small, large;
    char buf[200], s1[32], s2[32];
    int ns = select_points(x, y, n, 0, 65536, sx, sy);
    if (fit_sweep(c, what, "bytes", sx, sy, ns, &small) != 0)
        return;
    int nl = select_points(x, y, n, (double)top / 64, (double)top, sx, sy);
    if (fit_sweep(c, what, "bytes", sx, sy, nl, &large) != 0)
        return;
    *startup = small.a > 0 ? small.a : y[0];
    *per_byte = large.b > 0 ? large.b : 0;
    snprintf(buf, sizeof buf, "T_d = %s (R^2 %.3f, 0 B .. 64 KiB), tau_d = %.3g ns/B (%s/s)",
             tool_fmt_seconds(s1, sizeof s1, *startup), small.r2, *per_byte * 1e9,
             tool_fmt_bytes(s2, sizeof s2, *per_byte > 0 ? 1.0 / *per_byte : 0));
    print_fit(c, what, buf, large.r2, nl);
}

static void sweep_in_flight(cal *c, MPI_Comm comm, double *per_message)
{
    int kmax = c->quick ? 8 : MAX_IN_FLIGHT, n = 0;
    double x[MAX_IN_FLIGHT], y[MAX_IN_FLIGHT];
    for (int k = 1; k <= kmax; k++) {
        x[n] = k;
        y[n++] = time_op(c, comm, in_flight, &k);
    }
    redist__fit f;
    char buf[160], s1[32];
    if (fit_sweep(c, "messages in flight", "messages", x, y, n, &f) != 0)
        return;
    *per_message = f.b > 0 ? f.b : 0;
    snprintf(buf, sizeof buf, "%s per further message of 8 B",
             tool_fmt_seconds(s1, sizeof s1, *per_message));
    print_fit(c, "messages in flight", buf, f.r2, n);
}

static void measure_copy(cal *c, double *copy_per_byte)
{
    size_t bytes = c->max_bytes;
    double t = time_op(c, c->world, copy_long, &bytes);
    char buf[64], s1[32];
    if (t > 0)
        *copy_per_byte = t / (double)bytes;
    if (c->rank0)
        printf("  %-22s %.3g ns/B (%s/s), memcpy of %s on every rank at once\n", "local copy",
               *copy_per_byte * 1e9, tool_fmt_bytes(buf, sizeof buf, 1.0 / *copy_per_byte),
               tool_fmt_bytes(s1, sizeof s1, (double)bytes));
}

/* The shared-memory transport's second copy: each rank copies into its part of a window,
   then, after a barrier, out of the previous rank's part (what another core just wrote). */
typedef struct window_arg {
    char *mine, *prev;
    size_t bytes;
} window_arg;

static void window_round(cal *c, MPI_Comm comm, void *arg)
{
    const window_arg *w = arg;
    memcpy(w->mine, c->a, w->bytes);
    MPI_Barrier(comm);
    memcpy(c->b, w->prev, w->bytes);
    MPI_Barrier(comm); /* before the next round writes again */
}

static void measure_window(cal *c, double copy_per_byte, double *window_per_byte)
{
    window_arg w = {NULL, NULL, c->max_bytes};
    MPI_Win win;
    MPI_Comm_set_errhandler(c->node, MPI_ERRORS_RETURN);
    int r, n,
        ok = MPI_Win_allocate_shared((MPI_Aint)w.bytes, 1, MPI_INFO_NULL, c->node, &w.mine, &win) ==
             MPI_SUCCESS;
    MPI_Comm_rank(c->node, &r);
    MPI_Comm_size(c->node, &n);
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, c->world);
    if (!all) {
        if (ok)
            MPI_Win_free(&win);
        if (c->rank0)
            printf("  %-22s not measured (no shared-memory window of %zu bytes)\n", "window copy",
                   w.bytes);
        return;
    }
    MPI_Aint size;
    int disp;
    MPI_Win_shared_query(win, (r + n - 1) % n, &size, &disp, &w.prev);
    double t = time_op(c, c->node, window_round, &w), per = t / (double)w.bytes;
    MPI_Allreduce(MPI_IN_PLACE, &per, 1, MPI_DOUBLE, MPI_MAX, c->world);
    MPI_Win_free(&win);
    *window_per_byte = per > copy_per_byte ? per - copy_per_byte : copy_per_byte;
    char buf[32];
    if (c->rank0)
        printf("  %-22s %.3g ns/B (%s/s) to copy out what another rank just wrote "
               "(a copy into the window and out of the previous rank's: %.3g ns/B)\n",
               "window copy", *window_per_byte * 1e9,
               tool_fmt_bytes(buf, sizeof buf, 1.0 / *window_per_byte), per * 1e9);
}

static void sweep_runs(cal *c, double *copy_per_run)
{
    double x[16], y[16];
    int n = 0;
    int64_t half = (int64_t)(c->max_bytes / 2);
    for (int64_t len = 8; len <= 4096; len *= 2) {
        redist__run run = {0, 0, len / 8, half / len};
        redist__level level = {&run, 1, 2 * (len / 8), len / 8, 1, 1};
        redist__msg m = {0, 1, run.len * run.count, 0, &level, NULL, NULL, -1, 0};
        x[n] = (double)len;
        y[n++] = time_op(c, c->world, pack_runs, &m) / (2.0 * (double)run.count);
    }
    redist__fit f;
    char buf[160], s1[32];
    if (fit_sweep(c, "pack and unpack", "run bytes", x, y, n, &f) != 0)
        return;
    *copy_per_run = f.a > 0 ? f.a : 0;
    snprintf(buf, sizeof buf, "%s per run + %.3g ns/B (runs of 8 B .. 4 KiB)",
             tool_fmt_seconds(s1, sizeof s1, *copy_per_run), f.b * 1e9);
    print_fit(c, "pack and unpack", buf, f.r2, n);
}

/* A pull of two sources' runs of 36 doubles, alternating along rows of 84 runs of dst (a
   2-D re-block's rows as one copy on a node fills them): half of c->a each into c->b. */
typedef struct pull_arg {
    redist__run outer[2], inner[2];
    redist__level levels[2][2];
    redist__msg msgs[2];
    const redist__msg *members[2];
    const char *srcs[2];
    redist__pull_run runs[84];
    int64_t nruns, rows, scratch[16];
    int streaming;
} pull_arg;

static void pull_rows(cal *c, MPI_Comm comm, void *arg)
{
    (void)comm;
    pull_arg *a = arg;
    redist__pull_copy(a->members, a->srcs, 2, a->runs, a->nruns, c->b, 8, 0, a->rows, a->scratch,
                      a->streaming);
}

static void measure_streaming(cal *c, double *stream_gain)
{
    enum { RUN = 36, PER_ROW = 42 }; /* doubles per run, runs per source per row */
    pull_arg a;
    memset(&a, 0, sizeof a);
    a.rows = (int64_t)(c->max_bytes / 8) / (2 * RUN * PER_ROW);
    for (int k = 0; k < 2; k++) {
        a.outer[k] = (redist__run){0, 0, a.rows, 1};
        a.inner[k] = (redist__run){0, RUN * k, RUN, PER_ROW};
        a.levels[k][0] = (redist__level){&a.outer[k], 1, 0, 0, RUN * PER_ROW, 2 * RUN * PER_ROW};
        a.levels[k][1] = (redist__level){&a.inner[k], 1, RUN, 2 * RUN, 1, 1};
        a.msgs[k] = (redist__msg){0, 2, a.rows * RUN * PER_ROW, 0, a.levels[k], NULL, NULL, -1, 0};
        a.members[k] = &a.msgs[k];
        a.srcs[k] = c->a + (size_t)k * (size_t)(a.rows * RUN * PER_ROW) * 8;
    }
    a.nruns = redist__pull_merge(a.members, 2, a.runs, 84);
    double plain = time_op(c, c->world, pull_rows, &a);
    a.streaming = 1;
    double streamed = time_op(c, c->world, pull_rows, &a);
    if (plain > 0 && streamed > 0)
        *stream_gain = plain / streamed;
    if (c->rank0)
        printf("  %-22s %.3g (rows of 288 B runs in dst's order: %.3g ns/B, streamed %.3g "
               "ns/B)%s\n",
               "stream gain", *stream_gain, plain * 1e9 / (double)(c->max_bytes),
               streamed * 1e9 / (double)(c->max_bytes),
               *stream_gain > 1 ? ": one copy streams" : "");
}

static void measure_pieces(cal *c, MPI_Comm comm, double *per_piece)
{
    int count = (int)(c->max_bytes / 16);
    pieces_arg vec, contig;
    MPI_Type_vector(count, 1, 2, MPI_DOUBLE, &vec.type); /* 16 count bytes: beyond the caches */
    MPI_Type_contiguous(count, MPI_DOUBLE, &contig.type);
    MPI_Type_commit(&vec.type);
    MPI_Type_commit(&contig.type);
    double tv = time_op(c, comm, pieces_step, &vec);
    double tc = time_op(c, comm, pieces_step, &contig);
    MPI_Type_free(&vec.type);
    MPI_Type_free(&contig.type);
    *per_piece = tv > tc ? (tv - tc) / count : 0;
    char s1[32];
    if (c->rank0)
        printf("  %-22s %s per piece (%d single doubles as a vector type: %s, contiguous: "
               "%s)\n",
               "datatype pieces", tool_fmt_seconds(s1, sizeof s1, *per_piece), count,
               tool_fmt_seconds((char[32]){0}, 32, tv), tool_fmt_seconds((char[32]){0}, 32, tc));
}

/* ---- threads ---------------------------------------------------------------------------- */

/* One plan's execute on arrays of its own (the threads' measurement). */
typedef struct thread_run {
    redist_plan plan;
    const double *src;
    double *dst;
    int failed; /* an execute returned an error (its time would mean nothing) */
} thread_run;

static void execute_plan(cal *c, MPI_Comm comm, void *arg)
{
    (void)c;
    (void)comm;
    thread_run *r = arg;
    r->failed |= redist_execute(r->plan, r->src, r->dst) != REDIST_SUCCESS;
}

/* This rank's own n x n doubles re-blocked 36^2 -> 128^2 with `threads` threads, over
   MPI_COMM_SELF: on a grid of one every byte stays on its rank, so the plan times local moves
   alone (the self copy, split among the threads). NULL if refused (a library without OpenMP
   refuses threads > 1). */
static redist_plan reblock_plan(int64_t n, int threads, int memory)
{
    int64_t ext[2] = {n, n}, from[2] = {36, 36}, to[2] = {128, 128};
    int grid[2] = {1, 1};
    redist_layout src = NULL, dst = NULL;
    redist_plan plan = NULL;
    redist_options opt;
    redist_options_init(&opt);
    opt.threads = threads;
    opt.memory = memory;
    if (redist_layout_create(2, ext, from, grid, NULL, NULL, REDIST_COL_MAJOR, &src) != 0 ||
        redist_layout_create(2, ext, to, grid, NULL, NULL, REDIST_COL_MAJOR, &dst) != 0 ||
        redist_plan_create(src, dst, MPI_DOUBLE, MPI_COMM_SELF, &opt, &plan) != 0)
        plan = NULL;
    redist_layout_free(&src);
    redist_layout_free(&dst);
    return plan;
}

/* Seconds of one execute of reblock_plan(n, threads, memory) on every rank at once (the ranks
   share the memory bandwidth, as in an application); -1 if any rank's plan failed. */
static double time_reblock(cal *c, int64_t n, int threads, int memory, const double *src,
                           double *dst)
{
    thread_run r = {reblock_plan(n, threads, memory), src, dst, 0};
    int ok = r.plan != NULL, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, c->world);
    double t = all ? time_op(c, c->world, execute_plan, &r) : -1;
    ok = !r.failed;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, c->world);
    redist_plan_free(&r.plan);
    return all ? t : -1;
}

enum { MAX_THREAD_POINTS = 16 };

/* 1, 2, 4, ... below most, then most: the thread counts timed. */
static int thread_counts(int most, int counts[MAX_THREAD_POINTS])
{
    int k = 0;
    for (int t = 1; t < most && k < MAX_THREAD_POINTS - 1; t *= 2)
        counts[k++] = t;
    counts[k++] = most;
    return k;
}

/* The times and speedups at each thread count against the fitted law's. */
static void print_thread_points(const cal *c, const int *counts, const double *t, int k, double l,
                                int64_t n)
{
    char s1[32], s2[32];
    for (int i = 0; c->rank0 && i < k; i++) {
        char what[32];
        snprintf(what, sizeof what, "%d thread%s", counts[i], counts[i] == 1 ? "" : "s");
        if (i == 0)
            printf("  %-22s %s per execute: a plan re-blocking %s (36^2 -> 128^2, one rank's) on "
                   "every rank at once\n",
                   what, tool_fmt_seconds(s1, sizeof s1, t[i]),
                   tool_fmt_bytes(s2, sizeof s2, (double)(n * n * 8)));
        else
            printf("  %-22s %s: speedup %.2f (fitted %.2f)\n", what,
                   tool_fmt_seconds(s1, sizeof s1, t[i]), t[0] / t[i],
                   redist__thread_speedup(counts[i], l));
    }
}

/* Each rank's array for the threads' speedup: beyond the caches, or the threads scale with the
   cache's bandwidth, not memory's. The ranks of a node together fill 4 times its last-level
   cache (sysconf; a 16-core node here had 300 MiB of L3, so 64 MiB arrays measured L = 1024
   where 512 MiB ones saturate near 6.5), and never less than the other measurements' buffers. */
static int64_t thread_array_bytes(const cal *c)
{
    int64_t bytes = (int64_t)c->max_bytes;
#ifdef _SC_LEVEL3_CACHE_SIZE
    long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    int64_t share = l3 > 0 && c->node_size > 0 ? 4 * (int64_t)l3 / c->node_size : 0;
    if (!c->quick && share > bytes)
        bytes = share;
#endif
    return bytes;
}

/* The limit plans read now (the machine file's, else the default), kept: not measured, why. */
static void keep_thread_limit(const cal *c, const char *why, double *limit)
{
    redist__machine now;
    char source[256];
    redist__machine_current(&now, source, sizeof source);
    *limit = now.copy_thread_limit;
    if (c->rank0)
        printf("  %-22s not measured (%s): L = %.3g kept, from %s\n", "copy thread limit", why,
               *limit, source);
}

/* --threads N, at most the fewest cores a rank may run on: beyond them its threads take turns,
   which L must not absorb, as the model counts at most the cores (redist__model_threads). */
static int threads_within_cores(const cal *c, int most)
{
    int cores = redist__cores(), fewest = 0;
    MPI_Allreduce(&cores, &fewest, 1, MPI_INT, MPI_MIN, c->world);
    if (most > fewest && fewest > 1 && c->rank0)
        printf("  %-22s --threads %d, but a rank may run on %d cores (its affinity mask): timed up "
               "to %d\n",
               "copy thread limit", most, fewest, fewest);
    return most < fewest ? most : fewest;
}

/* copy_thread_limit from 1 .. most threads (left as it was if not measured). */
static void measure_threads(cal *c, int most, double *limit)
{
    if ((most = threads_within_cores(c, most)) < 2)
        return keep_thread_limit(c,
                                 "a rank may run on 1 core, its affinity mask: bind each to "
                                 "several, e.g. mpiexec --map-by slot:PE=N, or --bind-to none",
                                 limit);
    int counts[MAX_THREAD_POINTS], k = thread_counts(most, counts);
    double t[MAX_THREAD_POINTS], l = *limit;
    int64_t n = 1, bytes = thread_array_bytes(c);
    while ((n + 1) * (n + 1) * 8 <= bytes) /* the largest square */
        n++;
    double *src = malloc((size_t)(n * n) * sizeof *src),
           *dst = malloc((size_t)(n * n) * sizeof *dst);
    int ok = src != NULL && dst != NULL, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, c->world);
    if (!all) { /* the other measurements' buffers, then: smaller, perhaps within the caches */
        free(src);
        free(dst);
        src = NULL;
        dst = NULL;
        for (n = 1; (n + 1) * (n + 1) * 8 <= (int64_t)c->max_bytes;)
            n++;
    }
    const double *from = src != NULL ? src : (const double *)(void *)c->a;
    double *to = dst != NULL ? dst : (double *)(void *)c->b;
    memset((void *)from, 0, (size_t)(n * n) * sizeof *from); /* first touch, outside the timing */
    memset(to, 0, (size_t)(n * n) * sizeof *to);
    for (int i = 0; i < k; i++)
        if ((t[i] = time_reblock(c, n, counts[i], REDIST_MEMORY_HOST, from, to)) < 0) {
            if (c->rank0)
                printf("  %-22s not measured (a plan with %d threads failed: %s)\n",
                       "copy thread limit", counts[i], redist_last_error_detail());
            free(src);
            free(dst);
            return;
        }
    free(src);
    free(dst);
    if (redist__fit_thread_limit(counts, t, k, &l) != 0) {
        if (c->rank0)
            printf("  %-22s no fit (times of zero)\n", "copy thread limit");
        return;
    }
    print_thread_points(c, counts, t, k, l, n);
    *limit = l;
    if (c->rank0)
        printf("  %-22s L = %.3g: local moves with T threads run T / (1 + (T - 1) / L) "
               "times as fast\n",
               "copy thread limit", l);
}

/* ---- device plans: device_per_byte, device_launch, device_copy_per_byte --------------- */

typedef struct device_arg {
    redist__device *dev;
    char *d, *h; /* device memory, pinned host memory: max_bytes each */
    size_t bytes;
    int failed;
} device_arg;

/* bytes off the device and back on, and the wait: what a staged message costs its rank. */
static void device_round_trip(cal *c, MPI_Comm comm, void *arg)
{
    (void)c;
    (void)comm;
    device_arg *a = arg;
    a->failed |= redist__device_to_host(a->dev, a->h, a->d, a->bytes, NULL) != REDIST_SUCCESS;
    a->failed |= redist__device_from_host(a->dev, a->d, a->h, a->bytes, NULL) != REDIST_SUCCESS;
    a->failed |= redist__device_sync(a->dev, NULL) != REDIST_SUCCESS;
}

/* device_launch from round trips of up to 64 KiB (two copies and a wait: three posted
   operations each), device_per_byte from the large ones (two bytes moved per byte), every
   rank at once: the ranks share the GPU's link. */
static void sweep_device_copies(cal *c, device_arg *a, redist__machine *m)
{
    double x[16], y[16], sx[16], sy[16];
    int n = 0;
    for (size_t bytes = 8; bytes <= c->max_bytes && n < 16; bytes *= 4) {
        a->bytes = bytes;
        x[n] = (double)bytes;
        y[n++] = time_op(c, c->world, device_round_trip, a);
    }
    redist__fit small, large;
    int ns = select_points(x, y, n, 0, 65536, sx, sy);
    if (fit_sweep(c, "device copies", "bytes", sx, sy, ns, &small) != 0)
        return;
    int nl = select_points(x, y, n, (double)c->max_bytes / 64, (double)c->max_bytes, sx, sy);
    if (fit_sweep(c, "device copies", "bytes", sx, sy, nl, &large) != 0)
        return;
    m->device_launch = (small.a > 0 ? small.a : y[0]) / 3.0;
    m->device_per_byte = large.b > 0 ? large.b / 2.0 : m->device_per_byte;
    char buf[200], s1[32], s2[32];
    snprintf(buf, sizeof buf, "launch or wait %s (R^2 %.3f), %.3g ns/B each way (%s/s)",
             tool_fmt_seconds(s1, sizeof s1, m->device_launch), small.r2, m->device_per_byte * 1e9,
             tool_fmt_bytes(s2, sizeof s2, m->device_per_byte > 0 ? 1.0 / m->device_per_byte : 0));
    print_fit(c, "device copies", buf, large.r2, nl);
}

/* A per-byte term measured as `per_byte` (<= 0: not measured, because `why_not`): stored in
   *term and printed with its rate and how it was measured; else *term (the value plans read
   now) is kept and the line says why. */
static void report_per_byte(const cal *c, const char *name, double per_byte, const char *why_not,
                            const char *how, double *term)
{
    char rate[32];
    if (per_byte <= 0) {
        if (c->rank0)
            printf("  %-22s not measured (%s): %.3g ns/B kept\n", name, why_not, *term * 1e9);
        return;
    }
    *term = per_byte;
    if (c->rank0)
        printf("  %-22s %.3g ns/B (%s/s): %s\n", name, per_byte * 1e9,
               tool_fmt_bytes(rate, sizeof rate, 1.0 / per_byte), how);
}

/* device_copy_per_byte: a device plan re-blocking max_bytes of doubles over MPI_COMM_SELF (a
   self copy only: one kernel and its wait), every rank at once. */
static void measure_device_kernel(cal *c, device_arg *a, redist__machine *m)
{
    int64_t n = 1;
    while ((n + 1) * (n + 1) * 8 <= (int64_t)c->max_bytes / 2)
        n++;
    double t = time_reblock(c, n, 1, REDIST_MEMORY_CUDA, (const double *)(void *)a->d,
                            (double *)(void *)(a->d + c->max_bytes / 2));
    int all = t >= 0;
    double bytes = (double)(n * n * 8), kernel = t - 2.0 * m->device_launch;
    char how[128], b[32];
    snprintf(how, sizeof how,
             "a device plan re-blocking %s (36^2 -> 128^2, one rank's) on every "
             "rank at once",
             tool_fmt_bytes(b, sizeof b, bytes));
    report_per_byte(c, "device kernels", all ? kernel / bytes : -1,
                    all ? "no time beyond the launches" : redist_last_error_detail(), how,
                    &m->device_copy_per_byte);
}

/* device_ipc_per_byte: a device plan over the node's ranks (memory = CUDA, one node) that
   shifts each rank's share of its device buffer to the next rank (no self part): every
   byte is pulled by the receiver's kernel from the sender's device memory (inter-process
   memory), every rank at once; less the launches, per byte received. Where the plan does
   not pull (one rank, several nodes, a driver that refuses), the value plans read now is
   kept. */
static void measure_device_ipc(cal *c, device_arg *a, redist__machine *m)
{
    int64_t count = (int64_t)(c->max_bytes / 2 / sizeof(double)), ext[1] = {count * c->size},
            blk[1] = {count};
    int grid[1] = {c->size}, first[1] = {1};
    redist_layout src = NULL, dst = NULL;
    redist_options opt;
    redist_options_init(&opt);
    opt.memory = REDIST_MEMORY_CUDA;
    thread_run r = {NULL, (const double *)(void *)a->d, (double *)(void *)(a->d + c->max_bytes / 2),
                    0};
    if (c->nodes == 1 && c->size > 1 &&
        (redist_layout_create(1, ext, blk, grid, NULL, NULL, REDIST_ROW_MAJOR, &src) != 0 ||
         redist_layout_create(1, ext, blk, grid, first, NULL, REDIST_ROW_MAJOR, &dst) != 0 ||
         redist_plan_create(src, dst, MPI_DOUBLE, c->world, &opt, &r.plan) != 0))
        r.plan = NULL;
    redist_layout_free(&src);
    redist_layout_free(&dst);
    redist_stats st;
    int pulls = r.plan != NULL && redist_plan_stats(r.plan, &st) == 0 &&
                st.messages_device_ipc == st.messages_received,
        all = 0;
    MPI_Allreduce(&pulls, &all, 1, MPI_INT, MPI_MIN, c->world);
    double t = all ? time_op(c, c->world, execute_plan, &r) : -1;
    int ok = all && !r.failed;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, c->world);
    redist_plan_free(&r.plan);
    double bytes = (double)count * 8.0, pull = t - 3.0 * m->device_launch;
    char how[128], b[32];
    snprintf(how, sizeof how,
             "a device plan shifting %s per rank to the next, pulled from its "
             "device memory, on every rank at once",
             tool_fmt_bytes(b, sizeof b, bytes));
    report_per_byte(c, "device pulls", all ? pull / bytes : -1,
                    c->size < 2 || c->nodes > 1 ? "needs two ranks or more on one node"
                    : all                       ? "no time beyond the launches"
                                                : "the plan's ranks do not map each other's "
                                                  "device memory",
                    how, &m->device_ipc_per_byte);
}

/* The device terms where every rank has a device (the CUDA driver, or
   REDIST_DEVICE_BACKEND's), else the values plans read now. */
static void measure_device(cal *c, redist__machine *m)
{
    device_arg a = {NULL, NULL, NULL, 0, 0};
    int ok = redist__device_get(&a.dev) == REDIST_SUCCESS, all = 0;
    char why[256];
    snprintf(why, sizeof why, "%s", ok ? "" : redist_last_error_detail());
    ok = ok && redist__device_alloc(a.dev, c->max_bytes, (void **)&a.d) == REDIST_SUCCESS &&
         redist__device_host_alloc(a.dev, c->max_bytes, (void **)&a.h) == REDIST_SUCCESS;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, c->world);
    /* the values plans read now, each kept where it is not measured below */
    redist__machine now;
    char source[256];
    redist__machine_current(&now, source, sizeof source);
    m->device_per_byte = now.device_per_byte;
    m->device_copy_per_byte = now.device_copy_per_byte;
    m->device_launch = now.device_launch;
    m->device_ipc_per_byte = now.device_ipc_per_byte;
    if (all) {
        if (c->rank0)
            printf("  %-22s %s\n", "device", redist__device_name(a.dev));
        memset(a.h, 1, c->max_bytes); /* first touch, outside the timing */
        sweep_device_copies(c, &a, m);
        measure_device_kernel(c, &a, m);
        measure_device_ipc(c, &a, m);
    } else {
        if (c->rank0)
            printf("  %-22s not measured (%s): device_* kept, from %s\n", "device",
                   ok ? "another rank has no device" : why, source);
    }
    if (a.dev != NULL) {
        redist__device_free(a.dev, a.d);
        redist__device_host_free(a.dev, a.h);
    }
}

/* ---- the machine file ------------------------------------------------------------------------ */

static int make_parents(const char *path)
{
    char *dir = malloc(strlen(path) + 1);
    int rc = dir != NULL ? 0 : -1;
    if (dir != NULL)
        strcpy(dir, path);
    for (char *s = dir ? dir + 1 : NULL; rc == 0 && s && *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(dir, 0755) != 0 && errno != EEXIST)
            rc = -1;
        *s = '/';
    }
    free(dir);
    return rc;
}

/* Writes text to path whole or not at all (a temporary file renamed over it). */
static int replace_file(const char *path, const char *text, time_t now)
{
    size_t len = strlen(path) + 32;
    char *tmp = malloc(len);
    if (tmp == NULL)
        return -1;
    snprintf(tmp, len, "%s.%ld.tmp", path, (long)now);
    FILE *f = make_parents(path) == 0 ? fopen(tmp, "w") : NULL;
    int bad = f == NULL;
    if (f != NULL) {
        bad |= fputs(text, f) < 0;
        bad |= fclose(f) != 0;
    }
    if (f != NULL && (bad || rename(tmp, path) != 0)) {
        remove(tmp);
        bad = 1;
    }
    free(tmp);
    return bad ? -1 : 0;
}

/* 1 if there are several nodes and their leaders all report the same processor name: nodes
   of one machine (virtual ones: REDIST_RANKS_PER_NODE, or an MPI made to see several).
   Collective over c->world. */
static int leaders_on_one_host(const cal *c)
{
    int same = 1;
    if (c->leaders != MPI_COMM_NULL) {
        char mine[MPI_MAX_PROCESSOR_NAME] = "", first[MPI_MAX_PROCESSOR_NAME];
        int len = 0;
        MPI_Get_processor_name(mine, &len);
        memcpy(first, mine, sizeof first);
        MPI_Bcast(first, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, c->leaders);
        same = strcmp(first, mine) == 0;
        MPI_Allreduce(MPI_IN_PLACE, &same, 1, MPI_INT, MPI_MIN, c->leaders);
    }
    MPI_Bcast(&same, 1, MPI_INT, 0, c->world); /* world's rank 0 leads its node */
    return c->nodes > 1 && same;
}

/* What the nodes are, for the first line and the machine file: "" for real nodes. */
static void describe_nodes(const cal *c, char *out, size_t size)
{
    out[0] = '\0';
    if (c->per_node > 0 && c->nodes > 1)
        snprintf(out, size,
                 " (virtual nodes: REDIST_RANKS_PER_NODE=%d splits the ranks%s; 'between nodes' "
                 "times the MPI transport between them)",
                 c->per_node, c->one_host ? " of one machine" : "");
    else if (c->one_host)
        snprintf(out, size,
                 " (all on one machine, as MPI_COMM_TYPE_SHARED sees it: 'between nodes' times "
                 "the MPI transport between them)");
}

static int write_machine(const cal *c, const redist__machine *m, const char *path)
{
    char text[4096], nodes[200];
    time_t now = time(NULL);
    char when[64];
    strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", gmtime(&now));
    describe_nodes(c, nodes, sizeof nodes);
    int at = snprintf(text, sizeof text,
                      "# redist machine file, written by redist calibrate on %s\n"
                      "# %d ranks on %d node(s)%s; seconds (copy_thread_limit: a ratio); see "
                      "docs/api.md\n",
                      when, c->size, c->nodes, nodes);
    if (redist__machine_format(m, text + at, sizeof text - (size_t)at) != 0)
        return -1;
    return replace_file(path, text, now);
}

/* ---- the command ----------------------------------------------------------------------------- */

typedef struct cal_args {
    const char *output;
    int write, quick, verbose;
    int threads; /* --threads N: measure copy_thread_limit up to N (0: not given) */
} cal_args;

/* One option of calibrate at argv[*i] (a tool_take_fn). Every rank parses the same argv,
   so every rank returns the same status. */
static int cal_option(int argc, char **argv, int *i, void *ctx, int rank0)
{
    cal_args *a = ctx;
    const char *v;
    int m = tool_opt_value(argc, argv, i, "--output", &v);
    if (m == 0 && (m = tool_threads_option(argc, argv, i, &a->threads, rank0)) != 0)
        return m < 0 ? TOOL_USAGE : TOOL_OK;
    if (m > 0)
        a->output = v;
    else if (m < 0)
        return tool_error(rank0, TOOL_USAGE, "calibrate: --output needs a file name");
    else if (strcmp(argv[*i], "--no-write") == 0)
        a->write = 0;
    else if (strcmp(argv[*i], "--quick") == 0)
        a->quick = 1;
    else if (strcmp(argv[*i], "--verbose") == 0)
        a->verbose = 1;
    else
        return tool_error(rank0, TOOL_USAGE,
                          "calibrate: unknown option '%s' (see redist help calibrate)", argv[*i]);
    return TOOL_OK;
}

static int parse_cal_args(int argc, char **argv, cal_args *a, int rank0)
{
    a->output = NULL;
    a->write = 1;
    a->quick = 0;
    a->verbose = 0;
    a->threads = 0;
    return tool_each_option(argc, argv, "calibrate", cal_option, a, rank0);
}

static void setup(cal *c, int quick)
{
    memset(c, 0, sizeof *c);
    c->world = MPI_COMM_WORLD;
    MPI_Comm_rank(c->world, &c->rank);
    MPI_Comm_size(c->world, &c->size);
    c->rank0 = c->rank == 0;
    c->quick = quick;
    c->target = quick ? 5e-4 : 4e-3;
    c->max_bytes = quick ? (size_t)4 << 20 : (size_t)64 << 20; /* beyond the caches */
    /* the nodes a plan sees (REDIST_RANKS_PER_NODE's virtual nodes too), a malformed value
       ignored as plans ignore it */
    if (redist__ranks_per_node(&c->per_node) != REDIST_SUCCESS) {
        redist__clear_error();
        c->per_node = -1;
    }
    if (redist__plan_node_comm(c->world, &c->node) != REDIST_SUCCESS) {
        redist__clear_error();
        MPI_Comm_split_type(c->world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &c->node);
    }
    int node_rank, leader;
    MPI_Comm_rank(c->node, &node_rank);
    MPI_Comm_size(c->node, &c->node_size);
    leader = node_rank == 0;
    MPI_Allreduce(&leader, &c->nodes, 1, MPI_INT, MPI_SUM, c->world);
    MPI_Comm_split(c->world, leader ? 0 : MPI_UNDEFINED, c->rank, &c->leaders);
    c->one_host = leaders_on_one_host(c);
    /* the smallest node decides whether messages within a node can be measured */
    MPI_Allreduce(MPI_IN_PLACE, &c->node_size, 1, MPI_INT, MPI_MIN, c->world);
    /* the most crowded machine how crowded the cores are: its ranks share them whatever
       nodes REDIST_RANKS_PER_NODE makes of them, as a plan counts its load */
    MPI_Comm machine;
    int machine_ranks = c->size;
    if (redist__node_comm(c->world, c->rank, 0, &machine) == REDIST_SUCCESS) {
        MPI_Comm_size(machine, &machine_ranks);
        MPI_Comm_free(&machine);
    } else {
        redist__clear_error();
    }
    MPI_Allreduce(&machine_ranks, &c->max_machine_ranks, 1, MPI_INT, MPI_MAX, c->world);
}

static void measure_all(cal *c, redist__machine *m, int threads)
{
    if (c->size < 2 && c->rank0)
        printf("  %-22s not measured (one rank): run it under mpirun -n 2 or more\n", "messages");
    if (c->node_size >= 2) { /* each node's ranks at once */
        sweep_steps(c, c->node, "within a node", &m->startup, &m->per_byte);
        sweep_in_flight(c, c->node, &m->per_message);
        measure_pieces(c, c->node, &m->per_piece);
    }
    if (c->nodes >= 2) {
        double s = 0, b = 0;
        if (c->leaders != MPI_COMM_NULL)
            sweep_steps(c, c->leaders, "between nodes", &s, &b);
        double v[2] = {s, b};
        MPI_Bcast(v, 2, MPI_DOUBLE, 0, c->world);
        m->remote_startup = v[0], m->remote_per_byte = v[1];
        if (c->node_size < 2) { /* one rank per node: the network is all there is */
            m->startup = v[0], m->per_byte = v[1];
            sweep_in_flight(c, c->world, &m->per_message);
            measure_pieces(c, c->world, &m->per_piece);
        }
    } else if (c->rank0) {
        printf("  %-22s not measured (one node)\n", "between nodes");
    }
    measure_copy(c, &m->copy_per_byte);
    if (c->node_size >= 2)
        measure_window(c, m->copy_per_byte, &m->window_per_byte);
    else
        m->window_per_byte = m->copy_per_byte;
    sweep_runs(c, &m->copy_per_run);
    measure_streaming(c, &m->stream_gain);
    if (threads > 0)
        measure_threads(c, threads, &m->copy_thread_limit);
    else
        keep_thread_limit(c, "--threads N measures it", &m->copy_thread_limit);
    measure_device(c, m);
    m->shared_node = c->nodes == 1;
}

int tool_calibrate(int argc, char **argv)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    cal_args a;
    int status = parse_cal_args(argc, argv, &a, rank == 0);
    if (status != TOOL_OK)
        return status;
    cal c;
    setup(&c, a.quick);
    c.verbose = a.verbose;
    c.a = malloc(c.max_bytes);
    c.b = malloc(c.max_bytes);
    if (c.a != NULL && c.b != NULL) {
        /* Real pages with data in them: untouched calloc'ed memory reads as one shared zero
           page, which every cache holds, and would make copies and messages look fast. */
        for (size_t i = 0; i < c.max_bytes; i++)
            c.a[i] = (char)(i * 131 + 7), c.b[i] = (char)(i * 17 + 3);
    }
    if (tool_agree_status(c.a == NULL || c.b == NULL ? TOOL_FAILED : TOOL_OK, c.world)) {
        status = tool_error(c.rank0, TOOL_FAILED, "calibrate: out of memory");
    } else {
        char nodes[200];
        describe_nodes(&c, nodes, sizeof nodes);
        if (c.rank0)
            printf("redist calibrate: %d ranks on %d node(s)%s%s\n", c.size, c.nodes, nodes,
                   a.quick ? " (quick sweeps)" : "");
        if (c.rank0 && c.per_node < 0)
            printf("  %-22s REDIST_RANKS_PER_NODE is not a positive whole number: ignored, as "
                   "plans ignore it\n",
                   "nodes");
        redist__machine m = *redist__machine_default();
        measure_all(&c, &m, a.threads);
        /* The file holds one rank per core's costs; plans multiply by their own load. */
        double load = redist__ranks_per_core(c.max_machine_ranks);
        if (load > 1 && c.rank0)
            printf("  %-22s %.3g ranks per core: the file holds the figures above divided by "
                   "%.3g, plans multiply by their own ranks per core\n",
                   "load", load, load);
        double host_load = redist__ranks_per_core(c.size);
        if (c.one_host && host_load > load && c.rank0)
            printf("  %-22s the %d ranks share one machine's cores (%.3g per core), plans count "
                   "their node's (%.3g): the figures hold for runs with these ranks and nodes\n",
                   "load", c.size, host_load, load);
        redist__machine_scale(&m, 1.0 / load);
        char lib_path[4096] = ""; /* the path plans read (redist__machine_file_path) */
        const char *path = a.output ? a.output : lib_path;
        int bad = 0;
        if (a.write && c.rank0) {
            if (a.output == NULL && redist__machine_file_path(lib_path, sizeof lib_path) != 0)
                lib_path[0] = '\0';
            bad = path[0] == '\0' || write_machine(&c, &m, path) != 0;
            if (bad)
                fprintf(stderr, "redist: calibrate: cannot write the machine file %s: %s\n",
                        path[0] ? path : "(no HOME)", strerror(errno));
            else
                printf("wrote %s (plans read it from now on)\n", path);
        }
        status = tool_agree_status(bad ? TOOL_FAILED : TOOL_OK, c.world);
    }
    free(c.a);
    free(c.b);
    if (c.leaders != MPI_COMM_NULL)
        MPI_Comm_free(&c.leaders);
    MPI_Comm_free(&c.node);
    return status;
}
