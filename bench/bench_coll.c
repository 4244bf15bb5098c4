/* bench_coll: the basic communication operations (paper 002) against the MPI library's own
 * collectives, and measured against predicted with t_s and t_w calibrated in the same run.
 *
 *   mpirun -np P build/bench_coll [--reps 20]
 *
 * t_s is half a zero-byte ping-pong between ranks 0 and 1, t_w the per-byte slope of a 4 MB
 * ping-pong. Each (operation, algorithm, size) prints Tmed (slowest rank), the ratio to the
 * MPI collective, and the slides' predicted time where the formula is simple. */
#include <redist.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef int (*op_fn)(void *buf, void *out, int64_t count, const char *alg);

static int do_bcast(void *b, void *o, int64_t n, const char *alg)
{
    (void)o;
    return alg ? redist_bcast(b, n, MPI_DOUBLE, 0, MPI_COMM_WORLD, alg)
               : MPI_Bcast(b, (int)n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
}
static int do_allreduce(void *b, void *o, int64_t n, const char *alg)
{
    return alg ? redist_allreduce(b, o, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, alg)
               : MPI_Allreduce(b, o, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}
static int do_allgather(void *b, void *o, int64_t n, const char *alg)
{
    return alg ? redist_allgather(b, o, n, MPI_DOUBLE, MPI_COMM_WORLD, alg)
               : MPI_Allgather(b, (int)n, MPI_DOUBLE, o, (int)n, MPI_DOUBLE, MPI_COMM_WORLD);
}
static int do_alltoall(void *b, void *o, int64_t n, const char *alg)
{
    return alg ? redist_alltoall(b, o, n, MPI_DOUBLE, MPI_COMM_WORLD, alg)
               : MPI_Alltoall(b, (int)n, MPI_DOUBLE, o, (int)n, MPI_DOUBLE, MPI_COMM_WORLD);
}

static double timed(op_fn f, void *b, void *o, int64_t n, const char *alg, int reps)
{
    double *t = malloc((size_t)reps * sizeof *t);
    f(b, o, n, alg);
    for (int i = 0; i < reps; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        f(b, o, n, alg);
        double mine = MPI_Wtime() - t0;
        MPI_Allreduce(&mine, &t[i], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }
    qsort(t, (size_t)reps, sizeof *t, cmp);
    double med = t[reps / 2];
    free(t);
    return med;
}

/* Half the round trip of a message of `bytes` between ranks 0 and 1 (others idle). */
static double pingpong(int rank, int64_t bytes, char *buf)
{
    double best = 1e30;
    for (int r = 0; r < 20; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (rank == 0) {
            MPI_Send(buf, (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(buf, (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(buf, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        }
        double t = (MPI_Wtime() - t0) / 2;
        best = t < best ? t : best;
    }
    MPI_Bcast(&best, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return best;
}

typedef struct op_case {
    const char *name;
    op_fn fn;
    const char *algs[5];
    int out_blocks; /* output size in blocks: 1 or p */
} op_case;

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, P, reps = 20;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    for (int i = 1; i + 1 < argc; i += 2)
        if (!strcmp(argv[i], "--reps"))
            reps = atoi(argv[i + 1]);
    int64_t big = 1 << 19; /* doubles: 4 MB */
    char *pp = calloc((size_t)big * 8, 1);
    double ts = P > 1 ? pingpong(rank, 0, pp) : 0, tw = 0;
    if (P > 1)
        tw = (pingpong(rank, big * 8, pp) - ts) / (double)(big * 8);
    if (rank == 0)
        printf("bench_coll: %d ranks; calibrated t_s = %.2f us, t_w = %.3f ns/byte\n", P, ts * 1e6,
               tw * 1e9);
    op_case ops[] = {
        {"bcast", do_bcast, {"tree", "ring", "mesh", "scatter-allgather", NULL}, 1},
        {"allreduce",
         do_allreduce,
         {"hypercube", "reduce-bcast", "reduce_scatter-allgather", NULL},
         1},
        {"allgather", do_allgather, {"ring", "mesh", "hypercube", NULL}, 0},
        {"alltoall", do_alltoall, {"ring", "mesh", "hypercube", "pairwise", NULL}, 0},
    };
    int64_t counts[] = {1, 1 << 16};
    double lg = ceil(log2((double)P));
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
        for (int s = 0; s < 2; s++) {
            int64_t n = counts[s];
            double m = (double)n * 8;
            size_t in = (size_t)n * (ops[o].fn == do_alltoall ? (size_t)P : 1);
            size_t out = (size_t)n * (ops[o].out_blocks ? 1 : (size_t)P);
            double *b = calloc(in + 1, 8), *r = calloc(out + 1, 8);
            double ref = timed(ops[o].fn, b, r, n, NULL, reps);
            if (rank == 0)
                printf("%s, %lld doubles per block: MPI %.1f us\n", ops[o].name, (long long)n,
                       ref * 1e6);
            for (int a = 0; ops[o].algs[a]; a++) {
                double t = timed(ops[o].fn, b, r, n, ops[o].algs[a], reps);
                /* The slides' formulas for the simple cases. */
                double pred = -1;
                if (!strcmp(ops[o].name, "bcast") && !strcmp(ops[o].algs[a], "tree"))
                    pred = (ts + tw * m) * lg;
                if (!strcmp(ops[o].name, "allgather") && !strcmp(ops[o].algs[a], "ring"))
                    pred = (ts + tw * m) * (P - 1);
                if (!strcmp(ops[o].name, "allgather") && !strcmp(ops[o].algs[a], "hypercube"))
                    pred = ts * lg + tw * m * (P - 1);
                if (!strcmp(ops[o].name, "alltoall") && !strcmp(ops[o].algs[a], "pairwise"))
                    pred = (ts + tw * m) * (P - 1);
                if (!strcmp(ops[o].name, "allreduce") && !strcmp(ops[o].algs[a], "hypercube"))
                    pred = (ts + tw * m) * lg;
                if (rank == 0) {
                    printf("  %-26s %9.1f us  x%.2f of MPI", ops[o].algs[a], t * 1e6, t / ref);
                    if (pred >= 0)
                        printf("   predicted %9.1f us", pred * 1e6);
                    printf("\n");
                }
            }
            free(b);
            free(r);
        }
    free(pp);
    MPI_Finalize();
    return 0;
}
