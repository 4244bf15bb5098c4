/* corner_turn: the corner turn of radar signal processing, for people who write
 * pulse-Doppler, STAP or SAR pipelines on MPI.
 *
 * A coherent processing interval is a data cube of PULSES x GATES complex samples (slow time
 * x fast time, one channel here), single-precision complex (MPI_C_FLOAT_COMPLEX), stored
 * row-major: each pulse's range gates are contiguous. It arrives pulse by pulse, the pulses
 * dealt to the P ranks cyclic(x), x pulses at a time, so each rank holds whole pulses to
 * pulse-compress. Two redistributions follow, each one plan:
 *
 *  1. cyclic(x) -> cyclic(K x) along the pulses, on the same ranks, e.g. to hand a later
 *     stage runs of K x consecutive pulses: the x -> Kx case of Thakur, Choudhary and
 *     Ramanujam's "Efficient algorithms for array redistribution" ([TCR96],
 *     docs/references.md). One plan lets the cost model choose the algorithm ("auto"); a
 *     second forces the paper's X_TO_KX algorithm through redist_options.algorithm.
 *  2. The corner turn proper: from whole pulses per rank to whole range gates per rank
 *     (blocks of gates), transposed by redist_options.permutation so that each gate's
 *     slow-time series is contiguous, ready for the Doppler FFT.
 *
 * Sample (pulse, gate) holds pulse + i gate, so every rank checks every element it
 * receives.
 *
 *     mpiexec -n 4 build/examples/corner_turn [-n PULSESxGATES] [-x X] [-k K]
 */
#include <redist.h>

