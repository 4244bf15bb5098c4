/* redist: runtime redistribution of block-cyclic distributed arrays over MPI.
 *
 * The one public header. Every function returning int returns REDIST_SUCCESS (0) or a
 * negative REDIST_ERR_* code; the library never exits, aborts or prints. Collective
 * functions return the same code on every rank.
 *
 * Usage (plan once, execute many):
 *
 *     redist_layout src, dst;
 *     redist_layout_create(2, n, (int64_t[]){64, 64}, (int[]){1, 2}, NULL, NULL,
 *                          REDIST_COL_MAJOR, &src);
 *     redist_layout_create(2, n, (int64_t[]){100, 100}, (int[]){2, 1}, NULL, NULL,
 *                          REDIST_COL_MAJOR, &dst);
 *     redist_plan plan;
 *     redist_plan_create(src, dst, MPI_DOUBLE, MPI_COMM_WORLD, NULL, &plan);
 *     redist_execute(plan, a, b);
 *     redist_plan_free(&plan);
 *
 * See docs/api.md for the full description.
 */
#ifndef REDIST_H
#define REDIST_H

/* REDIST_NO_MPI: only the declarations that need no mpi.h (error codes, layouts, options,
   HPF index functions, BMMC matrices); the library's MPI-free core is built so. */
#ifndef REDIST_NO_MPI
#include <mpi.h>
#endif
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define REDIST_VERSION_MAJOR 0
#define REDIST_VERSION_MINOR 1
#define REDIST_VERSION_PATCH 0

typedef struct redist_layout_s *redist_layout;
typedef struct redist_plan_s *redist_plan;

/* Error codes. Codes are only ever appended; redist_strerror and redist_error_name are
   generated from this one list. */
#define REDIST_ERRNO_MAP(X)                                                                        \
    X(ARG, -1, "invalid argument")                                                                 \
    X(NOMEM, -2, "out of memory")                                                                  \
    X(MPI, -3, "an MPI call failed")                                                               \
    X(NOT_APPLICABLE, -4, "the algorithm cannot perform this redistribution")                      \
    X(UNKNOWN_ALGORITHM, -5, "unknown algorithm name")                                             \
    X(MISMATCH, -6, "ranks passed different arguments to a collective call")                       \
    X(UNSUPPORTED, -7, "not supported by this version of redist")                                  \
    X(BUSY, -8, "the plan has a nonblocking execution in progress")                                \
    X(STATE, -9, "the plan cannot run: an MPI error broke an earlier execution")

#define REDIST_SUCCESS 0
#define REDIST_ERR_ARG (-1)
#define REDIST_ERR_NOMEM (-2)
#define REDIST_ERR_MPI (-3)
#define REDIST_ERR_NOT_APPLICABLE (-4)
#define REDIST_ERR_UNKNOWN_ALGORITHM (-5)
#define REDIST_ERR_MISMATCH (-6)
#define REDIST_ERR_UNSUPPORTED (-7)
#define REDIST_ERR_BUSY (-8)
#define REDIST_ERR_STATE (-9)

/* A sentence describing err (a static string; never NULL, also for unknown codes). The
   detail of the most recent failure on this thread, e.g. "block[1] = 0 must be >= 1", is
   kept apart: redist_last_error_detail(). */
const char *redist_strerror(int err);
/* "REDIST_ERR_ARG" etc.; "REDIST_SUCCESS" for 0; "REDIST_ERR_UNKNOWN" otherwise. */
const char *redist_error_name(int err);
/* The detail of the most recent error recorded by this thread ("" if none). */
const char *redist_last_error_detail(void);

enum { REDIST_ROW_MAJOR = 0, REDIST_COL_MAJOR = 1 };
/* The largest extent, and the largest number of elements of an array (2^62): every index,
   count and sum of two indices then stays below 2^63. */
#define REDIST_MAX_EXTENT ((int64_t)1 << 62)
enum { REDIST_TRANSPORT_AUTO = 0, REDIST_TRANSPORT_PACK = 1, REDIST_TRANSPORT_DATATYPE = 2 };

/* ---- Layouts (local, no communication) ------------------------------------------------
   An ndims-dimensional array, extent[k] >= 0 elements along dimension k, distributed
   cyclic(block[k]) (block[k] >= 1) over grid[k] >= 1 process coordinates, global block 0
   on coordinate first[k] (NULL: all 0). Global index g along k lives on coordinate
   ((g / block[k]) + first[k]) mod grid[k], at local index
   (g / (block[k]*grid[k]))*block[k] + g % block[k].
   Grid coordinates (c_0..c_{d-1}) belong to rank ranks[c_0*grid[1]*...*grid[d-1] + ... +
   c_{d-1}] of the plan's communicator (row-major, last coordinate fastest; NULL: 0,1,2,...).
   Ranks must be distinct. A rank's local array is dense, its local extents stored
   row-major (last dimension fastest) or column-major (first fastest) as `order` says.
   Each extent, and the product of the nonzero extents, is at most REDIST_MAX_EXTENT (blocks
   may be anything up to INT64_MAX). On failure *layout is set to NULL. */
int redist_layout_create(int ndims, const int64_t extent[], const int64_t block[], const int grid[],
                         const int first[], const int ranks[], int order, redist_layout *layout);
/* first[k] = REDIST_REPLICATED (ScaLAPACK's RSRC/CSRC = -1) in redist_layout_create and
   redist_layout_create_gen_block: every process along grid dimension k holds the whole
   extent of dimension k (block[k], and sizes[k] of GEN_BLOCK, are not read there; block may
   be NULL where every dimension is replicated). In a
   source, an element held by several ranks is sent by one of them (the destination rank
   itself where it holds it, else one chosen so that the replicas share the sending); in a
   destination, every holder receives it. */
