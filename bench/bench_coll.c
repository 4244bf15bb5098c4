/* bench_coll: all ten basic communication operations of [GGKK03] (redist_bcast, _reduce,
 * _allreduce, _scan, _scatter, _gather, _allgather, _reduce_scatter, _alltoall, _shift), every
 * algorithm of each plus "auto", against the MPI library's own collective, and measured
 * against the slides' predicted time with t_s and t_w calibrated in the same run.
 *
 *   mpirun -np P build/bench_coll [--reps 20] [--batch 1] [--unchecked] [--small]
 *
 * --unchecked: redist_coll_set_checking(MPI_COMM_WORLD, 0) first (no per-call argument
 * agreement); --small: 1 double per block only; --batch B: B calls per timed rep (the time
 * per call of the slowest rank).
 *
 * Peers: MPI_Bcast, MPI_Reduce, MPI_Allreduce, MPI_Scan, MPI_Scatter, MPI_Gather,
 * MPI_Allgather, MPI_Reduce_scatter_block, MPI_Alltoall, and for shift by q an MPI_Sendrecv
 * to (rank + q) % p from (rank - q + p) % p, with q = 1 and q = p/2 (when p/2 > 1). MPI_DOUBLE,
 * MPI_SUM, root 0; 1 and 65536 doubles per block (count is per block, as in MPI; the
 * reduce_scatter send buffer holds p blocks, as MPI_Reduce_scatter_block's).
 *
 * t_s is half a zero-byte ping-pong between ranks 0 and 1, t_w the per-byte slope of a 4 MB
 * ping-pong. Per (operation, size) a header gives the MPI collective's time; then each
 * algorithm prints Tmed (median over reps of the slowest rank), the ratio to MPI and the
 * prediction of redist_coll_predict (p ranks, m = 8 * count bytes; shift is costed for its
 * worst shift). "auto" names the algorithm redist_coll_predict picks with the calibrated
 * t_s, t_w (the library's own auto uses its model values, which may pick another). An
 * algorithm that cannot run for this p prints "n/a"; any other failure "error <code>". */
#include <redist.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WORLD MPI_COMM_WORLD
#define D MPI_DOUBLE

typedef struct bench {
    double *in, *out; /* p blocks each, enough for every operation */
    int64_t n;        /* doubles per block */
    int rank, p, q;   /* q: the shift */
} bench;

/* Runs the operation once: the library's `alg`, or the MPI peer for alg == NULL. */
typedef int (*coll_fn)(const bench *b, const char *alg);

static int run_bcast(const bench *b, const char *alg)
{
    return alg ? redist_bcast(b->in, b->n, D, 0, WORLD, alg)
               : MPI_Bcast(b->in, (int)b->n, D, 0, WORLD);
}
static int run_reduce(const bench *b, const char *alg)
{
    return alg ? redist_reduce(b->in, b->out, b->n, D, MPI_SUM, 0, WORLD, alg)
               : MPI_Reduce(b->in, b->out, (int)b->n, D, MPI_SUM, 0, WORLD);
}
static int run_allreduce(const bench *b, const char *alg)
{
    return alg ? redist_allreduce(b->in, b->out, b->n, D, MPI_SUM, WORLD, alg)
               : MPI_Allreduce(b->in, b->out, (int)b->n, D, MPI_SUM, WORLD);
}
static int run_scan(const bench *b, const char *alg)
{
    return alg ? redist_scan(b->in, b->out, b->n, D, MPI_SUM, WORLD, alg)
               : MPI_Scan(b->in, b->out, (int)b->n, D, MPI_SUM, WORLD);
}
static int run_scatter(const bench *b, const char *alg)
{
    int n = (int)b->n;
    return alg ? redist_scatter(b->in, b->out, b->n, D, 0, WORLD, alg)
               : MPI_Scatter(b->in, n, D, b->out, n, D, 0, WORLD);
}
static int run_gather(const bench *b, const char *alg)
{
    int n = (int)b->n;
    return alg ? redist_gather(b->in, b->out, b->n, D, 0, WORLD, alg)
               : MPI_Gather(b->in, n, D, b->out, n, D, 0, WORLD);
}
static int run_allgather(const bench *b, const char *alg)
{
    int n = (int)b->n;
    return alg ? redist_allgather(b->in, b->out, b->n, D, WORLD, alg)
               : MPI_Allgather(b->in, n, D, b->out, n, D, WORLD);
}
static int run_reduce_scatter(const bench *b, const char *alg)
{
    return alg ? redist_reduce_scatter(b->in, b->out, b->n, D, MPI_SUM, WORLD, alg)
               : MPI_Reduce_scatter_block(b->in, b->out, (int)b->n, D, MPI_SUM, WORLD);
}
static int run_alltoall(const bench *b, const char *alg)
{
    int n = (int)b->n;
    return alg ? redist_alltoall(b->in, b->out, b->n, D, WORLD, alg)
               : MPI_Alltoall(b->in, n, D, b->out, n, D, WORLD);
}
static int run_shift(const bench *b, const char *alg)
{
    int n = (int)b->n, to = (b->rank + b->q) % b->p, from = (b->rank - b->q + b->p) % b->p;
    return alg ? redist_shift(b->in, b->out, b->n, D, b->q, WORLD, alg)
               : MPI_Sendrecv(b->in, n, D, to, 0, b->out, n, D, from, 0, WORLD, MPI_STATUS_IGNORE);
}

