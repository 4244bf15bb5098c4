/* nprocs: 1 3 */
/* The layout queries (local shape, local size, coordinates, ndims, nprocs) against brute
 * force, for random small layouts over a 20-rank "virtual" communicator (the queries take a
 * rank and do not communicate), plus huge extents against a closed form. The MPI ranks split
 * the cases between them.
 *
 * Checked per layout: every global index is owned by exactly one rank, at a local offset that
 * lies inside that rank's local shape and is hit by no other index (so each local array is
 * dense); local shapes match the formula; local sizes are the shapes' products and sum to the
 * global size; ranks outside the layout hold nothing and have no coordinates.
 * Options: --seed S, --cases C. Output: " No Errors" or " Found N errors".
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redist.h"
#include "support/mtest.h"

#define MAXD 4
#define VRANKS 20 /* size of the virtual communicator */
#define EXTRA 5   /* ranks VRANKS..VRANKS+EXTRA-1 are queried too (never in a layout) */

static int rank, size, errs, printed;

typedef struct {
    int ndims;
    int64_t extent[MAXD], block[MAXD];
    int grid[MAXD], first[MAXD], ranks[VRANKS];
    int has_first, has_ranks, order, nprocs;
} lay_t;

#define FAIL(L, ...)                                                                               \
    do {                                                                                           \
        if (printed++ < 50) {                                                                      \
            printf("[rank %d] ", rank);                                                            \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
            print_layout(L);                                                                       \
            fflush(stdout);                                                                        \
        }                                                                                          \
        errs++;                                                                                    \
    } while (0)

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static int64_t rnd(uint64_t *s, int64_t lo, int64_t hi)
{
    return hi <= lo ? lo : lo + (int64_t)(rng_next(s) % (uint64_t)(hi - lo + 1));
}

static void print_layout(const lay_t *L)
{
    printf("  layout: ndims=%d extent=[", L->ndims);
    for (int k = 0; k < L->ndims; k++)
        printf("%s%lld", k ? "," : "", (long long)L->extent[k]);
    printf("] block=[");
    for (int k = 0; k < L->ndims; k++)
        printf("%s%lld", k ? "," : "", (long long)L->block[k]);
    printf("] grid=[");
    for (int k = 0; k < L->ndims; k++)
        printf("%s%d", k ? "," : "", L->grid[k]);
    printf("] first=");
    if (L->has_first) {
        printf("[");
        for (int k = 0; k < L->ndims; k++)
            printf("%s%d", k ? "," : "", L->first[k]);
        printf("]");
    } else
        printf("NULL");
    printf(" ranks=");
    if (L->has_ranks) {
        printf("[");
        for (int i = 0; i < L->nprocs; i++)
            printf("%s%d", i ? "," : "", L->ranks[i]);
        printf("]");
    } else
        printf("NULL");
    printf(" order=%s\n", L->order == REDIST_ROW_MAJOR ? "row" : "col");
}

static int fst(const lay_t *L, int k)
{
    return L->has_first ? L->first[k] : 0;
}
static int coord_of(const lay_t *L, int k, int64_t g)
{
    return (int)(((g / L->block[k]) + fst(L, k)) % L->grid[k]);
}
static int64_t local_of(const lay_t *L, int k, int64_t g)
{
    return (g / (L->block[k] * L->grid[k])) * L->block[k] + g % L->block[k];
}
/* Position of rank r in the rank list, or -1. */
static int position(const lay_t *L, int r)
{
    for (int i = 0; i < L->nprocs; i++)
        if (L->ranks[i] == r)
            return i;
    return -1;
}
/* Elements along dimension k on coordinate c, closed form: full blocks j < n/b with
   j = c' (mod p), c' = (c - first) mod p, plus the partial last block if it lands on c. */