#define REDIST_REPLICATED (-1)
/* Boxes (FFT codes' pencils, slabs and bricks; heFFTe's box3d): rank r of the plan's
   communicator, for r < nboxes, holds the box [lower[r*ndims + k], upper[r*ndims + k]) along
   each dimension k, stored densely in `order` (its local shape is upper - lower); a box with
   upper <= lower along some dimension is empty (local shape 0 along every dimension), and
   ranks r >= nboxes hold nothing. Corners
   lie in [0, extent[k]]. Boxes may overlap: identical boxes are replicas (as a replicated
   grid dimension: one of them sends, every one receives); boxes of a destination may overlap
   in any way, boxes of a source only as identical boxes (partly overlapping source boxes:
   REDIST_ERR_UNSUPPORTED at plan creation). A window of a box layout
   (redist_layout_create_window) holds each box clipped to the window; every rank passes its
   whole box's array (padded to ld), and only the window's elements are touched. Local, no
   communication. */
int redist_layout_create_boxes(int ndims, const int64_t extent[], int nboxes, const int64_t lower[],
                               const int64_t upper[], int order, redist_layout *layout);
/* A window and padded local arrays: ScaLAPACK's sub-matrices (ia, ja) and leading dimensions
   (LLD), for any number of dimensions. The new layout describes the array of count[k]
   elements along k whose element i is element offset[k] + i of `parent` (offset NULL: all 0;
   count NULL: the rest of the parent). Its elements stay where the parent's layout puts
   them: every rank passes its local array of the parent (from its first element), and a
   plan reads or writes only the window's elements, whatever else the array holds. A window
   of a window is a window of the first parent.
   ld[k] (NULL or 0: dense) is the allocated extent of this rank's local array along
   dimension k, at least its local extent (redist_layout_local_shape); the elements in
   between are never touched. The slowest dimension's entry is ignored (for a column-major
   matrix, ld[0] is ScaLAPACK's LLD). ld is this rank's own: ranks may pass different
   values, and the plan does not compare them; everything else must agree across ranks as
   for redist_layout_create. Local, no communication. */
int redist_layout_create_window(redist_layout parent, const int64_t offset[], const int64_t count[],
                                const int64_t ld[], redist_layout *window);
/* Irregular blocks (HPF 2's GEN_BLOCK): as redist_layout_create, except that along every
   dimension k with sizes[k] != NULL the array is split into grid[k] blocks of sizes[k][0],
   sizes[k][1], ... elements (each >= 0, summing to extent[k]), block i held by coordinate
   (first[k] + i) mod grid[k] (first NULL: block i on coordinate i), at local indices 0 ..
   sizes[k][i] - 1; block[k] is not read there (block may be NULL when every dimension has
   sizes). sizes NULL: redist_layout_create. PETSc-style splits (3, 3, 2, 2) and uneven slabs
   are layouts of this kind; every pattern-based algorithm, auto and `general` apply (the
   papers' block-cyclic special cases do not). Windows of such layouts: REDIST_ERR_UNSUPPORTED.
   Local, no communication. */
int redist_layout_create_gen_block(int ndims, const int64_t extent[], const int64_t block[],
                                   const int grid[], const int first[], const int ranks[],
                                   int order, const int64_t *const sizes[], redist_layout *layout);
/* Local extents of `rank`'s local array along each dimension, as ScaLAPACK's NUMROC gives
   them (for a window: of its parent's local array, which holds it; without ld padding):
   all 0 if rank is not in the layout; a member whose piece is empty has some extent 0. */
int redist_layout_local_shape(redist_layout layout, int rank, int64_t shape[]);
/* Number of elements of `rank`'s local array (0 if rank holds nothing): the product of
   redist_layout_local_shape. */
int redist_layout_local_size(redist_layout layout, int rank, int64_t *count);
int redist_layout_free(redist_layout *layout); /* sets *layout = NULL */

/* Read-only accessors. */
int redist_layout_ndims(redist_layout layout);
int redist_layout_nprocs(redist_layout layout); /* product of the grid */
/* Grid coordinates of `rank` in the layout; returns 1 and fills coords[] if the rank is in
   the layout, 0 if it is not, a negative code on a bad argument. Box layouts: the rank's box
   index along every dimension. */
int redist_layout_coords(redist_layout layout, int rank, int coords[]);