typedef struct op_case {
    const char *name; /* the library's operation name */
    coll_fn fn;
    int shift; /* shift only: 1 for q = 1, -1 for q = p/2 */
} op_case;

static const op_case ops[] = {
    {"bcast", run_bcast, 0},         {"reduce", run_reduce, 0},
    {"allreduce", run_allreduce, 0}, {"scan", run_scan, 0},
    {"scatter", run_scatter, 0},     {"gather", run_gather, 0},
    {"allgather", run_allgather, 0}, {"reduce_scatter", run_reduce_scatter, 0},
    {"alltoall", run_alltoall, 0},   {"shift", run_shift, 1},
    {"shift", run_shift, -1},
};

typedef struct model {
    double ts, tw; /* calibrated, seconds and seconds per byte */
    int reps;
} model;

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Calls per timed batch: one call after a barrier times mostly how the barrier released the
   ranks (with more ranks than cores, tens of microseconds either way); a batch of calls
   times the operation, as MPI's own benchmarks (IMB) do. */
static int batch = 1;

/* Median over reps of the slowest rank's time per call, each rep a barrier and a batch of
   calls, into *med; the code of the first (warm-up) call, which is the same on every rank,
   and no timing unless it succeeded. */
static int timed(coll_fn f, const bench *b, const char *alg, int reps, double *med)
{
    int err = f(b, alg);
    if (err != REDIST_SUCCESS)
        return err;
    double *t = malloc((size_t)reps * sizeof *t);
    for (int i = 0; i < reps; i++) {
        MPI_Barrier(WORLD);
        double t0 = MPI_Wtime();
        for (int j = 0; j < batch; j++)
            f(b, alg);
        double mine = (MPI_Wtime() - t0) / batch;
        MPI_Allreduce(&mine, &t[i], 1, MPI_DOUBLE, MPI_MAX, WORLD);
    }
    qsort(t, (size_t)reps, sizeof *t, cmp);
    *med = t[reps / 2];
    free(t);
    return REDIST_SUCCESS;
}

/* Prints a time in us, or "n/a" / "error <code>" for a failure. */
static void print_time(int err, double seconds)
{
    if (err == REDIST_SUCCESS)
        printf("%9.1f us", seconds * 1e6);
    else if (err == REDIST_ERR_NOT_APPLICABLE)
        printf("%9s   ", "n/a");
    else {
        char text[32];
        snprintf(text, sizeof text, "error %d", err);
        printf("%-12s", text);
    }
}

/* One algorithm (NULL: auto) of an operation: time, ratio to MPI, prediction. */
static void bench_alg(const op_case *op, const bench *b, const model *md, const char *alg,
                      double ref)
{
    double t = 0, pred = 0;
    const char *chosen = NULL;
    int err = timed(op->fn, b, alg ? alg : "auto", md->reps, &t);
    int perr = redist_coll_predict(op->name, alg, b->p, 8.0 * (double)b->n, md->ts, md->tw, &pred,
                                   &chosen);
    if (b->rank != 0)
        return;
    char label[64];
    if (alg)
        snprintf(label, sizeof label, "%s", alg);
    else if (!strcmp(op->name, "shift")) /* the library's auto knows q, the formulas do not */
        snprintf(label, sizeof label, "auto (fewest steps for q)");
    else
        snprintf(label, sizeof label, "auto (-> %s)", perr == REDIST_SUCCESS ? chosen : "?");
    printf("  %-34s ", label);
    print_time(err, t);
    if (err == REDIST_SUCCESS)
        printf("  x%.2f of MPI", t / ref);
    else
        printf("  %*s", (int)strlen("x0.00 of MPI"), "");
    printf("   predicted ");
    print_time(perr, pred);
    printf("\n");
}

