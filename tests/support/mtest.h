/* Helpers shared by the MPI tests (MPICH's mtest style). */
#ifndef REDIST_MTEST_H
#define REDIST_MTEST_H

#include <stdint.h>

#include "redist.h"

/* Sums the error counts of all ranks, prints " No Errors" or " Found N errors" on rank 0,
   finalizes MPI and returns the process exit status (0 only if no rank found an error). */
int mtest_finalize(int errs);

/* The test oracle of the layout rule (redist.h), independent of the library: the global
   index along one dimension of local index l at grid coordinate c, for cyclic(b) over P
   coordinates with global block 0 on coordinate `first`. */
int64_t mtest_global_of(int64_t l, int64_t b, int P, int first, int c);

/* The global row-major index of local element i (linear, in storage order `order`) of the
   coordinate `coords` of a layout (nd dimensions, extents n, blocks, grid, first), whose
   local shape is `shape`; from mtest_global_of, independently of the library. */
int64_t mtest_global_linear(int nd, const int64_t n[], const int64_t block[], const int grid[],
                            const int first[], int order, const int64_t shape[], const int coords[],
                            int64_t i);

/* The same for every local element in turn: after mtest_globals_open, each
   mtest_globals_next returns mtest_global_linear(..., i) for i = 0, 1, ... (storage order),
   from each dimension's global indices worked out once, so that the oracle of a large array
   costs an addition per element instead of divisions. open returns 0, or -1 (nothing to
   close) when nd > 16 or out of memory. */
typedef struct mtest_globals {
    int nd, order;
    int64_t shape[16], at[16], *part[16];
} mtest_globals;
int mtest_globals_open(mtest_globals *w, int nd, const int64_t n[], const int64_t block[],
                       const int grid[], const int first[], int order, const int64_t shape[],
                       const int coords[]);
int64_t mtest_globals_next(mtest_globals *w);
void mtest_globals_close(mtest_globals *w);

/* 1 if v is the same on every rank of MPI_COMM_WORLD (collective). */
int mtest_all_same(int v);

/* A non-commutative op for the reduction tests: a 2 x 2 matrix over Z_256 packed in an
   unsigned (bytes m00, m01, m10, m11). mtest_matmul(a, b) is the product a b; mtest_matmul_fn
   is it as an MPI_User_function (inout = in inout), for MPI_Op_create(mtest_matmul_fn, 0,
   &op) on MPI_INT or MPI_UNSIGNED. */
unsigned mtest_matmul(unsigned a, unsigned b);
void mtest_matmul_fn(void *in, void *inout, int *len, MPI_Datatype *type);

/* What REDIST_MEMORY_LIMIT = limit bytes implies for a plan over MPI_COMM_WORLD whose
   default mode holds `mine` bytes of pack buffers on this rank (what it sends to and receives
   from other ranks), from docs/api.md "Memory" and independently of the library: the limit
   is a node's, and the plan's ranks on a node share it evenly. Collective. */
typedef struct mtest_memory {
    int must_fit;     /* every rank's default buffers fit its share with room to spare */
    int cannot_fit;   /* some node's default buffers together exceed the limit */
    int64_t bound;    /* bounded mode's bound, taken by itself: min(64 MiB, share / 16), the
                         least over the ranks; below two elements, not even that fits */
    int node_ranks;   /* the most ranks on one node */
    double node_need; /* the least, over the nodes, of a node's default buffers together */
    double rank_need; /* the most default buffers of one rank */
} mtest_memory;
mtest_memory mtest_memory_under(double limit, double mine);

/* [SD96]'s section algorithms (docs/algorithms.md), worked out here independently of the
   library: -1 if `name` is not one of them, else 1 if it must apply to the pair (nd
   dimensions of extents n, source blocks xb on grid xg, destination yb on yg), 0 if it
   must not. Block along a dimension: one block per process (b P >= n) or one process. */
int mtest_sections_apply(const char *name, int nd, const int64_t n[], const int64_t xb[],
                         const int xg[], const int64_t yb[], const int yg[]);

/* Whether the ranks of comm are on several nodes as the library's plans see them (collective):
   MPI_COMM_TYPE_SHARED, split further into nodes of k consecutive ranks of comm by
   REDIST_RANKS_PER_NODE=k (docs/api.md): where node-aware applies. */
int mtest_several_nodes(MPI_Comm comm);

/* Prints "[rank R] what: <fmt ...>" and a newline on stdout (flushed) and counts one error in
 *errs. rank is the caller's MPI_COMM_WORLD rank (calls before MPI_Init pass 0). */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