/* ---- Plans ---------------------------------------------------------------------------- */
/* options.reduce's type: MPI_Op (the MPI-free layers of the library see its storage). */
#ifndef REDIST_NO_MPI
typedef MPI_Op redist_op;
#else
typedef union {
    void *pointer;
    int64_t integer;
} redist_op;
#endif
typedef struct redist_options {
    const char *algorithm;   /* NULL or "auto": chosen by the cost model; else a name below */
    int check_arguments;     /* execute: agree on buffer-argument errors across ranks (default 1) */
    int shared_memory;       /* point-to-point algorithms: ranks of one node exchange through an
                                MPI-3 shared-memory window, one copy fewer (default 1) */
    int transport;           /* direct-async and direct: REDIST_TRANSPORT_AUTO (default: the
                                model decides), _PACK (we pack runs) or _DATATYPE (derived
                                datatypes over the user's arrays; MPI moves the data) */
    int hybrid_degree;       /* hybrid: the degree of indirection d (default -1: the model
                                chooses) */
    int bmmc_method;         /* bmmc: 0 = MPI_Sendrecv_replace per round ([Cor97], default),
                                1 = MPI_Sendrecv into a second buffer, 2 = one MPI_Alltoallv */
    int synchronous_receive; /* general, ky-to-y, x-to-kx, gcd, lcm: 1 = [TCR96]'s
                                synchronous method (every packet, then one scan), 0 = the
                                asynchronous method (each packet placed on arrival; default) */
    const char *alltoall_algorithm; /* alltoall-padded: NULL (default) = the MPI library's
                                       MPI_Ialltoall, [LBP96]'s baseline; "auto", "ring",
                                       "mesh", "hypercube" or "pairwise" = [GGKK03]'s
                                       all-to-all (redist_alltoall) on point-to-point
                                       messages, run inside redist_wait/redist_test */
    int64_t max_buffer_bytes;       /* bounded mode: 0 (default) = the default mode, pack buffers
                                       for a whole execute (redist_stats.buffer_bytes); > 0 = at
                                       most this many bytes of buffers per rank, the data moving
                                       in chunks, each packed while the previous one travels
                                       (direct-async and [SD96]'s section algorithms; auto picks
                                       among them, other forced algorithms are NOT_APPLICABLE).
                                       At least two elements of the type. */
    const int *permutation;         /* axis permutation (N-D transpose): NULL (default) = none;
                                       else ndims entries, a permutation of 0 .. ndims - 1:
                                       the source's element (g_0 .. g_{d-1}) goes to the
                                       destination's element (g_perm[0] .. g_perm[d-1]), so
                                       dst's extent j is src's extent permutation[j] (numpy's
                                       transpose(axes) convention). Any layouts and storage
                                       orders on both sides; read at plan creation only. */
    double alpha[2], beta[2];       /* scaling: dst = beta * dst + alpha * op(src), real and
                                       imaginary parts (default alpha = 1, beta = 0: a copy).
                                       For float, double and their complex types (C's or
                                       Fortran's); imaginary parts must be 0 for the real ones,
                                       and other types only copy. beta = 0 never reads dst,
                                       alpha = 0 never reads src (BLAS's rules). Applied while
                                       unpacking, so a scaling plan packs (algorithms that
                                       only have the datatype transport, such as alltoallw,
                                       are NOT_APPLICABLE). */
    int conjugate;                  /* 1: op(src) = conj(src) for the complex types (a no-op
                                       for the real ones); with permutation, a conjugate
                                       transpose. Default 0. */
    int threads;                    /* threads for this rank's local work: packing, unpacking,
                                       the self copy, transposes, scaling, bounded mode's
                                       chunks. 0 (default) = the environment variable
                                       REDIST_NUM_THREADS if set, else 1; read at plan
                                       creation. Negative, or a variable that is not a
                                       positive integer: REDIST_ERR_ARG; more than
                                       REDIST_MAX_THREADS: REDIST_ERR_ARG. Ranks may differ.
                                       Only the calling thread calls MPI (MPI_THREAD_FUNNELED
                                       suffices); called inside an OpenMP parallel region, a
                                       plan runs on the calling thread alone (docs/api.md,
                                       "Threads"). 1 creates no thread. */
    int memory;                     /* where this rank's local arrays live (read at plan
                                       creation; every rank passes the same, else
                                       REDIST_ERR_MISMATCH): REDIST_MEMORY_HOST
                                       (default), REDIST_MEMORY_CUDA (both arrays in device
                                       memory of the device current at plan creation) or
                                       REDIST_MEMORY_AUTO (each execute asks where each
                                       array lives; they may differ). Device plans use only
                                       algorithms that pack (others are NOT_APPLICABLE, with
                                       the reason); where no CUDA driver loads, a CUDA plan
                                       is REDIST_ERR_UNSUPPORTED on every rank, and AUTO
                                       plans exactly as HOST where no rank loads a device
                                       (a device plan on every rank where some rank does:
                                       ranks without one move their arrays on the host).
                                       Redistribution, batch and intercommunicator plans
                                       take device memory, BMMC plans do not (docs/api.md,
                                       "Device memory"). Other values: REDIST_ERR_ARG. */
    void *stream;                   /* device plans: the cudaStream_t their kernels and
                                       copies run on; NULL (default) = the default stream */
    redist_op reduce;               /* partial sums: MPI_OP_NULL (default) = the source's
                                       replicas hold the same values (one of them sends);
                                       else every source holder of an element holds a
                                       partial value, and every destination holder receives
                                       their reduction by this op (predefined ops on the
                                       types redist_allreduce takes, or a user op; ops of the
                                       MPI standard's order: holders in increasing replica
                                       order). alpha and beta apply once, to the reduction.
                                       Host memory; the algorithms reduce-direct and
                                       reduce-allgather (docs/api.md, "Partial sums"). */
} redist_options;
#define REDIST_MEMORY_HOST 0
#define REDIST_MEMORY_CUDA 1
#define REDIST_MEMORY_AUTO 2
/* Device memory for bindings: arrays in the memory device plans take, through the library's
   own backend (the CUDA driver loaded at run time, or REDIST_DEVICE_BACKEND=emulated's), for
   a language binding or test without CUDA of its own. REDIST_ERR_UNSUPPORTED where no
   device loads. copy: either side device memory, synchronous. free: NULL does nothing; any
   other address alloc did not return, or that was freed, is REDIST_ERR_ARG. */
int redist_device_alloc(size_t bytes, void **ptr);
int redist_device_free(void *ptr);
int redist_device_copy(void *to, const void *from, size_t bytes);
#ifndef REDIST_NO_MPI
/* Local arrays in memory shared by the ranks of a node (MPI_Win_allocate_shared over comm's
   ranks on each node), for plans to copy on-node traffic once, straight between the ranks'
   arrays (docs/api.md, "Node-shared arrays"). Collective over comm: each rank gets its own
   `bytes` (0 allowed: still a pointer to free), 64-byte aligned. NOMEM (with /dev/shm's free
   space in the detail) where the node's shared memory cannot hold its ranks' parts; every
   error the same on every rank. redist_free(base): collective over the same comm, every rank
   freeing the allocations of one comm in the same order as the others (any order, not
   necessarily that of the allocations); REDIST_ERR_BUSY on every rank while an execute
   started on arrays in it is in flight, REDIST_ERR_MISMATCH if the ranks free different
   allocations.
   A base inside an allocation (not its start, or just past its end) or in one freed already
   (the last 64 freed over a comm that still exists are remembered) is REDIST_ERR_ARG on every
   rank and frees nothing. Any other address (NULL, memory of no allocation) names no comm:
   that rank alone returns REDIST_ERR_ARG at once, and the other ranks' call waits for its
   next redist_free over their comm. Never called implicitly. */
