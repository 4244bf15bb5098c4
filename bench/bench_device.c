/* bench_device: device-memory redistribution against the naive user path and the staging
 * floor, same run.
 *
 *     mpirun -n 4 build/bench_device [--case NAME[,NAME...]] [--size N] [--reps R]
 *            [--budget SEC] [--window 0|1] [--csv FILE]
 *
 * Cases: bench_2d's 2-D ones (doubles, global n x n, local arrays column-major), and one
 * for a single rank:
 *   same     128x128 blocks on 2x2 -> the same layout
 *   36to128  36x36 blocks on 2x2 -> 128x128 on 2x2
 *   grid     64x64 on 1x2 -> 100x100 on 2x1 (ranks 0 and 1; other ranks hold nothing)
 *   2to4     32x32 on 1x2 (ranks 0, 1) -> 48x48 on 2x2
 *   local    36x36 -> 128x128 on 1x1 (rank 0 alone: the self copy, nothing staged)
 * A case needing more ranks than the run has is skipped with a note.
 *
 * Methods, each case measuring all of them in the same run:
 *   host    a redist plan on host arrays (options.memory = HOST): the reference.
 *   device  a plan with options.memory = REDIST_MEMORY_CUDA on device arrays: kernels pack
 *           and unpack, messages staged through the plan's pinned host buffers, pipelined;
 *           redist_execute returns with dst complete.
 *   naive   the user's path without device plans: the whole local src copied device ->
 *           host into a plain malloc'd (pageable) array, the host plan's redist_execute, the
 *           whole local dst copied host -> device, then a sync.
 *   floor   the staging floor: each rank copies the bytes its device plan sends
 *           (redist_plan_stats: bytes_sent) off the GPU, then the bytes it receives
 *           (bytes_received) onto it, once, through pinned host buffers, then a sync. No MPI,
 *           no packing.
 *   wire    the MPI part alone: the device plan's messages (the same peers and sizes, the
 *           self part left out) exchanged between pinned host buffers with MPI_Irecv,
 *           MPI_Isend and MPI_Waitall; no device. With a host MPI (not CUDA-aware) every
 *           staged byte also crosses it, so device >= max(floor, wire) whatever the
 *           pipelining, and device ~ floor + wire where nothing overlaps. Where the device
 *           plan's messages go through the shared-memory window (the report says which) MPI
 *           carries only notifications, and the wire is what the window saves.
 *   staged  the device plan again, made with REDIST_DEVICE_IPC=0: every message on the node
 *           staged through the host (what "device" did before its messages were pulled).
 *   d2d     the floor of pulled messages: each rank copies the bytes it receives from one
 *           device buffer to another (cuMemcpyDtoD), then a sync.
 *
 * Timing as bench_2d's: each method runs once as a warm-up (host, device and naive results
 * verified element by element on the host, device arrays copied back), then R repetitions,
 * interleaved (repetition r runs host, device, naive, floor, then r + 1 does) so that drift
 * touches every method alike. A run is MPI_Barrier, MPI_Wtime, the method, MPI_Wtime and an
 * MPI_Allreduce(MAX): a repetition's time is the slowest rank's. Reported per method: Tmin,
 * Tmed, Tavg, Tmax, GB/s (bytes of the whole array / Tmed); per case the Tmed ratios
 * naive/device, device/floor, device/host, wire/floor and device/(floor + wire). --reps R (default
 * 10); --budget SEC: fewer repetitions (never below min(R, 5)) if the warm-ups say R rounds of the
 * four methods would take longer than SEC seconds.
 *
 * After the ratios, the model's line: each device plan's predicted_seconds (redist_stats,
 * the largest over ranks) and the measured Tmed over it (the target on a GPU: 0.7 .. 1.3).
 *
 * Targets, on a GPU node with 4 ranks sharing one GPU, n = 8000: device at least
 * 2x faster than naive (naive/device >= 2) and within 1.5x of the floor
 * (device/floor <= 1.5); where the device plan's messages are pulled over inter-process
 * memory (redist_stats.messages_device_ipc: the "pulled" line), within 1.3x of d2d
 * (device/d2d <= 1.3) and at least 5x faster than staged (staged/device >= 5).
 *
 * The device: CUDA's driver (loaded at run time), or the emulated one with
 * REDIST_DEVICE_BACKEND=emulated (the host cannot touch its memory: every path runs, but
 * its times mean nothing). Where no device loads: one line saying why, and exit 0; exit 1
 * if REDIST_DEVICE_BACKEND was set and its backend does not load.
 *
 * Exit status: 0 if every verified result was right (or there is no device), 1 otherwise,
 * 2 on a bad option.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/device.h"
#include "index/index.h"
#include "redist.h"

#define MIN_REPS 5

static redist__device *dev; /* the process's device backend */

/* ---- Cases ------------------------------------------------------------------------------ */

typedef struct {
    int64_t rows, cols; /* global extents */
    int64_t mb, nb;     /* block sizes */
    int prow, pcol;     /* process grid */
    const int *ranks;   /* rank of grid coordinate (r, c) is ranks[r*pcol + c]; NULL: r*pcol+c */
} grid_spec;

typedef struct {
    const char *name;
    const char *what;
    int needed; /* ranks the case needs */
    grid_spec src, dst;
} case_spec;

static const int ranks_01[] = {0, 1};

enum { NCASES = 5 };

static void make_cases(case_spec cases[NCASES], int64_t n)
{
    cases[0] = (case_spec){"same",
                           "128x128 on 2x2 -> 128x128 on 2x2",
                           4,
                           {n, n, 128, 128, 2, 2, NULL},
                           {n, n, 128, 128, 2, 2, NULL}};
    cases[1] = (case_spec){"36to128",
                           "36x36 on 2x2 -> 128x128 on 2x2",
                           4,
                           {n, n, 36, 36, 2, 2, NULL},
                           {n, n, 128, 128, 2, 2, NULL}};
    cases[2] = (case_spec){"grid",
                           "64x64 on 1x2 -> 100x100 on 2x1",
                           2,
                           {n, n, 64, 64, 1, 2, NULL},
                           {n, n, 100, 100, 2, 1, NULL}};
    cases[3] = (case_spec){"2to4",
                           "32x32 on 1x2 (ranks 0,1) -> 48x48 on 2x2",
                           4,
                           {n, n, 32, 32, 1, 2, ranks_01},
                           {n, n, 48, 48, 2, 2, NULL}};
    cases[4] = (case_spec){"local",
                           "36x36 on 1x1 -> 128x128 on 1x1 (rank 0)",
                           1,
                           {n, n, 36, 36, 1, 1, NULL},
                           {n, n, 128, 128, 1, 1, NULL}};
}