void mtest_fail(int *errs, int rank, const char *what, const char *fmt, ...);
/* Collective: a failure (mtest_fail) unless every rank got rc == want, the library's detail
   and the code wanted in its line. */
void mtest_expect_all(int *errs, int rank, const char *what, int rc, int want);

/* A uniform integer in [lo, hi] from the xorshift generator *state (nonzero), advanced: every
   rank that seeds it alike draws the same cases. */
int64_t mtest_rand(uint64_t *state, int64_t lo, int64_t hi);

/* a[0 .. n-1] in a random order (Fisher-Yates, drawing from *state). */
void mtest_shuffle(uint64_t *state, int *a, int n);

/* A grid of p processes: *rows one of p's divisors drawn at random, *cols = p / *rows. */
void mtest_factor(uint64_t *state, int p, int *rows, int *cols);

/* Element i of an array of `parts` scalars per element (1; 2 for complex), scalars of the
   given kind: part k as a double, and setting it (exact for the small integers tests use). */
typedef enum { MTEST_FLOAT, MTEST_DOUBLE, MTEST_INT } mtest_scalar;
double mtest_get_part(mtest_scalar kind, int parts, const void *buf, int64_t i, int k);
void mtest_set_part(mtest_scalar kind, int parts, void *buf, int64_t i, int k, double v);
/* The first element (1-based) where two such arrays of n elements differ by value (a zero of
   either sign is one value); 0 if none. */
int64_t mtest_first_difference(mtest_scalar kind, int parts, const void *got, const void *want,
                               int64_t n);

/* --seed S, --cases C, --case K (only case K) into the given defaults. */
void mtest_case_args(int argc, char **argv, uint64_t *seed, int *cases, int *only);

/* The generator state of case i of a seed (nonzero): each case draws alike on every rank,
   whichever cases ran before it (--case K runs case K alone). */
uint64_t mtest_case_state(uint64_t seed, int i);

/* The plan variants the layout tests run, v = -1 .. redist_algorithm_count() + 3: auto, every
   algorithm the library lists, then auto in bounded mode (64-byte chunks) and direct-async
   with the datatype transport, the pack transport, and packing without shared memory. Sets
   *opt (initialised) and returns the algorithm's name. */
const char *mtest_variant(int v, redist_options *opt);

/* A random subset of 1 .. min(nranks, maxp) ranks in random order (ranks[], which needs
   min(nranks, maxp) entries) and a grid of nd dimensions over them (their prime factors
   round robin); returns how many. */
int mtest_random_grid(uint64_t *state, int nranks, int maxp, int nd, int ranks[], int grid[]);

/* The grid coordinates of `rank` in a layout's rank list (row-major positions over grid):
   1 and coords[] filled, or 0 if the rank is not in it. */
int mtest_coords_of(const int ranks[], int nprocs, const int grid[], int nd, int rank,
                    int coords[]);

/* A watchdog for one step of a test: if the step does not end within `seconds`, the process
   writes "[rank R] no return after S s (hang) in: <what>" to stdout and exits with status 1
   (the library must never hang; the test may end itself). seconds = 0 disarms it. Uses
   alarm() and SIGALRM. rank is the caller's MPI_COMM_WORLD rank. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
void mtest_watchdog(int seconds, int rank, const char *fmt, ...);

/* MPI objects: the communicators and datatypes of this process made and not yet freed,
   counted by mtest.c's profiling-interface definitions of MPI's constructors and MPI_Comm_free,
   MPI_Comm_disconnect and MPI_Type_free (in every test that links tests/support), whoever
   calls them: the library, the test, ScaLAPACK's BLACS. A leak makes them grow. */
long mtest_live_comms(void);
long mtest_live_types(void);

/* Host arrays for a test's executes. REDIST_TEST_SHARED=all: every one from
   redist_alloc over MPI_COMM_WORLD (node-shared memory: plans then copy on-node messages
   once); =mixed: so too, but every third (by rank and `salt`) a malloc'd one instead, so that
   executes mix both; unset: malloc. Collective over MPI_COMM_WORLD unless unset: every rank
   calls it, in the same order. bytes 0 gives NULL (the rank holds nothing). A failure stops
   the test (MPI_Abort). mtest_host_free is collective alike. */
void *mtest_host_alloc(size_t bytes, int salt);
void mtest_host_free(void *p);
/* REDIST_TEST_SHARED's value: 0 unset, 1 all, 2 mixed (a bad value stops the test). */
int mtest_test_shared(void);

#endif