int redist_alloc(MPI_Comm comm, int64_t bytes, void **base);
int redist_free(void *base);
#endif
/* The most threads options.threads or REDIST_NUM_THREADS may ask for. */
#define REDIST_MAX_THREADS 1024
void redist_options_init(redist_options *opt);

/* The algorithm names ("auto", "direct-async", "direct", "alltoallv", "alltoallw", ...). */
int redist_algorithm_count(void);
const char *redist_algorithm_name(int i); /* 0 <= i < count; NULL otherwise */

/* What redist_plan_create(src, dst, type, comm, opt) would plan, where type has elsize bytes
   and comm comm_size ranks, computed without MPI (no launch, any comm_size, MPI_Init not
   needed; local): a JSON object, the one `redist explain --json` prints less the tool's own
   keys (docs/api.md, "redist_explain", lists them): the algorithm auto (or opt->algorithm)
   plans, its steps, messages, bytes, buffers and predicted time, the pattern's traffic,
   the model's parameters and every algorithm's row, with why_not where one does not apply.
   The arguments are checked as redist_plan_create checks them, less what needs the type or
   the arrays (scaling against the type, ld): REDIST_ERR_ARG, REDIST_ERR_UNKNOWN_ALGORITHM,
   and a forced algorithm that cannot do the pair REDIST_ERR_NOT_APPLICABLE, with the
   detail; buf is then "" (len > 0). The text, NUL-terminated, is written to buf (at most
   len bytes, cut short if it does not fit, as MPI_Info_get_string does); *needed (if not
   NULL) is set to the bytes the whole text takes, NUL included: call with len = 0 (buf may
   be NULL) to learn it. */
int redist_explain(redist_layout src, redist_layout dst, int comm_size, size_t elsize,
                   const redist_options *opt, char *buf, size_t len, size_t *needed);

#ifndef REDIST_NO_MPI
/* Collective over comm: every rank of comm calls it, including ranks in neither layout.
   All layout ranks must be < size of comm. The plan duplicates comm and type.
   A forced algorithm that cannot do this pair returns REDIST_ERR_NOT_APPLICABLE on every
   rank. Any error is returned on every rank alike (no rank hangs). type: any datatype whose
   data is contiguous (size == extent == true extent, lower bound 0), predefined or derived,
   committed or not (the plan commits its own duplicate; the caller's type is left as it
   is); other derived types return REDIST_ERR_UNSUPPORTED. The same rule holds for every
   function that takes a datatype, the basic operations included. */
int redist_plan_create(redist_layout src, redist_layout dst, MPI_Datatype type, MPI_Comm comm,
                       const redist_options *opt, redist_plan *plan);

/* Two groups joined by an intercommunicator (separate data-parallel tasks or programs,
   [SD96]). The source layout's ranks are ranks of the source group, the destination layout's
   ranks are ranks of the destination group. Every rank of both groups calls it; is_source
   says which side the caller is on (1 in one group, 0 in the other). Errors are returned on
   every rank of both groups alike. Execute with (src, NULL) on the source side and
   (NULL, dst) on the other. The plan runs over the groups merged (source first), so error
   details number destination ranks after the source group's. */
/* Batches: `count` arrays moved by one plan with one message per peer pair per execute (the
   pieces of every array for a peer packed together). Array i goes from src[i] to dst[i] with
   element type types[i]; layouts, windows, types and sizes may differ between arrays. The
   options apply to every array (permutation, scaling, check_arguments); the exchange is
   direct-async's (algorithm NULL, "auto" or "direct-async", else NOT_APPLICABLE), packed
   (bounded mode and the datatype transport: REDIST_ERR_UNSUPPORTED); messages of any size
   (sent in chunks of at most 1 GiB). Collective over comm, errors agreed, like
   redist_plan_create; free with redist_plan_free. Execute with redist_execute_batch (or
   redist_start_batch, then redist_test / redist_wait), src[i] and dst[i] as for
   redist_execute (NULL where a rank holds nothing of array i); redist_execute and
   redist_start on a batch plan are REDIST_ERR_ARG. */
int redist_plan_create_batch(int count, const redist_layout src[], const redist_layout dst[],
                             const MPI_Datatype types[], MPI_Comm comm, const redist_options *opt,
                             redist_plan *plan);
int redist_execute_batch(redist_plan plan, const void *const src[], void *const dst[]);
int redist_start_batch(redist_plan plan, const void *const src[], void *const dst[]);

int redist_plan_create_inter(redist_layout src, redist_layout dst, MPI_Datatype type,
                             MPI_Comm intercomm, int is_source, const redist_options *opt,
                             redist_plan *plan);

/* BMMC permutation (collective; [Cor97]). comm size P = 2^p, N = 2^n >= P elements, N/P per
   rank. The element at global index x sits on rank (x >> f) & (P-1), at local offset
   (x & ((1<<f)-1)) | ((x >> (f+p)) << f). It moves to global index y = A x xor complement
   (same layout rule), where bit i of columns[j] is A[i][j] and A is nonsingular over GF(2).
   REDIST_ERR_ARG on every rank for a size that is not a power of two, n < p, f > n - p, a
   singular A; the matrices of the "BMMC matrices" section below build the usual ones. The
   plan factors A once; each execute sends 2^rank(lambda) messages per rank (Lemma 3), data
   only. Option bmmc_method picks MPI_Sendrecv_replace (default), MPI_Sendrecv or
   MPI_Alltoallv. Execute runs its rounds inside redist_wait/redist_test (blocking). */
