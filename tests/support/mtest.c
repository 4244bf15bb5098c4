#include "support/mtest.h"

#include <mpi.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int64_t mtest_global_of(int64_t l, int64_t b, int P, int first, int c)
{
    int64_t rel = ((c - first) % P + P) % P; /* c's place after the first block's owner */
    return (l / b) * b * P + rel * b + l % b;
}

int64_t mtest_global_linear(int nd, const int64_t n[], const int64_t block[], const int grid[],
                            const int first[], int order, const int64_t shape[], const int coords[],
                            int64_t i)
{
    int64_t g = 0, rem = i;
    int64_t li[16];
    for (int j = 0; j < nd; j++) {           /* the fastest dimension first */
        int k = order == 0 ? nd - 1 - j : j; /* REDIST_ROW_MAJOR is 0 */
        li[k] = rem % shape[k];
        rem /= shape[k];
    }
    for (int k = 0; k < nd; k++)
        g = g * n[k] + mtest_global_of(li[k], block[k], grid[k], first ? first[k] : 0, coords[k]);
    return g;
}

int mtest_all_same(int v)
{
    int mn, mx;
    MPI_Allreduce(&v, &mn, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&v, &mx, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return mn == mx;
}

static int is_block(int64_t n, int64_t b, int P)
{
    return P == 1 || b >= (n + P - 1) / P;
}

int mtest_sections_apply(const char *name, int nd, const int64_t n[], const int64_t xb[],
                         const int xg[], const int64_t yb[], const int yg[])
{
    static const char *const names[] = {"block-to-block", "block-to-cyclic", "cyclic-to-block",
                                        "tk-to-k", "k-to-tk"};
    int which = -1;
    for (int i = 0; i < 5; i++)
        if (strcmp(name, names[i]) == 0)
            which = i;
    if (which < 0)
        return -1;
    for (int k = 0; k < nd; k++) {
        if (n[k] == 0)
            continue;
        int bs = is_block(n[k], xb[k], xg[k]), bd = is_block(n[k], yb[k], yg[k]);
        int ok[5] = {bs && bd, bs, bd, xb[k] % yb[k] == 0, yb[k] % xb[k] == 0};
        if (!ok[which])
            return 0;
    }
    return 1;
}

void mtest_fail(int *errs, int rank, const char *what, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("[rank %d] %s: ", rank, what);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
    ++*errs;
}

int mtest_finalize(int errs)
{
    int total = 0, rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Allreduce(&errs, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        if (total == 0)
            printf(" No Errors\n");
        else
            printf(" Found %d errors\n", total);
    }
    MPI_Finalize();
    return total != 0;
}

int64_t mtest_rand(uint64_t *state, int64_t lo, int64_t hi)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *state = x;
    return lo + (int64_t)(x % (uint64_t)(hi - lo + 1));
}

void mtest_case_args(int argc, char **argv, uint64_t *seed, int *cases, int *only)
{
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--seed") == 0)
            *seed = strtoull(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--cases") == 0)
            *cases = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--case") == 0)
            *only = atoi(argv[i + 1]);
    }
}

const char *mtest_variant(int v, redist_options *opt)
{
    int nalg = redist_algorithm_count();
    const char *name = v < 0 || v == nalg ? "auto"
                       : v < nalg         ? redist_algorithm_name(v)
                                          : "direct-async";
    redist_options_init(opt);
    opt->algorithm = name;
    if (v == nalg)
        opt->max_buffer_bytes = 64; /* a few elements per chunk */
    if (v == nalg + 1)
        opt->transport = REDIST_TRANSPORT_DATATYPE;
    if (v > nalg + 1)
        opt->transport = REDIST_TRANSPORT_PACK;
    if (v == nalg + 3)
        opt->shared_memory = 0;
    return name;
}

int mtest_random_grid(uint64_t *state, int nranks, int maxp, int nd, int ranks[], int grid[])
{
    int n = nranks < maxp ? nranks : maxp, p = (int)mtest_rand(state, 1, n);
    for (int i = 0; i < n; i++)
        ranks[i] = i;
    for (int i = n - 1; i > 0; i--) { /* a random subset, in random order */
        int j = (int)mtest_rand(state, 0, i), t = ranks[i];
        ranks[i] = ranks[j];
        ranks[j] = t;
    }
    for (int k = 0; k < nd; k++)
        grid[k] = 1;
    for (int left = p, k = 0; left > 1; k = (k + 1) % nd) { /* p's factors, round robin */
        int f = 2;
        while (left % f)
            f++;
        grid[k] *= f;
        left /= f;
    }
    return p;
}

int mtest_coords_of(const int ranks[], int nprocs, const int grid[], int nd, int rank, int coords[])
{
    for (int pos = 0; pos < nprocs; pos++)
        if (ranks[pos] == rank) {
            for (int k = nd - 1; k >= 0; k--) {
                coords[k] = pos % grid[k];
                pos /= grid[k];
            }
            return 1;
        }
    return 0;
}

/* The whole report, written at once by the handler (write is async-signal-safe). */
static char watchdog_line[640];
static size_t watchdog_len;

static void on_watchdog(int sig)
{
    (void)sig;
    ssize_t ignored = write(STDOUT_FILENO, watchdog_line, watchdog_len);
    (void)ignored;
    _exit(1);
}

void mtest_watchdog(int seconds, int rank, const char *fmt, ...)
{
    static int installed;
    alarm(0);
    if (seconds <= 0)
        return;
    if (!installed) {
        signal(SIGALRM, on_watchdog);
        installed = 1;
    }
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    int n = snprintf(watchdog_line, sizeof watchdog_line,
                     "[rank %d] no return after %d s (hang) in: %s\n", rank, seconds, what);
    watchdog_len = n < 0                              ? 0
                   : (size_t)n < sizeof watchdog_line ? (size_t)n
                                                      : sizeof watchdog_line - 1;
    alarm((unsigned)seconds);
}

int mtest_fresh_comm_index(void)
{
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_SELF, &c);
    int index = (int)MPI_Comm_c2f(c);
    MPI_Comm_free(&c);
    return index;
}

int mtest_fresh_type_index(void)
{
    MPI_Datatype t;
    MPI_Type_contiguous(2, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    int index = (int)MPI_Type_c2f(t);
    MPI_Type_free(&t);
    return index;
}