static int64_t closed_count(int64_t n, int64_t b, int p, int first, int c)
{
    int64_t cc = (((int64_t)c - first) % p + p) % p, nb = n / b, rem = n % b;
    int64_t full = nb > cc ? (nb - cc - 1) / p + 1 : 0;
    return full * b + (nb % p == cc ? rem : 0);
}

static void gen_layout(uint64_t *s, lay_t *L)
{
    memset(L, 0, sizeof *L);
    L->ndims = (int)rnd(s, 1, MAXD);
    int64_t maxe = L->ndims == 1 ? 200 : L->ndims == 2 ? 60 : L->ndims == 3 ? 16 : 7;
    int nprocs = (int)rnd(s, 1, VRANKS);
    for (int k = 0; k < L->ndims; k++)
        L->grid[k] = 1;
    for (int f = 2, n = nprocs; n > 1; f++)
        while (n % f == 0) {
            L->grid[rnd(s, 0, L->ndims - 1)] *= f;
            n /= f;
        }
    L->nprocs = nprocs;
    for (int k = 0; k < L->ndims; k++) {
        L->block[k] = rnd(s, 0, 9) < 8 ? rnd(s, 1, 9) : rnd(s, 10, 300);
        int64_t pb = L->block[k] * L->grid[k];
        switch (rnd(s, 0, 5)) {
        case 0:
            L->extent[k] = rnd(s, 0, 1);
            break;
        case 1:
            L->extent[k] = pb + rnd(s, -1, 1);
            break;
        case 2:
            L->extent[k] = L->block[k] + rnd(s, -1, 1);
            break;
        default:
            L->extent[k] = rnd(s, 0, maxe);
        }
        if (L->extent[k] < 0)
            L->extent[k] = 0;
        if (L->extent[k] > maxe)
            L->extent[k] = rnd(s, 0, maxe);
        L->first[k] = (int)rnd(s, 0, L->grid[k] - 1);
    }
    L->has_first = rnd(s, 0, 9) < 7;
    L->has_ranks = rnd(s, 0, 9) < 8;
    int perm[VRANKS];
    for (int i = 0; i < VRANKS; i++)
        perm[i] = i;
    for (int i = VRANKS - 1; i > 0; i--) {
        int j = (int)rnd(s, 0, i), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (int i = 0; i < nprocs; i++)
        L->ranks[i] = L->has_ranks ? perm[i] : i;
    L->order = rnd(s, 0, 1) ? REDIST_COL_MAJOR : REDIST_ROW_MAJOR;
}

static void check_layout(const lay_t *L)
{
    redist_layout lay = NULL;
    int rc =
        redist_layout_create(L->ndims, L->extent, L->block, L->grid, L->has_first ? L->first : NULL,
                             L->has_ranks ? L->ranks : NULL, L->order, &lay);
    if (rc != REDIST_SUCCESS || lay == NULL) {
        FAIL(L, "redist_layout_create returned %d (%s)", rc, redist_strerror(rc));
        return;
    }
    int d = L->ndims;
    if (redist_layout_ndims(lay) != d)
        FAIL(L, "redist_layout_ndims = %d, expected %d", redist_layout_ndims(lay), d);
    if (redist_layout_nprocs(lay) != L->nprocs)
        FAIL(L, "redist_layout_nprocs = %d, expected %d", redist_layout_nprocs(lay), L->nprocs);

    /* Per rank: library shape, size and coordinates against the formula. */
    int64_t shapes[VRANKS + EXTRA][MAXD], sizes[VRANKS + EXTRA], sum = 0;
    for (int r = 0; r < VRANKS + EXTRA; r++) {
        int64_t shape[MAXD], count = -1;
        int coords[MAXD], pos = position(L, r), want_c[MAXD];
        for (int k = 0; k < MAXD; k++)
            shape[k] = -7;
        rc = redist_layout_local_shape(lay, r, shape);
        if (rc != REDIST_SUCCESS)
            FAIL(L, "local_shape(rank %d) returned %d", r, rc);
        rc = redist_layout_local_size(lay, r, &count);
        if (rc != REDIST_SUCCESS)
            FAIL(L, "local_size(rank %d) returned %d", r, rc);
        int in = redist_layout_coords(lay, r, coords);
        if (in != (pos >= 0))
            FAIL(L, "coords(rank %d) returned %d, expected %d", r, in, pos >= 0);
        int64_t prod = 1;
        for (int k = d - 1, idx = pos; k >= 0; k--) {
            want_c[k] = pos >= 0 ? idx % L->grid[k] : 0;
            if (pos >= 0)
                idx /= L->grid[k];
        }
        for (int k = 0; k < d; k++) {
            int64_t want = 0;
            if (pos >= 0) {
                for (int64_t g = 0; g < L->extent[k]; g++)
                    want += coord_of(L, k, g) == want_c[k];
                int64_t cf =
                    closed_count(L->extent[k], L->block[k], L->grid[k], fst(L, k), want_c[k]);
                if (cf != want)
                    FAIL(L, "test's closed form %lld != brute force %lld (dim %d)", (long long)cf,
                         (long long)want, k);
                if (in == 1 && coords[k] != want_c[k])
                    FAIL(L, "coords(rank %d)[%d] = %d, expected %d", r, k, coords[k], want_c[k]);
            }
            if (shape[k] != want)
                FAIL(L, "local_shape(rank %d)[%d] = %lld, expected %lld", r, k, (long long)shape[k],
                     (long long)want);
            shapes[r][k] = want;
            prod *= want;
        }
        if (count != prod)
            FAIL(L, "local_size(rank %d) = %lld, expected %lld", r, (long long)count,
                 (long long)prod);
        sizes[r] = prod;
        sum += prod;
    }
    int64_t total = 1;
    for (int k = 0; k < d; k++)
        total *= L->extent[k];
    if (sum != total)
        FAIL(L, "local sizes sum to %lld, global size %lld", (long long)sum, (long long)total);

    /* Every global index: owned by one rank, at a distinct in-range local offset. */
    char *hit[VRANKS];
    for (int r = 0; r < VRANKS; r++)
        hit[r] = calloc((size_t)(sizes[r] > 0 ? sizes[r] : 1), 1);
    for (int64_t lin = 0; lin < total; lin++) {
        int64_t g[MAXD], rest = lin, l[MAXD];
        for (int k = d - 1; k >= 0; k--) {
            g[k] = rest % L->extent[k];
            rest /= L->extent[k];
        }
        int idx = 0;
        for (int k = 0; k < d; k++) {
            idx = idx * L->grid[k] + coord_of(L, k, g[k]);
            l[k] = local_of(L, k, g[k]);
        }
        int owner = L->ranks[idx];
        int64_t off = 0, inside = 1;
        if (L->order == REDIST_ROW_MAJOR)
            for (int k = 0; k < d; k++) {
                inside &= l[k] < shapes[owner][k];
                off = off * shapes[owner][k] + l[k];
            }
        else
            for (int k = d - 1; k >= 0; k--) {
                inside &= l[k] < shapes[owner][k];
                off = off * shapes[owner][k] + l[k];
            }
        if (!inside) {
            FAIL(L, "global index %lld: local index outside rank %d's shape", (long long)lin,
                 owner);
            break;
        }
        if (hit[owner][off]++) {
            FAIL(L, "rank %d local offset %lld hit twice", owner, (long long)off);
            break;
        }
    }
    for (int r = 0; r < VRANKS; r++)
        free(hit[r]);

    /* Negative ranks are in no layout: zero shape/size or ARG; coords 0 or negative. */
    int64_t shape[MAXD], count;
    int coords[MAXD];
    rc = redist_layout_local_shape(lay, -1, shape);
    if (!(rc == REDIST_ERR_ARG || (rc == REDIST_SUCCESS && shape[0] == 0)))
        FAIL(L, "local_shape(rank -1) returned %d, shape[0] %lld", rc, (long long)shape[0]);
    rc = redist_layout_local_size(lay, -1, &count);
    if (!(rc == REDIST_ERR_ARG || (rc == REDIST_SUCCESS && count == 0)))
        FAIL(L, "local_size(rank -1) returned %d, count %lld", rc, (long long)count);
    rc = redist_layout_coords(lay, -1, coords);
    if (rc > 0)
        FAIL(L, "coords(rank -1) returned %d", rc);

    rc = redist_layout_free(&lay);
    if (rc != REDIST_SUCCESS || lay != NULL)
        FAIL(L, "redist_layout_free returned %d", rc);
}

/* Huge extents (beyond 32 bits): the library's shapes against the closed form. */
static void check_huge(uint64_t *s)
{
    lay_t L;
    memset(&L, 0, sizeof L);
    L.ndims = (int)rnd(s, 1, 2);
    L.nprocs = 1;
    for (int k = 0; k < L.ndims; k++) {
        /* The global size stays below 2^61: the first extent past 32 bits, the second small. */
        L.extent[k] =
            k == 0 ? rnd(s, (int64_t)1 << 33, (int64_t)1 << 40) : rnd(s, 1, (int64_t)1 << 20);
        L.block[k] = rnd(s, 0, 1) ? rnd(s, 1, 100) : rnd(s, 1000, (int64_t)1 << 34);
        L.grid[k] = (int)rnd(s, 1, 4);
        L.first[k] = (int)rnd(s, 0, L.grid[k] - 1);
        L.nprocs *= L.grid[k];
    }
    L.has_first = 1;
    for (int i = 0; i < L.nprocs; i++)
        L.ranks[i] = i;
    redist_layout lay = NULL;
    int rc = redist_layout_create(L.ndims, L.extent, L.block, L.grid, L.first, NULL, L.order, &lay);
    if (rc != REDIST_SUCCESS) {
        FAIL(&L, "redist_layout_create (huge) returned %d", rc);
        return;
    }
    for (int r = 0; r < L.nprocs; r++) {
        int64_t shape[MAXD], count, prod = 1;
        int c[MAXD];
        for (int k = L.ndims - 1, idx = r; k >= 0; k--) {
            c[k] = idx % L.grid[k];
            idx /= L.grid[k];
        }
        redist_layout_local_shape(lay, r, shape);
        for (int k = 0; k < L.ndims; k++) {
            int64_t want = closed_count(L.extent[k], L.block[k], L.grid[k], L.first[k], c[k]);
            if (shape[k] != want)
                FAIL(&L, "huge: local_shape(rank %d)[%d] = %lld, expected %lld", r, k,
                     (long long)shape[k], (long long)want);
            prod *= want;
        }
        if (L.ndims == 1 &&
            (redist_layout_local_size(lay, r, &count) != REDIST_SUCCESS || count != prod))
            FAIL(&L, "huge: local_size(rank %d) = %lld, expected %lld", r, (long long)count,
                 (long long)prod);
    }
    redist_layout_free(&lay);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    uint64_t seed = 424242;
    int ncases = 600;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--seed") == 0)
            seed = strtoull(argv[i + 1], NULL, 0);
        else if (strcmp(argv[i], "--cases") == 0)
            ncases = atoi(argv[i + 1]);
    }
    for (int c = 0; c < ncases; c++) {
        if (c % size != rank)
            continue;
        uint64_t s = seed ^ (0xD1B54A32D192ED03ull * (uint64_t)(c + 1));
        lay_t L;
        gen_layout(&s, &L);
        int before = errs;
        check_layout(&L);
        if (c % 10 == 0)
            check_huge(&s);
        if (errs > before && printed < 50)
            printf("  (case %d, seed %llu)\n", c, (unsigned long long)seed);
    }

    return mtest_finalize(errs);
}