int redist_plan_create_bmmc(int n, int f, const uint64_t columns[], uint64_t complement,
                            MPI_Datatype type, MPI_Comm comm, const redist_options *opt,
                            redist_plan *plan);
#endif

/* Collective over the plan's communicator. src: this rank's local source array (may be
   NULL if it holds none); dst: its local destination array. Buffers must not overlap;
   MPI_IN_PLACE is REDIST_ERR_ARG. A plan can be executed any number of times, with any
   buffers. As for MPI's inactive persistent requests: on a plan with no execution in
   progress (never started, or already completed by redist_test), redist_test sets *done = 1
   and returns REDIST_SUCCESS, and redist_wait returns REDIST_SUCCESS at once. */
/* For language bindings (Python, Fortran): an address to pass as src or dst for an argument
   the binding refused itself (wrong element type or shape, not contiguous), so that the rank
   still makes the collective call and every rank's execute returns REDIST_ERR_ARG (agreed as
   any bad buffer argument), this rank's detail saying `why`. Per thread. */
const void *redist_bad_buffer(const char *why);
int redist_execute(redist_plan plan, const void *src, void *dst);
int redist_start(redist_plan plan, const void *src, void *dst); /* nonblocking */
int redist_test(redist_plan plan, int *done); /* progresses; done=1 when complete */
int redist_wait(redist_plan plan);

typedef struct redist_stats {
    int steps;                     /* communication steps (rounds) of one execute */
    int64_t messages_sent;         /* messages this rank sends to other ranks per execute */
    int64_t bytes_sent;            /* bytes this rank sends to other ranks per execute */
    double predicted_seconds;      /* the cost model's prediction for one execute */
    int64_t messages_received;     /* messages this rank receives per execute */
    int64_t bytes_received;        /* bytes this rank receives per execute */
    int64_t bytes_copied;          /* bytes this rank copies locally (its self part) */
    int64_t max_messages_per_rank; /* maximum over ranks of messages_sent */
    int64_t max_bytes_per_rank;    /* maximum over ranks of bytes_sent */
    int64_t runs_per_period;       /* 1-D run groups this rank's plan stores (plan size) */
    int transport;                 /* REDIST_TRANSPORT_PACK or _DATATYPE: how messages move */
    int shared_memory;             /* 1: messages between ranks of a node go through an MPI-3
                                      shared-memory window (0 when /dev/shm has no room for it) */
    int bounded;                   /* 1: bounded mode, asked for (max_buffer_bytes) or taken
                                      because the default mode's buffers would not fit */
    int64_t buffer_bytes;          /* the temporary buffers this rank's plan holds for executes
                                      (pack buffers, chunk slots, intermediate arrays, phases):
                                      the extra memory of an execute beyond src and dst */
    int threads;                   /* threads this rank's local moves run with (options.threads
                                      or REDIST_NUM_THREADS, resolved) */
    int cores;                     /* CPUs this rank may run on when the plan was made (its
                                      affinity mask, sched_getaffinity): predicted_seconds
                                      counts at most this many threads, as more take turns */
    int nodes;                     /* nodes the plan's ranks are on (MPI_COMM_TYPE_SHARED, or
                                      REDIST_RANKS_PER_NODE's virtual nodes) */
    int ranks_per_node;            /* the most of the plan's ranks on one node */
    int64_t messages_off_node;     /* of messages_sent, those to ranks of other nodes */
    int64_t bytes_off_node;        /* of bytes_sent, those to ranks of other nodes */
    int64_t messages_device_ipc;   /* device plans: of messages_received, those this rank's
                                      kernel pulls straight from node peers' device arrays
                                      (inter-process memory; where the sender's src is device
                                      memory the driver shares), not staged through the host */
    int64_t bytes_device_ipc;      /* their bytes */
    int64_t messages_device_mpi;   /* device plans: of messages_sent, those handed to a
                                      GPU-aware MPI from a device buffer (packed there by a
                                      kernel, nothing staged through the host) */
} redist_stats;
int redist_plan_stats(redist_plan plan, redist_stats *stats); /* local */
const char *redist_plan_algorithm(redist_plan plan);          /* the name chosen */
int redist_plan_free(redist_plan *plan);                      /* collective; sets *plan = NULL */

/* Process relabelling (collective over comm, which must contain every rank of src and dst):
   which of dst's ranks should hold each of dst's grid positions so that the most elements
   stay on their rank. ranks_out[position] (nprocs(dst) entries, positions row-major as for
   redist_layout_create's ranks) is a permutation of dst's ranks; create the destination
   layout with it. Exact (an assignment problem over the ranks x positions volume matrix,
   solved by the Hungarian method) up to 2048 positions, a greedy heuristic beyond; never
   keeps fewer elements in place than dst's own labelling (which it returns when nothing
   better is found). *kept (if not NULL): elements that stay in place with ranks_out; *moved
   (if not NULL): elements that cross between ranks. The same result on every rank. */
#ifndef REDIST_NO_MPI
int redist_relabel(redist_layout src, redist_layout dst, MPI_Comm comm, int ranks_out[],
                   int64_t *kept, int64_t *moved);
#endif

