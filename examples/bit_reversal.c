/* bit_reversal: the bit-reversal permutation of a distributed vector, for people who write
 * their own parallel FFTs (radix-2 Cooley-Tukey leaves its output in bit-reversed order) or
 * other permutations of the index bits (transposes of 2^a x 2^b matrices, Gray codes,
 * perfect shuffles).
 *
 * A vector of N = 2^n doubles lies in blocks on P = 2^p ranks: rank r holds elements
 * r N/P ... (r + 1) N/P - 1. The element at index x moves to index y = x with its n bits in
 * reverse order. That is a BMMC permutation, y = A x xor c over GF(2) (Cormen, "Performing
 * BMMC permutations efficiently on distributed-memory multiprocessors with MPI", [Cor97] in
 * docs/references.md): redist_bmmc_bit_reversal builds the n x n bit matrix A,
 * redist_plan_create_bmmc factors it once, and each execute sends every element straight to
 * its final place (in 2^p rounds for bit reversal when p <= n - p; no indices travel).
 * Executing the plan a second time, from the result, gives the original vector back.
 *
 * A BMMC plan needs a power-of-two number of ranks: on other counts this example runs on the
 * largest power of two and the remaining ranks hold nothing and sit it out.
 *
 *     mpiexec -n 4 build/examples/bit_reversal [-n BITS]     (N = 2^BITS, default 2^12)
 */
#include <redist.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check(int rc, const char *what)
{
    if (rc == REDIST_SUCCESS)
        return;
    fprintf(stderr, "bit_reversal: %s: %s (%s)\n", what, redist_strerror(rc),
            redist_last_error_detail());
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* The n-bit reversal of x, the slow way: the reference the result is checked against. */
static uint64_t reverse_bits(uint64_t x, int n)
{
    uint64_t y = 0;
    for (int i = 0; i < n; i++)
        y |= ((x >> i) & 1) << (n - 1 - i);
    return y;
}

/* Counts the elements of a (this rank's block, from global index first) that are not
   expected(global index). */
static int64_t count_wrong(const double *a, int64_t count, uint64_t first, int n, int reversed)
{
    int64_t wrong = 0;
    for (int64_t l = 0; l < count; l++) {
        uint64_t y = first + (uint64_t)l;
        wrong += a[l] != (double)(reversed ? reverse_bits(y, n) : y);
    }
    return wrong;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int world_rank, world_size;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    int n = 12;
    int ok = argc == 1 || (argc == 3 && strcmp(argv[1], "-n") == 0);
    if (argc == 3)
        n = atoi(argv[2]);
    if (!ok || n < 0 || n > 40) {
        if (world_rank == 0)
            fprintf(stderr, "usage: %s [-n BITS]   (0 <= BITS <= 40)\n", argv[0]);
        MPI_Finalize();
        return 2;
    }

    /* The largest power of two P <= world size takes part; the others are left out of comm. */
    int p = 0;
    while ((2 << p) <= world_size)
        p++;
    int P = 1 << p;
    MPI_Comm comm;
    MPI_Comm_split(MPI_COMM_WORLD, world_rank < P ? 0 : MPI_UNDEFINED, world_rank, &comm);

    int64_t wrong = 0;
    if (comm != MPI_COMM_NULL) {
        int rank;
        MPI_Comm_rank(comm, &rank);
        /* n < p (fewer elements than ranks) is REDIST_ERR_ARG from the plan; count is then
           only used for the allocation. */
        int64_t count = n >= p ? (int64_t)1 << (n - p) : 0;
        uint64_t first = (uint64_t)rank * (uint64_t)count; /* global index of local element 0 */

        /* The permutation: A such that y = A x. Bit i of A[j] is A's entry (i, j). */
        uint64_t A[64];
        check(redist_bmmc_bit_reversal(n, A), "redist_bmmc_bit_reversal");

        /* The layout: f is the position of the processor bits in the index. f = n - p puts
           them on top: element x on rank x >> (n - p), i.e. contiguous blocks (f = 0 would
           deal the elements out cyclically). */
        int f = n - p;
        redist_plan plan;
        check(redist_plan_create_bmmc(n, f, A, 0, MPI_DOUBLE, comm, NULL, &plan),
              "redist_plan_create_bmmc");

        double *a = malloc((size_t)(count + 1) * sizeof *a);
        double *b = malloc((size_t)(count + 1) * sizeof *b);
        if (a == NULL || b == NULL)
            check(REDIST_ERR_NOMEM, "malloc");
        for (int64_t l = 0; l < count; l++)
            a[l] = (double)(first + (uint64_t)l); /* each element holds its global index */

        check(redist_execute(plan, a, b), "redist_execute");
        /* Element y of the result came from element x = reverse(y): it holds reverse(y). */
        wrong += count_wrong(b, count, first, n, 1);
        for (int64_t l = 0; l < count; l++)
            a[l] = -1.0;
        check(redist_execute(plan, b, a), "redist_execute"); /* reversing twice: identity */
        wrong += count_wrong(a, count, first, n, 0);

        redist_stats st;
        check(redist_plan_stats(plan, &st), "redist_plan_stats");
        if (rank == 0)
            printf("bit_reversal: 2^%d doubles on %d of %d rank(s): %s, %d round(s), "
                   "%lld message(s) per rank\n",
                   n, P, world_size, redist_plan_algorithm(plan), st.steps,
                   (long long)st.max_messages_per_rank);
        check(redist_plan_free(&plan), "redist_plan_free");
        free(a);
        free(b);
        MPI_Comm_free(&comm);
    }

    MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (world_rank == 0) {
        if (wrong == 0)
            printf("bit_reversal: verified: every element right, reversed and back (%lld "
                   "elements)\n",
                   (long long)1 << n);
        else
            printf("bit_reversal: FAILED: %lld wrong elements\n", (long long)wrong);
    }
    MPI_Finalize();
    return wrong == 0 ? 0 : 1;
}