/* ---- One rank's piece of a layout ------------------------------------------------------- */

typedef struct {
    int in;           /* this rank is in the grid */
    int myrow, mycol; /* its coordinates */
    int64_t lr, lc;   /* local extents; the local array is lr x lc column-major, ld = lr */
} piece;

static int64_t local_extent(int64_t n, int64_t b, int coord, int p)
{
    int64_t nblocks = n / b, extent = (nblocks / p) * b;
    int64_t extra = nblocks % p;
    if (coord < extra)
        extent += b;
    else if (coord == extra)
        extent += n % b;
    return extent;
}

/* Global index of local index l along a dimension cyclic(b) over p, this coordinate. */
static int64_t local_to_global(int64_t l, int64_t b, int coord, int p)
{
    return (l / b) * b * p + (int64_t)coord * b + l % b;
}

static piece piece_of(const grid_spec *g, int rank)
{
    piece pc = {0, -1, -1, 0, 0};
    for (int r = 0; r < g->prow; r++)
        for (int c = 0; c < g->pcol; c++) {
            int owner = g->ranks ? g->ranks[r * g->pcol + c] : r * g->pcol + c;
            if (owner == rank) {
                pc.in = 1;
                pc.myrow = r;
                pc.mycol = c;
            }
        }
    if (pc.in) {
        pc.lr = local_extent(g->rows, g->mb, pc.myrow, g->prow);
        pc.lc = local_extent(g->cols, g->nb, pc.mycol, g->pcol);
    }
    return pc;
}

static size_t piece_bytes(const piece *pc)
{
    return sizeof(double) * (size_t)(pc->lr * pc->lc);
}

/* value(global_row, global_col) = global_row * cols + global_col, written one block-run
   (a column segment of up to mb rows) at a time. */
static void fill(const grid_spec *g, const piece *pc, double *a)
{
    for (int64_t lj = 0; lj < pc->lc; lj++) {
        int64_t gc = local_to_global(lj, g->nb, pc->mycol, g->pcol);
        double *col = a + lj * pc->lr;
        for (int64_t li0 = 0; li0 < pc->lr; li0 += g->mb) {
            int64_t gr0 = local_to_global(li0, g->mb, pc->myrow, g->prow);
            int64_t len = pc->lr - li0 < g->mb ? pc->lr - li0 : g->mb;
            double v = (double)(gr0 * g->cols + gc), step = (double)g->cols;
            for (int64_t k = 0; k < len; k++, v += step)
                col[li0 + k] = v;
        }
    }
}

/* Number of wrong elements in this rank's destination piece; prints the first one. */
static int64_t check(const grid_spec *g, const piece *pc, const double *a, int rank,
                     const char *method)
{
    int64_t bad = 0;
    for (int64_t lj = 0; lj < pc->lc; lj++) {
        int64_t gc = local_to_global(lj, g->nb, pc->mycol, g->pcol);
        const double *col = a + lj * pc->lr;
        for (int64_t li0 = 0; li0 < pc->lr; li0 += g->mb) {
            int64_t gr0 = local_to_global(li0, g->mb, pc->myrow, g->prow);
            int64_t len = pc->lr - li0 < g->mb ? pc->lr - li0 : g->mb;
            double v = (double)(gr0 * g->cols + gc), step = (double)g->cols;
            for (int64_t k = 0; k < len; k++, v += step)
                if (col[li0 + k] != v) {
                    if (bad == 0)
                        fprintf(
                            stderr,
                            "rank %d: %s: element (%lld, %lld) at local (%lld, %lld) is %.17g, expected %.17g\n",
                            rank, method, (long long)(gr0 + k), (long long)gc, (long long)(li0 + k),
                            (long long)lj, col[li0 + k], v);
                    bad++;
                }
        }
    }
    return bad;
}

static void poison(double *a, size_t bytes)
{
    for (size_t i = 0; i < bytes / sizeof(double); i++)
        a[i] = -1.0;
}

/* ---- The methods ------------------------------------------------------------------------ */

static int use_window = 1; /* --window: options.shared_memory of both plans */

enum { M_HOST, M_DEVICE, M_NAIVE, M_FLOOR, M_WIRE, M_STAGED, M_D2D, NMETHODS };
static const char *const method_names[NMETHODS] = {"host", "device", "naive", "floor",
                                                   "wire", "staged", "d2d"};

/* The wire method's messages on one side: peers, element counts, offsets in the buffer. */
typedef struct {
    int n;
    int *peer;
    int64_t *count, *offset;
} wire_side;

/* One case's arrays and plans on this rank. Host arrays have at least one element and device
   ones at least 8 bytes, so that none is NULL; src pointers are passed as NULL where the rank
   holds no source piece. */
typedef struct {
    redist_plan hplan, dplan, splan; /* splan: the device plan, every message staged */
    int src_in;                      /* this rank holds a source piece */
    size_t src_bytes, dst_bytes;     /* its local arrays */
    double *hsrc, *hdst;             /* host: the host plan's arrays */
    double *dsrc, *ddst;             /* device: device arrays (naive reads dsrc too) */
    double *nsrc, *ndst;             /* naive: pageable host copies of the whole arrays */
    double *ndev;                    /* naive: its own device destination */
    double *chk;                     /* host copy of a device destination, for checking */
    size_t sent, received;           /* floor: the device plan's bytes_sent, bytes_received */
    void *pin_out, *pin_in;          /* floor and wire: pinned host buffers */
    size_t pin_out_bytes, pin_in_bytes;
    void *fdev;             /* floor: device memory the bytes come from and go to */
    void *fdev2;            /* d2d: device memory the received bytes are copied into */
    wire_side wsend, wrecv; /* wire: the plan's messages to and from other ranks */
    MPI_Request *wreq;      /* wire: wsend.n + wrecv.n */
} bench;