/* ---- Basic communication operations ([GGKK03]; src/coll/) --------------
   MPI semantics (count is per block; sendbuf/recvbuf as in MPI_Bcast ... MPI_Alltoall;
   MPI_IN_PLACE for allreduce, scan and reduce at the root), built on point-to-point
   messages over a private duplicate of comm cached on it. algorithm: NULL or "auto" (the
   cheapest under the slides' cost with the model's t_s and t_w), or one of
     bcast: tree, ring, mesh, scatter-allgather       reduce: tree, ring, reduce_scatter-gather
     allreduce: hypercube, reduce-bcast, reduce_scatter-allgather     scan: hypercube, ring
     scatter, gather: tree, hypercube, linear    allgather: hypercube, mesh, ring, node-aware
     reduce_scatter: hypercube, mesh, ring, pairwise, node-aware
     alltoall: ring, mesh, hypercube, pairwise, node-aware      shift: ring, mesh, hypercube
   (redist_coll_algorithm_name lists them). node-aware: the traffic between two nodes crosses
   as one message each way, the pairs of nodes spread over a node's ranks (reduce_scatter
   reduces on the node first; a non-commutative op only where every node's ranks are
   consecutive). The nodes (MPI_COMM_TYPE_SHARED, or REDIST_RANKS_PER_NODE's virtual nodes,
   read once per communicator) are found at the first allgather, reduce_scatter or alltoall
   on comm; on several nodes auto costs the messages between nodes with the network's
   parameters, and on one node it never picks node-aware. Argument errors are agreed: every
   rank returns the same code. A hypercube algorithm that needs a power-of-two p returns
   REDIST_ERR_NOT_APPLICABLE on every rank otherwise. Types as for redist_plan_create
   (contiguous, committed or not). Reductions: a predefined op where MPI 4.0 §6.9.2 defines
   it, on a predefined type or a derived one made of one such type (reduced as that many of
   it); else REDIST_ERR_ARG (MPI_BAND on MPI_DOUBLE, MPI_REPLACE, MPI_NO_OP, a struct of
   two types). A user-defined op works on any type (a derived one reaches it as the
   library's committed duplicate). docs/api.md has the details. */
#ifndef REDIST_NO_MPI
int redist_bcast(void *buf, int64_t count, MPI_Datatype type, int root, MPI_Comm comm,
                 const char *algorithm);
int redist_reduce(const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype type, MPI_Op op,
                  int root, MPI_Comm comm, const char *algorithm);
int redist_allreduce(const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype type,
                     MPI_Op op, MPI_Comm comm, const char *algorithm);
int redist_scan(const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype type, MPI_Op op,
                MPI_Comm comm, const char *algorithm);
int redist_scatter(const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype type, int root,
                   MPI_Comm comm, const char *algorithm);
int redist_gather(const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype type, int root,
                  MPI_Comm comm, const char *algorithm);
int redist_allgather(const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype type,
                     MPI_Comm comm, const char *algorithm);
int redist_reduce_scatter(const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype type,
                          MPI_Op op, MPI_Comm comm, const char *algorithm);
int redist_alltoall(const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype type,
                    MPI_Comm comm, const char *algorithm);
int redist_shift(const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype type, int shift,
                 MPI_Comm comm, const char *algorithm);
/* Collective over comm: on = 0 turns the per-call argument agreement of the operations above
   off for comm (1, the default, turns it back on). The agreement is one allreduce per call;
   at a few bytes per block it is most of an operation's time. Off, every call checks its
   own arguments only: a bad argument is returned on the ranks that pass it, and arguments
   that differ between ranks are undefined behaviour, as in MPI (a rank may wait for ever).
   Every rank must pass the same `on` (REDIST_ERR_MISMATCH otherwise: this call is always
   agreed); REDIST_ERR_ARG for on not 0 or 1. */
int redist_coll_set_checking(MPI_Comm comm, int on);
#endif

/* Local, no MPI. The i-th algorithm of an operation ("bcast", ..., "shift"), NULL past the
   end or for an unknown operation. */
const char *redist_coll_algorithm_name(const char *operation, int i);
/* The slides' predicted time of an operation's algorithm (NULL or "auto": the one auto
   would pick, named in *chosen if chosen != NULL) for p ranks and m bytes per block, with
   start-up ts and per-byte tw seconds. shift is costed for its worst shift. Returns
   REDIST_ERR_ARG (unknown operation, p < 1, negative m, ts or tw, NULL seconds),
   REDIST_ERR_UNKNOWN_ALGORITHM or REDIST_ERR_NOT_APPLICABLE (needs a power-of-two p). */
int redist_coll_predict(const char *operation, const char *algorithm, int p, double m, double ts,
                        double tw, double *seconds, const char **chosen);

/* ---- HPF index functions ([TCR96], Table 1) -----------------------------------------
   Pure index math (no MPI, thread-safe) for a 1-D HPF distribution of n elements over P
   processors, all indices 0-based:
     REDIST_HPF_BLOCK     BLOCK(m): element g on processor g / m (contiguous blocks of m);
                          needs m*P >= n; m = 0 means HPF's BLOCK, m = ceil(n/P) (1 if n = 0).
     REDIST_HPF_CYCLIC    CYCLIC = CYCLIC(1): g on processor g mod P (m must be 0 or 1).
     REDIST_HPF_CYCLIC_M  CYCLIC(m), m >= 1: blocks of m dealt round-robin.
   [TCR96] numbers array elements from 1 (g_p, l_p) and processors from 0, with
   CD(j, k) = (j + k - 1) / k and CR(j, k) = j - k*CD(j, k). Here g = g_p - 1, l = l_p - 1 and
   p is unchanged, so e.g. BLOCK(m)'s p = CD(g_p, m) - 1 becomes p = g / m. Table 1, 0-based:
                  processor p          local index l              global index g
     BLOCK(m)     g / m                g mod m                    l + m*p
     CYCLIC       g mod P              g / P                      l*P + p
     CYCLIC(m)    (g / m) mod P        g mod m + (g / (m*P))*m    l mod m + (P*(l / m) + p)*m
   (For CYCLIC(m) the paper prints l_p = mod(g_p - 1, m) + 1 + (g_p / (mP))m; the term
   (g_p - 1) / (mP) is meant and used.) All three are cyclic(m) as redist_layout_create
   defines it (block m, grid P, first 0), and redist_hpf_layout builds that layout.
   Every function checks d as redist_hpf_check does and returns a negative REDIST_ERR_* code
   on a bad d or index (detail: redist_last_error_detail()). */