#include <complex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check(int rc, const char *what)
{
    if (rc == REDIST_SUCCESS)
        return;
    fprintf(stderr, "corner_turn: %s: %s (%s)\n", what, redist_strerror(rc),
            redist_last_error_detail());
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static float complex sample(int64_t pulse, int64_t gate)
{
    return (float)pulse + (float)gate * I;
}

/* Global index of local index l along a dimension distributed cyclic(b) over P ranks, on the
   rank at coordinate c (first block on coordinate 0): blocks of b are dealt round-robin. */
static int64_t global_index(int64_t l, int64_t b, int P, int c)
{
    return (l / b) * b * P + (int64_t)c * b + l % b;
}

/* A layout whose local array is allocated, with this rank's shape and coordinates. */
typedef struct {
    redist_layout layout;
    int64_t shape[2];
    int coords[2];
    float complex *a;
} distributed;

static void distribute(distributed *d, const int64_t extent[2], const int64_t block[2],
                       const int grid[2], int rank)
{
    check(redist_layout_create(2, extent, block, grid, NULL, NULL, REDIST_ROW_MAJOR, &d->layout),
          "redist_layout_create");
    check(redist_layout_local_shape(d->layout, rank, d->shape), "redist_layout_local_shape");
    redist_layout_coords(d->layout, rank, d->coords);
    d->a = malloc((size_t)(d->shape[0] * d->shape[1] + 1) * sizeof *d->a);
    if (d->a == NULL)
        check(REDIST_ERR_NOMEM, "malloc");
}

/* The pulses, distributed cyclic(b) over the ranks, each pulse's gates on its rank. */
static void pulses_cyclic(distributed *d, int64_t pulses, int64_t gates, int64_t b, int P, int rank)
{
    distribute(d, (int64_t[]){pulses, gates}, (int64_t[]){b, gates > 0 ? gates : 1}, (int[]){P, 1},
               rank);
}

/* Counts the wrong samples of pulses distributed cyclic(b) (or fills them, fill = 1). */
static int64_t check_pulses(distributed *d, int64_t b, int P, int fill)
{
    int64_t wrong = 0;
    for (int64_t l = 0; l < d->shape[0]; l++) {
        int64_t pulse = global_index(l, b, P, d->coords[0]);
        for (int64_t gate = 0; gate < d->shape[1]; gate++) {
            float complex *s = &d->a[l * d->shape[1] + gate];
            if (fill)
                *s = sample(pulse, gate);
            else
                wrong += *s != sample(pulse, gate);
        }
    }
    return wrong;
}

/* Plans src -> dst with the given options (NULL: the defaults), executes the plan once and
   says which algorithm it runs (rank 0). The caller checks dst. */
static redist_plan plan(distributed *src, distributed *dst, const redist_options *opt,
                        const char *what, int rank)
{
    redist_plan p;
    check(
        redist_plan_create(src->layout, dst->layout, MPI_C_FLOAT_COMPLEX, MPI_COMM_WORLD, opt, &p),
        what);
    check(redist_execute(p, src->a, dst->a), "redist_execute");
    redist_stats st;
    check(redist_plan_stats(p, &st), "redist_plan_stats");
    if (rank == 0)
        printf("  %s: %s, %d step(s), at most %lld message(s) per rank\n", what,
               redist_plan_algorithm(p), st.steps, (long long)st.max_messages_per_rank);
    return p;
}

static int usage(int rank, const char *prog)
{
    if (rank == 0)
        fprintf(stderr, "usage: %s [-n PULSESxGATES] [-x X] [-k K]\n", prog);
    MPI_Finalize();
    return 2;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);

    long long pulses = 128, gates = 100, x = 2, K = 4;
    for (int i = 1; i < argc; i += 2) {
        if (i + 1 >= argc)
            return usage(rank, argv[0]);
        if (strcmp(argv[i], "-n") == 0 && sscanf(argv[i + 1], "%lldx%lld", &pulses, &gates) == 2)
            continue;
        if (strcmp(argv[i], "-x") == 0)
            x = atoll(argv[i + 1]);
        else if (strcmp(argv[i], "-k") == 0)
            K = atoll(argv[i + 1]);
        else
            return usage(rank, argv[0]);
    }
    /* Indices are exact in a float up to 2^24. */
    if (pulses < 0 || gates < 0 || pulses > (1 << 24) || gates > (1 << 24) || x < 1 || K < 1)
        return usage(rank, argv[0]);
    if (rank == 0)
        printf("corner_turn: %lld pulses x %lld range gates on %d rank(s), cyclic(%lld) -> "
               "cyclic(%lld) -> blocks of gates\n",
               pulses, gates, P, x, K * x);

    /* The cube as it arrives: cyclic(x) over the pulses. */
    distributed in, out, forced, turned;
    pulses_cyclic(&in, pulses, gates, x, P, rank);
    check_pulses(&in, x, P, 1);

    /* 1. cyclic(x) -> cyclic(K x): the cost model picks the algorithm ... Each rank's blocks
       of x go to at most K ranks, so a rank sends at most min(K, P - 1) messages. */
    int64_t wrong = 0;
    pulses_cyclic(&out, pulses, gates, K * x, P, rank);
    redist_plan p_auto = plan(&in, &out, NULL, "cyclic(x) -> cyclic(Kx), auto", rank);
    wrong += check_pulses(&out, K * x, P, 0);

    /* ... or the caller names one. "x-to-kx" applies here (same ranks and grid, the new block
       a multiple of the old one); where it does not, the plan returns
       REDIST_ERR_NOT_APPLICABLE on every rank. */
    redist_options opt;
    redist_options_init(&opt);
    opt.algorithm = "x-to-kx";
    pulses_cyclic(&forced, pulses, gates, K * x, P, rank);
    redist_plan p_forced = plan(&in, &forced, &opt, "cyclic(x) -> cyclic(Kx), forced", rank);
    wrong += check_pulses(&forced, K * x, P, 0);

    /* 2. The corner turn: the destination is the transposed cube, GATES x PULSES, in blocks
       of gates over the ranks; permutation {1, 0}: its dimension 0 is the source's 1. */
    int64_t per_rank = gates > 0 ? (gates + P - 1) / P : 1;
    distribute(&turned, (int64_t[]){gates, pulses}, (int64_t[]){per_rank, pulses > 0 ? pulses : 1},
               (int[]){P, 1}, rank);
    redist_options_init(&opt);
    opt.permutation = (int[]){1, 0};
    redist_plan p_turn = plan(&out, &turned, &opt, "corner turn (transpose)", rank);
    for (int64_t l = 0; l < turned.shape[0]; l++) {
        int64_t gate = (int64_t)turned.coords[0] * per_rank + l; /* a block of gates per rank */
        for (int64_t pulse = 0; pulse < turned.shape[1]; pulse++)
            wrong += turned.a[l * turned.shape[1] + pulse] != sample(pulse, gate);
    }

    MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        if (wrong == 0)
            printf("corner_turn: verified: every sample right after all three plans (%lld "
                   "samples each)\n",
                   pulses * gates);
        else
            printf("corner_turn: FAILED: %lld wrong samples\n", (long long)wrong);
    }

    check(redist_plan_free(&p_auto), "redist_plan_free");
    check(redist_plan_free(&p_forced), "redist_plan_free");
    check(redist_plan_free(&p_turn), "redist_plan_free");
    distributed *all[4] = {&in, &out, &forced, &turned};
    for (int k = 0; k < 4; k++) {
        redist_layout_free(&all[k]->layout);
        free(all[k]->a);
    }
    MPI_Finalize();
    return wrong == 0 ? 0 : 1;
}