static int run_host(const bench *b)
{
    return redist_execute(b->hplan, b->src_in ? b->hsrc : NULL, b->hdst);
}

static int run_device(const bench *b)
{
    return redist_execute(b->dplan, b->src_in ? b->dsrc : NULL, b->ddst);
}

static int run_staged(const bench *b)
{
    return redist_execute(b->splan, b->src_in ? b->dsrc : NULL, b->ddst);
}

/* The floor of messages pulled on the GPU: the bytes this rank receives copied from one
   device buffer to another (cuMemcpyDtoD), then a sync. */
static int run_d2d(const bench *b)
{
    int rc = redist__device_to_device(dev, b->fdev2, b->fdev, b->received, NULL);
    return rc == REDIST_SUCCESS ? redist__device_sync(dev, NULL) : rc;
}

static int run_naive(const bench *b)
{
    int rc = redist__device_to_host(dev, b->nsrc, b->dsrc, b->src_bytes, NULL);
    if (rc == REDIST_SUCCESS)
        rc = redist__device_sync(dev, NULL);
    if (rc == REDIST_SUCCESS)
        rc = redist_execute(b->hplan, b->src_in ? b->nsrc : NULL, b->ndst);
    if (rc == REDIST_SUCCESS)
        rc = redist__device_from_host(dev, b->ndev, b->ndst, b->dst_bytes, NULL);
    if (rc == REDIST_SUCCESS)
        rc = redist__device_sync(dev, NULL);
    return rc;
}

static int run_floor(const bench *b)
{
    int rc = redist__device_to_host(dev, b->pin_out, b->fdev, b->sent, NULL);
    if (rc == REDIST_SUCCESS)
        rc = redist__device_from_host(dev, b->fdev, b->pin_in, b->received, NULL);
    if (rc == REDIST_SUCCESS)
        rc = redist__device_sync(dev, NULL);
    return rc;
}

/* The messages' bytes between the pinned buffers (pin_out, pin_in), as the device plan's
   staged messages travel; an MPI error is an error. */
static int run_wire(const bench *b)
{
    int rc = MPI_SUCCESS, k = 0;
    for (int i = 0; i < b->wrecv.n && rc == MPI_SUCCESS; i++)
        rc = MPI_Irecv((double *)b->pin_in + b->wrecv.offset[i], (int)b->wrecv.count[i], MPI_DOUBLE,
                       b->wrecv.peer[i], 7, MPI_COMM_WORLD, &b->wreq[k++]);
    for (int i = 0; i < b->wsend.n && rc == MPI_SUCCESS; i++)
        rc = MPI_Isend((double *)b->pin_out + b->wsend.offset[i], (int)b->wsend.count[i],
                       MPI_DOUBLE, b->wsend.peer[i], 7, MPI_COMM_WORLD, &b->wreq[k++]);
    if (rc == MPI_SUCCESS)
        rc = MPI_Waitall(k, b->wreq, MPI_STATUSES_IGNORE);
    return rc == MPI_SUCCESS ? REDIST_SUCCESS : REDIST_ERR_MPI;
}

static int run_method(const bench *b, int m)
{
    switch (m) {
    case M_HOST:
        return run_host(b);
    case M_DEVICE:
        return run_device(b);
    case M_NAIVE:
        return run_naive(b);
    case M_WIRE:
        return run_wire(b);
    case M_STAGED:
        return run_staged(b);
    case M_D2D:
        return run_d2d(b);
    default:
        return run_floor(b);
    }
}

/* ---- Timing ----------------------------------------------------------------------------- */

typedef struct {
    char note[64]; /* the plan's algorithm, what was staged, or why it failed */
    int ran;       /* timings are valid */
    int failed;    /* wrong result or an error */
    int reps;
    double warm;
    double tmin, tmed, tavg, tmax;
} result;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One timed run: barrier, run, and the slowest rank's time; *err is set (on every rank)
   if the run failed on any rank. */