enum { REDIST_HPF_BLOCK = 0, REDIST_HPF_CYCLIC = 1, REDIST_HPF_CYCLIC_M = 2 };
typedef struct redist_hpf_dist {
    int kind;  /* REDIST_HPF_BLOCK, _CYCLIC or _CYCLIC_M */
    int64_t n; /* global elements, >= 0 */
    int64_t m; /* block size: BLOCK(m) (0: HPF's BLOCK), CYCLIC(m) (>= 1); CYCLIC: 0 or 1 */
    int P;     /* processors, >= 1 */
} redist_hpf_dist;
/* REDIST_SUCCESS, or REDIST_ERR_ARG for d NULL, unknown kind, n < 0, P < 1, m < 0, m > 1 for
   CYCLIC, m = 0 for CYCLIC_M, or BLOCK(m) with m*P < n. */
int redist_hpf_check(const redist_hpf_dist *d);
/* Processor of global index g in [0, n); a negative code otherwise. */
int redist_hpf_owner(const redist_hpf_dist *d, int64_t g);
/* Local index of global index g in [0, n) on its owner; a negative code otherwise. */
int64_t redist_hpf_local(const redist_hpf_dist *d, int64_t g);
/* Global index of local index l on processor p; a negative code unless p is in [0, P) and
   l in [0, redist_hpf_local_count(d, p)). */
int64_t redist_hpf_global(const redist_hpf_dist *d, int p, int64_t l);
/* Number of elements on processor p in [0, P); a negative code otherwise. */
int64_t redist_hpf_local_count(const redist_hpf_dist *d, int p);
/* The same distribution as a 1-D redist layout (extent n, block m, grid P), processor p
   being rank ranks[p] (NULL: rank p), to plan redistributions with. Free it with
   redist_layout_free. */
int redist_hpf_layout(const redist_hpf_dist *d, const int ranks[], redist_layout *layout);

/* ---- BMMC matrices ([Cor97]) ---- */
/* Local helpers to build the permutations passed to redist_plan_create_bmmc ([Cor97]
   §2, Lemma 1, §6, Appendix C). An n x n matrix over GF(2), 0 <= n <= 64, is n words:
   bit i of columns[j] is A[i][j] (bit 0 is the paper's top row). A BMMC permutation maps
   index x to y = A x xor c. Inputs must have no bits at or above n. Functions return
   REDIST_SUCCESS or REDIST_ERR_ARG (n out of range, NULL pointer, stray bits, singular A). */
int redist_bmmc_identity(int n, uint64_t columns[]);
/* Transpose of a 2^a x 2^b matrix stored row-major (n = a + b): element (i, j), row i,
   column j, at x = i 2^b + j goes to y = j 2^a + i (the 2^b x 2^a transpose, row-major). */
int redist_bmmc_transpose(int a, int b, uint64_t columns[]);
/* y_i = x_(n-1-i). */
int redist_bmmc_bit_reversal(int n, uint64_t columns[]);
/* y = N - 1 - x: A = I, *complement = all n bits. */
int redist_bmmc_vector_reversal(int n, uint64_t columns[], uint64_t *complement);
/* Binary reflected Gray code y_i = x_i xor x_(i+1), and its inverse. */
int redist_bmmc_gray(int n, uint64_t columns[]);
int redist_bmmc_gray_inverse(int n, uint64_t columns[]);
/* Rotation of the index bits: bit i of x goes to bit (i + k) mod n of y (any k); k = 1 is the
   perfect shuffle, k = -1 the unshuffle. */
int redist_bmmc_shuffle(int n, int k, uint64_t columns[]);
/* Q of [Cor97] §6 for processor bits at f (0 <= p <= n, 0 <= f <= n - p): global index x
   -> processor-major index (rank << (n-p)) | local offset, the rank and offset being those
   of redist_plan_create_bmmc's layout rule. _inverse gives Q^-1. Example: moving data from
   layout f1 to layout f2 unchanged is the permutation Q_f1^-1 Q_f2 performed with f = f1. */
int redist_bmmc_layout(int n, int p, int f, uint64_t columns[]);
int redist_bmmc_layout_inverse(int n, int p, int f, uint64_t columns[]);
/* Lemma 1: x -> A x xor ca first, then B x' xor cb: out = B A, *cout = B ca xor cb. out may
   be a or b. */
int redist_bmmc_compose(int n, const uint64_t a[], uint64_t ca, const uint64_t b[], uint64_t cb,
                        uint64_t out[], uint64_t *cout);
/* Lemma 1: the inverse permutation, out = A^-1, *cout = A^-1 c; REDIST_ERR_ARG if singular. */
int redist_bmmc_inverse(int n, const uint64_t a[], uint64_t c, uint64_t out[], uint64_t *cout);
/* Rank of A over GF(2) (n means nonsingular), or a negative code. */
int redist_bmmc_rank(int n, const uint64_t a[]);
/* y = A x xor c (bits of x at or above n are ignored). */
uint64_t redist_bmmc_apply(int n, const uint64_t a[], uint64_t c, uint64_t x);