/* One (operation, size): the MPI peer, then every algorithm and auto. */
static void bench_case(const op_case *op, bench *b, const model *md)
{
    double ref = 0;
    timed(op->fn, b, NULL, md->reps, &ref);
    if (b->rank == 0) {
        if (op->shift)
            printf("%s (q = %d), %lld doubles per block: MPI %.1f us\n", op->name, b->q,
                   (long long)b->n, ref * 1e6);
        else
            printf("%s, %lld doubles per block: MPI %.1f us\n", op->name, (long long)b->n,
                   ref * 1e6);
    }
    const char *alg;
    for (int a = 0; (alg = redist_coll_algorithm_name(op->name, a)) != NULL; a++)
        bench_alg(op, b, md, alg, ref);
    bench_alg(op, b, md, NULL, ref);
}

/* Half the round trip of a message of `bytes` between ranks 0 and 1 (others idle). */
static double pingpong(int rank, int64_t bytes, char *buf)
{
    double best = 1e30;
    for (int r = 0; r < 20; r++) {
        MPI_Barrier(WORLD);
        double t0 = MPI_Wtime();
        if (rank == 0) {
            MPI_Send(buf, (int)bytes, MPI_BYTE, 1, 0, WORLD);
            MPI_Recv(buf, (int)bytes, MPI_BYTE, 1, 0, WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(buf, (int)bytes, MPI_BYTE, 0, 0, WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, (int)bytes, MPI_BYTE, 0, 0, WORLD);
        }
        double t = (MPI_Wtime() - t0) / 2;
        best = t < best ? t : best;
    }
    MPI_Bcast(&best, 1, MPI_DOUBLE, 0, WORLD);
    return best;
}

/* t_s and t_w from two ping-pongs (0 on one rank; t_w clamped at 0 against noise). */
static void calibrate(int rank, int p, model *md)
{
    md->ts = md->tw = 0;
    if (p < 2)
        return;
    int64_t big = (int64_t)1 << 22; /* bytes: 4 MB */
    char *buf = calloc((size_t)big, 1);
    md->ts = pingpong(rank, 0, buf);
    md->tw = (pingpong(rank, big, buf) - md->ts) / (double)big;
    md->tw = md->tw > 0 ? md->tw : 0;
    free(buf);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    bench b = {0};
    model md = {.reps = 20};
    MPI_Comm_rank(WORLD, &b.rank);
    MPI_Comm_size(WORLD, &b.p);
    int unchecked = 0, sizes = 2;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
            md.reps = atoi(argv[i + 1]) > 0 ? atoi(argv[i + 1]) : 1;
            i++;
        } else if (!strcmp(argv[i], "--batch") && i + 1 < argc) {
            batch = atoi(argv[i + 1]) > 0 ? atoi(argv[i + 1]) : 1;
            i++;
        } else if (!strcmp(argv[i], "--unchecked")) {
            unchecked = 1;
        } else if (!strcmp(argv[i], "--small")) {
            sizes = 1;
        }
    }
    if (unchecked && redist_coll_set_checking(WORLD, 0) != REDIST_SUCCESS)
        MPI_Abort(WORLD, 1); /* a benchmark, not the library */
    calibrate(b.rank, b.p, &md);
    if (b.rank == 0)
        printf("bench_coll: %d ranks; calibrated t_s = %.2f us, t_w = %.3f ns/byte; argument "
               "agreement %s\n",
               b.p, md.ts * 1e6, md.tw * 1e9, unchecked ? "off" : "on");
    const int64_t counts[] = {1, 1 << 16};
    size_t most = (size_t)b.p * (size_t)counts[1];
    b.in = calloc(most, sizeof *b.in);
    b.out = calloc(most, sizeof *b.out);
    for (size_t i = 0; i < most; i++)
        b.in[i] = (double)(i % 7);
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
        b.q = ops[o].shift < 0 ? b.p / 2 : 1;
        if (ops[o].shift < 0 && b.q <= 1)
            continue; /* q = p/2 would repeat q = 1 */
        for (int s = 0; s < sizes; s++) {
            b.n = counts[s];
            bench_case(&ops[o], &b, &md);
        }
    }
    free(b.in);
    free(b.out);
    MPI_Finalize();
    return 0;
}