static double timed_run(const bench *b, int m, int *err)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    int rc = run_method(b, m);
    double local[2] = {MPI_Wtime() - t0, rc != REDIST_SUCCESS ? 1.0 : 0.0}, global[2];
    MPI_Allreduce(local, global, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (global[1] != 0.0)
        *err = 1;
    return global[0];
}

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes > 0 ? bytes : 1);
    if (!p) {
        fprintf(stderr, "bench_device: out of memory (%zu bytes)\n", bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

/* A device destination's contents on the host (b->chk), copied back and waited for. */
static int device_to_chk(const bench *b, const double *d)
{
    int rc = redist__device_to_host(dev, b->chk, d, b->dst_bytes, NULL);
    return rc == REDIST_SUCCESS ? redist__device_sync(dev, NULL) : rc;
}

/* Fills a method's destination with -1 before its warm-up. */
static int poison_dst(const bench *b, int m)
{
    if (m == M_HOST) {
        poison(b->hdst, b->dst_bytes);
        return REDIST_SUCCESS;
    }
    if (m == M_FLOOR || m == M_WIRE || m == M_D2D)
        return REDIST_SUCCESS;
    poison(b->chk, b->dst_bytes);
    poison(b->ndst, b->dst_bytes);
    int rc =
        redist__device_from_host(dev, m == M_NAIVE ? b->ndev : b->ddst, b->chk, b->dst_bytes, NULL);
    return rc == REDIST_SUCCESS ? redist__device_sync(dev, NULL) : rc;
}

/* Wrong elements of method m's destination over all ranks (the floor has none); -1 if a
   device copy failed. Collective. */
static long long verify(const bench *b, int m, const grid_spec *g, const piece *pd, int rank)
{
    long long bad = 0, total = 0;
    if (m == M_HOST)
        bad = check(g, pd, b->hdst, rank, method_names[m]);
    else if (m == M_FLOOR || m == M_WIRE || m == M_D2D)
        bad = 0;
    else if (device_to_chk(b, m == M_NAIVE ? b->ndev : b->ddst) != 0)
        bad = -1;
    else
        bad = check(g, pd, b->chk, rank, method_names[m]);
    long long v[2] = {bad < 0 ? 1 : 0, bad > 0 ? bad : 0}, s[2];
    MPI_Allreduce(v, s, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    total = s[0] ? -1 : s[1];
    return total;
}

/* The warm-up of method m, verified; sets x->failed (on every rank alike) on a failure. */
static void warm_up(result *x, const bench *b, int m, const grid_spec *g, const piece *pd, int rank)
{
    int err = poison_dst(b, m) != REDIST_SUCCESS, setup_failed, run_failed = 0;
    MPI_Allreduce(&err, &setup_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (!setup_failed)
        x->warm = timed_run(b, m, &run_failed);
    if (setup_failed || run_failed) {
        x->failed = 1;
        snprintf(x->note, sizeof x->note, "FAIL: %s failed",
                 setup_failed ? "poisoning dst" : "the warm-up");
        if (rank == 0)
            printf("FAIL: %s: %s (rank 0's last error: %s)\n", method_names[m], x->note + 6,
                   redist_last_error_detail());
        return;
    }
    long long bad = verify(b, m, g, pd, rank);
    if (bad != 0) {
        x->failed = 1;
        if (bad < 0)
            snprintf(x->note, sizeof x->note, "FAIL: copy back failed");
        else
            snprintf(x->note, sizeof x->note, "FAIL: %lld wrong elements", bad);
        if (rank == 0)
            printf("FAIL: %s: %s\n", method_names[m], x->note + 6);
    }
}

/* Repetitions: R, fewer (never below min(R, MIN_REPS)) if R rounds exceed the budget. */
static int choose_reps(const result *res, int reps, double budget)
{
    double round = 0;
    for (int m = 0; m < NMETHODS; m++)
        if (!res[m].failed)
            round += res[m].warm;
    if (budget <= 0 || round * reps <= budget)
        return reps;
    int least = reps < MIN_REPS ? reps : MIN_REPS;
    int r = (int)(budget / (round > 0 ? round : 1e-9));
    return r < least ? least : r > reps ? reps : r;
}

static void summarize(result *x, double *t, int reps)
{
    double sum = 0;
    for (int i = 0; i < reps; i++)
        sum += t[i];
    qsort(t, (size_t)reps, sizeof(double), cmp_double);
    x->ran = 1;
    x->reps = reps;
    x->tmin = t[0];
    x->tmax = t[reps - 1];
    x->tmed = reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
    x->tavg = sum / reps;
}

/* The interleaved repetitions of every method whose warm-up passed. Collective. */
static void measure(result *res, const bench *b, int reps)
{
    double *t = xmalloc(sizeof(double) * (size_t)(NMETHODS * reps));
    int err[NMETHODS] = {0};
    for (int r = 0; r < reps; r++)
        for (int m = 0; m < NMETHODS; m++)
            if (!res[m].failed)
                t[m * reps + r] = timed_run(b, m, &err[m]);
    for (int m = 0; m < NMETHODS; m++) {
        if (res[m].failed)
            continue;
        if (err[m]) {
            res[m].failed = 1;
            snprintf(res[m].note, sizeof res[m].note, "FAIL: a repetition failed");
            continue;
        }
        summarize(&res[m], t + m * reps, reps);
    }
    free(t);
}

/* ---- Options ---------------------------------------------------------------------------- */

typedef struct {
    const char *cases; /* comma list, NULL: all */
    const char *csv;
    int64_t n;
    int reps;
    double budget;
} options;

static int in_list(const char *list, const char *name)
{
    if (!list)
        return 1;
    size_t len = strlen(name);
    for (const char *p = list; *p;) {
        const char *end = strchr(p, ',');
        size_t l = end ? (size_t)(end - p) : strlen(p);
        if (l == len && strncmp(p, name, len) == 0)
            return 1;
        if (!end)
            break;
        p = end + 1;
    }
    return 0;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: bench_device [--case NAME[,NAME...]] [--size N] [--reps R] [--budget SEC]\n"
            "                    [--window 0|1] [--csv FILE]\n"
            "  --case    same, 36to128, grid, 2to4, local (default: all)\n"
            "  --size    global n of the n x n cases (default 8000)\n"
            "  --reps    timed repetitions of each method, interleaved (default 10)\n"
            "  --budget  seconds per case: fewer repetitions (never below min(R, %d)) if the\n"
            "            warm-ups say R rounds would take longer (default 0: no limit)\n"
            "  --window  options.shared_memory of both plans (default 1: ranks of a node\n"
            "            exchange through a shared-memory window; 0: through MPI)\n"
            "  --csv     write one row per (case, method) to FILE\n"
            "methods: host, device (options.memory = CUDA), naive (copy the arrays off, host\n"
            "plan, copy back), floor (each rank's sent bytes off the GPU, received bytes on)\n",
            MIN_REPS);
}

static int parse_int64(const char *s, int64_t *v, int64_t lo, int64_t hi)
{
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (errno || end == s || *end || x < lo || x > hi)
        return -1;
    *v = x;
    return 0;
}

/* Every name of a --case list is a case; 0 if so. */
static int check_cases(const char *list, int rank)
{
    case_spec cases[NCASES];
    make_cases(cases, 1);
    for (const char *p = list; p && *p;) {
        const char *end = strchr(p, ',');
        size_t l = end ? (size_t)(end - p) : strlen(p);
        int found = 0;
        for (int c = 0; c < NCASES; c++)
            found |= strlen(cases[c].name) == l && !strncmp(cases[c].name, p, l);
        if (!found) {
            if (rank == 0)
                fprintf(stderr,
                        "bench_device: unknown case '%.*s' (same, 36to128, grid, 2to4, local)\n",
                        (int)l, p);
            return -1;
        }
        if (!end)
            break;
        p = end + 1;
    }
    return 0;
}

/* One option and its value; 0 if it is good. */
static int parse_one(const char *a, const char *v, options *o)
{
    int64_t x;
    if (!strcmp(a, "--case"))
        o->cases = strcmp(v, "all") ? v : NULL;
    else if (!strcmp(a, "--csv"))
        o->csv = v;
    else if (!strcmp(a, "--size"))
        return parse_int64(v, &o->n, 1, 3037000499LL); /* n * n fits int64_t */
    else if (!strcmp(a, "--reps")) {
        if (parse_int64(v, &x, 1, 100000))
            return -1;
        o->reps = (int)x;
    } else if (!strcmp(a, "--window")) {
        if (parse_int64(v, &x, 0, 1))
            return -1;
        use_window = (int)x;
    } else if (!strcmp(a, "--budget")) {
        char *end;
        o->budget = strtod(v, &end);
        return end == v || *end || !(o->budget >= 0) ? -1 : 0;
    } else
        return -2;
    return 0;
}

/* Returns 0 to run, 1 to exit successfully (--help), 2 on a bad option. */
static int parse_options(int argc, char **argv, options *o, int rank)
{
    *o = (options){NULL, NULL, 8000, 10, 0.0};
    for (int i = 1; i < argc; i += 2) { /* every option but --help takes a value */
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            if (rank == 0)
                usage(stdout);
            return 1;
        }
        int bad = v ? parse_one(a, v, o) : -2;
        if (bad == -2) {
            if (rank == 0) {
                fprintf(stderr, "bench_device: %s: unknown option or missing value\n", a);
                usage(stderr);
            }
            return 2;
        }
        if (bad) {
            if (rank == 0)
                fprintf(stderr, "bench_device: bad value for %s: '%s'\n", a, v);
            return 2;
        }
    }
    return check_cases(o->cases, rank) ? 2 : 0;
}

/* ---- Report ----------------------------------------------------------------------------- */

static double ratio(const result *num, const result *den)
{
    return num->ran && den->ran && den->tmed > 0 ? num->tmed / den->tmed : -1;
}

/* "naive/device = 2.31 (target >= 2: met)"; the verdict only on a real device. */
static void print_ratio(const char *what, double r, const char *target, int met, int real)
{
    if (r < 0) {
        printf("  %s = -", what);
        return;
    }
    printf("  %s = %.2f", what, r);
    if (target && real)
        printf(" (target %s: %s)", target, met ? "met" : "MISSED");
    else if (target)
        printf(" (target %s)", target);
}

/* Where the device plan pulls its messages over inter-process memory (pulled: messages, the
   rank maximum): against a device-to-device copy of the bytes received, and against the same
   plan with every message staged. */
static void print_pulled_ratios(const result *res, int64_t pulled, int real)
{
    if (pulled <= 0)
        return;
    const result *d = &res[M_DEVICE];
    double dd = ratio(d, &res[M_D2D]), sd = ratio(&res[M_STAGED], d);
    printf("pulled (Tmed):");
    print_ratio("device/d2d", dd, "<= 1.3", dd >= 0 && dd <= 1.3, real);
    print_ratio("staged/device", sd, ">= 5", sd >= 5, real);
    printf("\n");
}

static void print_ratios(const result *res, int64_t staged, int real)
{
    const result *h = &res[M_HOST], *d = &res[M_DEVICE];
    double nd = ratio(&res[M_NAIVE], d), df = ratio(d, &res[M_FLOOR]);
    printf("ratios (Tmed):");
    print_ratio("naive/device", nd, ">= 2", nd >= 2, real);
    if (staged > 0)
        print_ratio("device/floor", df, "<= 1.5", df >= 0 && df <= 1.5, real);
    else
        printf("  device/floor = - (nothing crosses the link)");
    print_ratio("device/host", ratio(d, h), NULL, 0, real);
    if (staged > 0) {
        const result *f = &res[M_FLOOR], *w = &res[M_WIRE];
        print_ratio("wire/floor", ratio(w, f), NULL, 0, real);
        if (d->ran && f->ran && w->ran)
            print_ratio("device/(floor+wire)", d->tmed / (f->tmed + w->tmed), NULL, 0, real);
    }
    printf("\n");
}

typedef struct {
    const case_spec *cs;
    double bytes; /* the whole array */
    int nprocs;
    const char *algorithm[2]; /* the host plan's and the device plan's */
    int64_t off, on;          /* the device plan's bytes_sent, bytes_received: rank max */
    int window;               /* the device plan's messages go through the shared window */
    int64_t pulled;           /* its messages pulled over inter-process memory: rank max */
    double predicted[2];      /* the device plan's and the staged one's predicted_seconds */
} case_info;

static void report(const case_info *ci, const result *res, int real)
{
    const case_spec *cs = ci->cs;
    printf("\n== %s: %s, %lld x %lld doubles (%.1f MB), %d ranks\n", cs->name, cs->what,
           (long long)cs->src.rows, (long long)cs->src.cols, ci->bytes / 1e6, ci->nprocs);
    printf("plans: host %s, device %s (%s); staged per rank (max): %.2f MB off, %.2f MB on\n",
           ci->algorithm[0] ? ci->algorithm[0] : "-", ci->algorithm[1] ? ci->algorithm[1] : "-",
           ci->window ? "messages through the shared-memory window" : "messages through MPI",
           (double)ci->off / 1e6, (double)ci->on / 1e6);
    printf("%-8s %4s %9s %9s %9s %9s %8s  %s\n", "method", "reps", "Tmin[ms]", "Tmed[ms]",
           "Tavg[ms]", "Tmax[ms]", "GB/s", "note");
    for (int m = 0; m < NMETHODS; m++) {
        const result *x = &res[m];
        printf("%-8s", method_names[m]);
        if (x->ran)
            printf(" %4d %9.3f %9.3f %9.3f %9.3f %8.2f", x->reps, x->tmin * 1e3, x->tmed * 1e3,
                   x->tavg * 1e3, x->tmax * 1e3, ci->bytes / x->tmed / 1e9);
        else
            printf(" %4s %9s %9s %9s %9s %8s", "-", "-", "-", "-", "-", "-");
        printf("  %s\n", x->note);
    }
    print_ratios(res, ci->off + ci->on, real);
    print_pulled_ratios(res, ci->pulled, real);
    /* the cost model against the run (target: within 30% on a GPU) */
    const int ms[2] = {M_DEVICE, M_STAGED};
    printf("model (predicted_seconds, rank max):");
    for (int k = 0; k < 2; k++)
        if (res[ms[k]].ran && ci->predicted[k] > 0)
            printf("  %s %.3f ms, measured/predicted = %.2f", method_names[ms[k]],
                   ci->predicted[k] * 1e3, res[ms[k]].tmed / ci->predicted[k]);
    printf("\n");
    fflush(stdout);
}

static void write_csv(FILE *csv, const case_info *ci, const result *res)
{
    for (int m = 0; m < NMETHODS; m++) {
        const result *x = &res[m];
        fprintf(csv, "%s,%s,\"%s\",%lld,%lld,%.0f,%d,%s,%d,", ci->cs->name, method_names[m],
                x->note, (long long)ci->cs->src.rows, (long long)ci->cs->src.cols, ci->bytes,
                ci->nprocs, redist__device_name(dev), x->ran ? x->reps : 0);
        if (x->ran)
            fprintf(csv, "%.9g,%.9g,%.9g,%.9g,%.6g,", x->tmin, x->tmed, x->tavg, x->tmax,
                    ci->bytes / x->tmed / 1e9);
        else
            fprintf(csv, ",,,,,");
        double r = ratio(x, &res[M_DEVICE]);
        if (r >= 0)
            fprintf(csv, "%.6g,", r);
        else
            fprintf(csv, ",");
        fprintf(csv, "%lld,%lld,%s\n", (long long)ci->off, (long long)ci->on,
                x->failed ? "fail"
                : x->ran  ? "ok"
                          : "skipped");
    }
    fflush(csv);
}

/* ---- One case: setup -------------------------------------------------------------------- */

static int all_ok(int ok)
{
    int all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    return all;
}

static redist_layout make_layout(const grid_spec *g, const piece *pc, int rank, int *err)
{
    redist_layout l = NULL;
    int rc = redist_layout_create(2, (int64_t[]){g->rows, g->cols}, (int64_t[]){g->mb, g->nb},
                                  (int[]){g->prow, g->pcol}, NULL, g->ranks, REDIST_COL_MAJOR, &l);
    int64_t shape[2] = {-1, -1};
    if (rc == REDIST_SUCCESS)
        rc = redist_layout_local_shape(l, rank, shape);
    if (rc != REDIST_SUCCESS || shape[0] != pc->lr || shape[1] != pc->lc) {
        fprintf(stderr, "rank %d: layout: %s, local shape %lld x %lld, expected %lld x %lld\n",
                rank, rc ? redist_strerror(rc) : "ok", (long long)shape[0], (long long)shape[1],
                (long long)pc->lr, (long long)pc->lc);
        *err = 1;
    }
    return l;
}

/* One side of this rank's messages to and from other ranks (the pattern the plan's
   messages come from), packed one after the other; 0 or a library error code. */
static int wire_side_of(redist_layout ls, redist_layout ld, int side, int rank, wire_side *w)
{
    redist__side sd;
    int rc = redist__side_create(ls, ld, side, rank, &sd);
    if (rc != REDIST_SUCCESS)
        return rc;
    w->peer = xmalloc(sizeof(int) * (size_t)(sd.nmsgs + 1));
    w->count = xmalloc(sizeof(int64_t) * (size_t)(sd.nmsgs + 1));
    w->offset = xmalloc(sizeof(int64_t) * (size_t)(sd.nmsgs + 1));
    int64_t at = 0;
    for (int i = 0; i < sd.nmsgs; i++) {
        const redist__msg *m = &sd.msgs[i];
        if (m->peer == rank || m->nelems == 0)
            continue;
        w->peer[w->n] = m->peer;
        w->count[w->n] = m->nelems;
        w->offset[w->n++] = at;
        at += m->nelems;
    }
    redist__side_free(&sd);
    return REDIST_SUCCESS;
}

/* Elements of a wire side. */
static int64_t wire_elems(const wire_side *w)
{
    return w->n > 0 ? w->offset[w->n - 1] + w->count[w->n - 1] : 0;
}

/* Both plans (collective; errors agreed by the library). The device plan's stats set the
   floor's byte counts. 0 on success, else prints why on rank 0. */
static int make_plans(bench *b, redist_layout ls, redist_layout ld, int rank, case_info *ci)
{
    redist_options opt;
    redist_options_init(&opt);
    opt.shared_memory = use_window;
    int rc = redist_plan_create(ls, ld, MPI_DOUBLE, MPI_COMM_WORLD, &opt, &b->hplan);
    opt.memory = REDIST_MEMORY_CUDA;
    if (rc == REDIST_SUCCESS)
        rc = redist_plan_create(ls, ld, MPI_DOUBLE, MPI_COMM_WORLD, &opt, &b->dplan);
    if (rc == REDIST_SUCCESS) { /* the same, its messages on the node staged */
        char *was = getenv("REDIST_DEVICE_IPC");
        char *kept = was != NULL ? strdup(was) : NULL;
        setenv("REDIST_DEVICE_IPC", "0", 1);
        rc = redist_plan_create(ls, ld, MPI_DOUBLE, MPI_COMM_WORLD, &opt, &b->splan);
        if (kept != NULL)
            setenv("REDIST_DEVICE_IPC", kept, 1);
        else
            unsetenv("REDIST_DEVICE_IPC");
        free(kept);
    }
    if (rc != REDIST_SUCCESS) {
        if (rank == 0)
            printf("FAIL: %s: %s plan: %s (%s)\n", ci->cs->name,
                   b->dplan   ? "staged device"
                   : b->hplan ? "device"
                              : "host",
                   redist_error_name(rc), redist_last_error_detail());
        return 1;
    }
    redist_stats st;
    if (redist_plan_stats(b->dplan, &st) != REDIST_SUCCESS)
        st.bytes_sent = st.bytes_received = 0;
    ci->window = st.shared_memory;
    b->sent = (size_t)st.bytes_sent;
    b->received = (size_t)st.bytes_received;
    int64_t mine[3] = {st.bytes_sent, st.bytes_received, st.messages_device_ipc}, most[3];
    MPI_Allreduce(mine, most, 3, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    redist_stats ss;
    double pred[2] = {st.predicted_seconds, redist_plan_stats(b->splan, &ss) == REDIST_SUCCESS
                                                ? ss.predicted_seconds
                                                : 0};
    MPI_Allreduce(pred, ci->predicted, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    ci->off = most[0];
    ci->on = most[1];
    ci->pulled = most[2];
    ci->algorithm[0] = redist_plan_algorithm(b->hplan);
    ci->algorithm[1] = redist_plan_algorithm(b->dplan);
    int rc2 = wire_side_of(ls, ld, REDIST__SIDE_SRC, rank, &b->wsend);
    if (rc2 == REDIST_SUCCESS)
        rc2 = wire_side_of(ls, ld, REDIST__SIDE_DST, rank, &b->wrecv);
    if (!all_ok(rc2 == REDIST_SUCCESS)) {
        if (rank == 0)
            printf("FAIL: %s: the messages for the wire method: %s\n", ci->cs->name,
                   redist_error_name(rc2));
        return 1;
    }
    b->wreq = xmalloc(sizeof(MPI_Request) * (size_t)(b->wsend.n + b->wrecv.n + 1));
    /* the pinned buffers hold the wire's messages too */
    size_t wout = (size_t)wire_elems(&b->wsend) * sizeof(double),
           win = (size_t)wire_elems(&b->wrecv) * sizeof(double);
    b->pin_out_bytes = b->sent > wout ? b->sent : wout;
    b->pin_in_bytes = b->received > win ? b->received : win;
    return 0;
}

static size_t at_least_8(size_t bytes)
{
    return bytes > 8 ? bytes : 8;
}

/* The host arrays (malloc: aborts if it fails), src filled. */
static void host_arrays(bench *b, const grid_spec *gs, const piece *ps)
{
    b->hsrc = xmalloc(b->src_bytes);
    b->hdst = xmalloc(b->dst_bytes);
    b->nsrc = xmalloc(b->src_bytes);
    b->ndst = xmalloc(b->dst_bytes);
    b->chk = xmalloc(b->dst_bytes);
    fill(gs, ps, b->hsrc);
}

/* The device arrays and pinned buffers, the device source filled from the host's; a
   library error code. */
static int device_arrays(bench *b)
{
    size_t fbytes = b->sent > b->received ? b->sent : b->received;
    int rc = redist__device_alloc(dev, at_least_8(b->src_bytes), (void **)&b->dsrc);
    if (rc == REDIST_SUCCESS)
        rc = redist__device_alloc(dev, at_least_8(b->dst_bytes), (void **)&b->ddst);
    if (rc == REDIST_SUCCESS)
        rc = redist__device_alloc(dev, at_least_8(b->dst_bytes), (void **)&b->ndev);
    if (rc == REDIST_SUCCESS)
        rc = redist__device_alloc(dev, at_least_8(fbytes), &b->fdev);
    if (rc == REDIST_SUCCESS)
        rc = redist__device_alloc(dev, at_least_8(b->received), &b->fdev2);
    if (rc == REDIST_SUCCESS)
        rc = redist__device_host_alloc(dev, at_least_8(b->pin_out_bytes), &b->pin_out);
    if (rc == REDIST_SUCCESS)
        rc = redist__device_host_alloc(dev, at_least_8(b->pin_in_bytes), &b->pin_in);
    if (rc == REDIST_SUCCESS)
        rc = redist__device_from_host(dev, b->dsrc, b->hsrc, b->src_bytes, NULL);
    if (rc == REDIST_SUCCESS)
        rc = redist__device_sync(dev, NULL);
    return rc;
}

static void free_bench(bench *b)
{
    redist_plan_free(&b->hplan);
    redist_plan_free(&b->dplan);
    redist_plan_free(&b->splan);
    /* every rank's plans, which map the peers' device arrays, before any array goes (CUDA:
       freeing an allocation another process maps is undefined) */
    MPI_Barrier(MPI_COMM_WORLD);
    free(b->hsrc);
    free(b->hdst);
    free(b->nsrc);
    free(b->ndst);
    free(b->chk);
    redist__device_free(dev, b->dsrc);
    redist__device_free(dev, b->ddst);
    redist__device_free(dev, b->ndev);
    redist__device_free(dev, b->fdev);
    redist__device_free(dev, b->fdev2);
    wire_side *ws[2] = {&b->wsend, &b->wrecv};
    for (int i = 0; i < 2; i++) {
        free(ws[i]->peer);
        free(ws[i]->count);
        free(ws[i]->offset);
    }
    free(b->wreq);
    redist__device_host_free(dev, b->pin_out);
    redist__device_host_free(dev, b->pin_in);
}

/* Layouts, plans and arrays of a case; 0 on success (on every rank alike). */
static int setup(bench *b, case_info *ci, const piece *ps, const piece *pd, int rank)
{
    const case_spec *cs = ci->cs;
    int err = 0;
    redist_layout ls = make_layout(&cs->src, ps, rank, &err);
    redist_layout ld = make_layout(&cs->dst, pd, rank, &err);
    if (!all_ok(!err)) {
        if (rank == 0)
            printf("FAIL: %s: layouts could not be created or disagree (see stderr)\n", cs->name);
    } else if (make_plans(b, ls, ld, rank, ci) == 0) {
        host_arrays(b, &cs->src, ps);
        int rc = device_arrays(b);
        if (rc != REDIST_SUCCESS)
            fprintf(stderr, "rank %d: %s: device memory: %s\n", rank, cs->name,
                    redist_last_error_detail());
        err = !all_ok(rc == REDIST_SUCCESS);
        if (err && rank == 0)
            printf("FAIL: %s: device memory could not be set up (see stderr)\n", cs->name);
    } else
        err = 1;
    redist_layout_free(&ls);
    redist_layout_free(&ld);
    return err;
}

/* ---- One case --------------------------------------------------------------------------- */

static void notes(result *res, const case_info *ci)
{
    snprintf(res[M_HOST].note, sizeof res[M_HOST].note, "%s", ci->algorithm[0]);
    snprintf(res[M_DEVICE].note, sizeof res[M_DEVICE].note, "%s (memory = CUDA)", ci->algorithm[1]);
    snprintf(res[M_NAIVE].note, sizeof res[M_NAIVE].note, "whole arrays via pageable host");
    snprintf(res[M_FLOOR].note, sizeof res[M_FLOOR].note, "%s",
             ci->off + ci->on > 0 ? "sent off + received on (pinned)" : "nothing to stage");
    snprintf(res[M_WIRE].note, sizeof res[M_WIRE].note, "%s",
             ci->off + ci->on > 0 ? "the messages between pinned host buffers (MPI only)"
                                  : "no messages");
    snprintf(res[M_STAGED].note, sizeof res[M_STAGED].note, "%s",
             "the device plan, REDIST_DEVICE_IPC=0 (staged)");
    snprintf(res[M_D2D].note, sizeof res[M_D2D].note, "%s",
             ci->pulled > 0 ? "received bytes device -> device" : "(nothing pulled)");
}

/* Runs one case on every rank; returns 1 if anything failed. */
static int run_case(const case_spec *cs, const options *o, int rank, int nprocs, FILE *csv)
{
    piece ps = piece_of(&cs->src, rank), pd = piece_of(&cs->dst, rank);
    bench b = {0};
    b.src_in = ps.in;
    b.src_bytes = piece_bytes(&ps);
    b.dst_bytes = piece_bytes(&pd);
    case_info ci = {.cs = cs, .nprocs = nprocs};
    ci.bytes = (double)cs->src.rows * (double)cs->src.cols * sizeof(double);
    int failed = setup(&b, &ci, &ps, &pd, rank);
    if (!failed) {
        result res[NMETHODS] = {0};
        notes(res, &ci);
        for (int m = 0; m < NMETHODS; m++) {
            warm_up(&res[m], &b, m, &cs->dst, &pd, rank);
            failed |= res[m].failed;
        }
        measure(res, &b, choose_reps(res, o->reps, o->budget));
        for (int m = 0; m < NMETHODS; m++)
            failed |= res[m].failed;
        if (rank == 0)
            report(&ci, res, strcmp(redist__device_name(dev), "emulated") != 0);
        if (csv)
            write_csv(csv, &ci, res);
    }
    free_bench(&b);
    return failed;
}

/* ---- Main ------------------------------------------------------------------------------- */

/* The device on every rank: 0 if there, 1 if not (printed), 2 if not though
   REDIST_DEVICE_BACKEND asked for one (printed). Collective. */
static int open_device(int rank, int nprocs)
{
    char why[512] = "";
    int rc = redist__device_get(&dev);
    if (rc != REDIST_SUCCESS)
        snprintf(why, sizeof why, "%s", redist_last_error_detail());
    int mine = rc != REDIST_SUCCESS ? rank : nprocs, first;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first == nprocs)
        return 0;
    MPI_Bcast(why, (int)sizeof why, MPI_CHAR, first, MPI_COMM_WORLD);
    const char *want = getenv("REDIST_DEVICE_BACKEND");
    int asked = want != NULL && *want != '\0';
    if (rank == 0) {
        char where[32] = "";
        if (first != 0)
            snprintf(where, sizeof where, "rank %d: ", first);
        if (asked)
            printf("bench_device: REDIST_DEVICE_BACKEND=%s: no device (%s%s)\n", want, where, why);
        else
            printf("bench_device: no device (%s%s)\n", where, why);
    }
    return asked ? 2 : 1;
}

static FILE *open_csv(const char *path, int rank, int *ok)
{
    FILE *csv = NULL;
    *ok = 1;
    if (rank == 0 && path) {
        csv = fopen(path, "w");
        if (!csv) {
            fprintf(stderr, "bench_device: cannot write %s: %s\n", path, strerror(errno));
            *ok = 0;
        } else {
            fprintf(csv, "case,method,note,rows,cols,bytes,nprocs,device,reps,tmin_s,tmed_s,"
                         "tavg_s,tmax_s,gbps,ratio_device,staged_off_bytes,staged_on_bytes,"
                         "status\n");
        }
    }
    MPI_Bcast(ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return csv;
}

static void banner(const options *o, int nprocs)
{
    int emulated = strcmp(redist__device_name(dev), "emulated") == 0;
    printf("bench_device: %d ranks, n = %lld, reps = %d", nprocs, (long long)o->n, o->reps);
    if (o->budget > 0)
        printf(", budget %.1f s per case (at least %d reps)", o->budget,
               o->reps < MIN_REPS ? o->reps : MIN_REPS);
    printf("; device: %s%s\n", redist__device_name(dev),
           emulated ? " (emulated: every path runs, the times mean nothing)" : "");
    printf("times are the slowest rank's per repetition, methods interleaved; GB/s = array "
           "bytes / Tmed\n");
}

static int run_all(const options *o, int rank, int nprocs)
{
    int csv_ok, failed = 0;
    FILE *csv = open_csv(o->csv, rank, &csv_ok);
    if (!csv_ok)
        return 1;
    if (rank == 0)
        banner(o, nprocs);
    case_spec cases[NCASES];
    make_cases(cases, o->n);
    for (int c = 0; c < NCASES; c++) {
        if (!in_list(o->cases, cases[c].name))
            continue;
        if (nprocs < cases[c].needed) {
            if (rank == 0)
                printf("\n== %s: skipped, needs %d ranks (have %d)\n", cases[c].name,
                       cases[c].needed, nprocs);
            continue;
        }
        failed |= run_case(&cases[c], o, rank, nprocs, csv);
    }
    if (csv)
        fclose(csv);
    if (rank == 0)
        printf("\n%s\n",
               failed ? "bench_device: FAILED (see above)" : "bench_device: all results verified");
    return failed;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nprocs;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    options o;
    int status = parse_options(argc, argv, &o, rank);
    if (status == 0) {
        int d = open_device(rank, nprocs);
        status = d == 1 ? 0 : d == 2 ? 1 : run_all(&o, rank, nprocs) ? 1 : 0;
    } else
        status = status == 1 ? 0 : 2;
    MPI_Finalize();
    return status;
}