/* ---- ScaLAPACK (in libredist_scalapack: link with -lredist_scalapack) -------------------
   Exactly the arguments and semantics of ScaLAPACK's p?gemr2d_ and p?trmr2d_ (REDIST/SRC):
   all pointers, 1-based ia/ja, DESC[9] = {DTYPE (not read), CTXT, M, N, MB, NB, RSRC, CSRC,
   LLD}, ictxt a BLACS context containing both grids. What ScaLAPACK accepts is accepted
   (LLD >= the local rows, so 0 where a process has none) and what it exits on is refused,
   with the same code on every process (docs/scalapack.md lists each argument), except that
   RSRC or CSRC = -1 (replicated) is accepted as an extension: one replica of A is read,
   every replica of B written. m = 0 or
   n = 0 returns at once, reading and communicating nothing. Every process of ictxt calls; a
   process outside A's grid (or B's) passes that descriptor's CTXT = -1, and its other A (B)
   arguments are not read. The sub-matrix A(ia:ia+m-1, ja:ja+n-1) is copied to
   B(ib:ib+m-1, jb:jb+n-1); nothing else in B's local arrays (LLD padding included) is
   written. p?trmr2d copies only the trapezoid uplo of the sub-matrix as ScaLAPACK reads uplo
   and diag (upper for 'U' or 'u', any other letter lower; the diagonal of an upper one for
   diag 'N' or 'n' only, of a lower one unless diag is 'U' or 'u'; for m != n the trapezoid is
   anchored as in ScaLAPACK's p?trmr2d). Repeated calls reuse a cached plan
   (docs/scalapack.md). The library also exports the unprefixed psgemr2d_ ... and
   Cpdgemr2d ... symbols, so that linking it before ScaLAPACK replaces ScaLAPACK's in an
   unchanged program. The c and z versions take single and double complex arrays. These
   routines return nothing, like ScaLAPACK's: redist_scalapack_last_error gives this
   process's outcome of its last call (the same on every process of ictxt) and *detail a
   message (if detail is not NULL). */
void redist_psgemr2d(int *m, int *n, float *a, int *ia, int *ja, int *desca, float *b, int *ib,
                     int *jb, int *descb, int *ictxt);
void redist_pdgemr2d(int *m, int *n, double *a, int *ia, int *ja, int *desca, double *b, int *ib,
                     int *jb, int *descb, int *ictxt);
void redist_pcgemr2d(int *m, int *n, void *a, int *ia, int *ja, int *desca, void *b, int *ib,
                     int *jb, int *descb, int *ictxt);
void redist_pzgemr2d(int *m, int *n, void *a, int *ia, int *ja, int *desca, void *b, int *ib,
                     int *jb, int *descb, int *ictxt);
void redist_pigemr2d(int *m, int *n, int *a, int *ia, int *ja, int *desca, int *b, int *ib, int *jb,
                     int *descb, int *ictxt);
void redist_pstrmr2d(char *uplo, char *diag, int *m, int *n, float *a, int *ia, int *ja, int *desca,
                     float *b, int *ib, int *jb, int *descb, int *ictxt);
void redist_pdtrmr2d(char *uplo, char *diag, int *m, int *n, double *a, int *ia, int *ja,
                     int *desca, double *b, int *ib, int *jb, int *descb, int *ictxt);
void redist_pctrmr2d(char *uplo, char *diag, int *m, int *n, void *a, int *ia, int *ja, int *desca,
                     void *b, int *ib, int *jb, int *descb, int *ictxt);
void redist_pztrmr2d(char *uplo, char *diag, int *m, int *n, void *a, int *ia, int *ja, int *desca,
                     void *b, int *ib, int *jb, int *descb, int *ictxt);
void redist_pitrmr2d(char *uplo, char *diag, int *m, int *n, int *a, int *ia, int *ja, int *desca,
                     int *b, int *ib, int *jb, int *descb, int *ictxt);
/* PBLAS's transposes with PBLAS's arguments (PBLAS/SRC/p?tran*): sub(C) := beta sub(C) +
   alpha op(sub(A)), sub(C) = C(ic:ic+m-1, jc:jc+n-1) and sub(A) = A(ia:ia+n-1, ja:ja+m-1)
   in one BLACS context (desca[CTXT] = descc[CTXT]; every process of its grid calls);
   op(X) = X^T (p?tran, p?tranu) or X^H (p?tranc). alpha and beta are the element type's
   (complex ones as two reals); beta = 0 never reads C, alpha = 0 never reads A, and alpha = 0
   with beta = 1 returns after the checks. The arguments are checked as PBLAS's PB_Cchkmat
   checks them (DTYPE 1, or 2 with eleven entries; LLD >= 1, and >= the local rows where the
   process holds columns; ...), for m = 0 or n = 0 too; RSRC or CSRC = -1 (a matrix
   replicated over process rows or columns) works as in PBLAS; what PBLAS accepts and redist
   cannot do (a first block IMB x INB other than MB x NB along a grid dimension of more than
   one process, not replicated) is REDIST_ERR_UNSUPPORTED. Same cache and errors
   (redist_scalapack_last_error) as p?gemr2d above; plans are cached per (alpha, beta). The
   library also exports pstran_ ... pztranc_, which replace PBLAS's. */
void redist_pstran(int *m, int *n, float *alpha, float *a, int *ia, int *ja, int *desca,
                   float *beta, float *c, int *ic, int *jc, int *descc);
void redist_pdtran(int *m, int *n, double *alpha, double *a, int *ia, int *ja, int *desca,
                   double *beta, double *c, int *ic, int *jc, int *descc);
void redist_pctranu(int *m, int *n, void *alpha, void *a, int *ia, int *ja, int *desca, void *beta,
                    void *c, int *ic, int *jc, int *descc);
void redist_pztranu(int *m, int *n, void *alpha, void *a, int *ia, int *ja, int *desca, void *beta,
                    void *c, int *ic, int *jc, int *descc);
void redist_pctranc(int *m, int *n, void *alpha, void *a, int *ia, int *ja, int *desca, void *beta,
                    void *c, int *ic, int *jc, int *descc);
void redist_pztranc(int *m, int *n, void *alpha, void *a, int *ia, int *ja, int *desca, void *beta,
                    void *c, int *ic, int *jc, int *descc);
int redist_scalapack_last_error(const char **detail);

#ifdef __cplusplus
}
#endif
#endif /* REDIST_H */
