/* Internal declarations shared by the library's modules (not installed).
 *
 * Naming: public symbols are redist_*, internal non-static symbols redist__*, file-local
 * helpers are static without prefix.
 */
#ifndef REDIST_INTERNAL_H
#define REDIST_INTERNAL_H

#include "redist.h"

#include <stddef.h>
#include <stdint.h>

/* ---- errors (error.c) ------------------------------------------------------------------ */
/* Records a printf-style detail for redist_last_error_detail() and returns err. */
int redist__fail(int err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Like redist__fail, but keeps the detail already recorded after the new text ("building
   the messages of rank 3: <detail>"): for callers that add where a failure happened. */
int redist__fail_context(int err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void redist__clear_error(void);

/* ---- layouts (layout.c): pure index math, no MPI --------------------------------------- */
struct redist_layout_s {
    int ndims;
    int order;       /* REDIST_ROW_MAJOR or REDIST_COL_MAJOR */
    int nprocs;      /* product of grid */
    int max_rank;    /* largest rank in ranks[] */
    int64_t *extent; /* [ndims] */
    int64_t *block;  /* [ndims] */
    int *grid;       /* [ndims] */
    int *first;      /* [ndims] */
    int *ranks;      /* [nprocs] grid position (row-major) -> rank; never NULL */
    int *by_rank;    /* [nprocs] positions sorted by rank, for rank -> position lookup */
};

/* Grid position (row-major linear coordinate) of rank, or -1 if rank is not in the layout. */
int redist__layout_position(const struct redist_layout_s *l, int rank);
/* Coordinates of a grid position. */
void redist__layout_coords_of(const struct redist_layout_s *l, int position, int coords[]);
/* Row-major linear position of coordinates. */
int redist__layout_position_of(const struct redist_layout_s *l, const int coords[]);
/* Number of elements coordinate c holds along dimension k. */
int64_t redist__local_extent(const struct redist_layout_s *l, int k, int c);
/* Local index along k of global index g (owner implied). */
int64_t redist__local_index(const struct redist_layout_s *l, int k, int64_t g);
/* Coordinate along k that owns global index g. */
int redist__owner(const struct redist_layout_s *l, int k, int64_t g);
/* Element strides (in elements) of the local array of a rank with the given local shape. */
void redist__local_strides(const struct redist_layout_s *l, const int64_t shape[],
                           int64_t stride[]);
/* 64-bit FNV-1a fingerprint of a layout, folded into h. */
uint64_t redist__layout_hash(const struct redist_layout_s *l, uint64_t h);
uint64_t redist__hash_bytes(uint64_t h, const void *p, size_t n);
/* REDIST_ERR_ARG unless the whole array, extents times elsize, has fewer than 2^63 bytes (so
   every byte offset and count of a plan fits in int64_t). */
int redist__check_array_bytes(const struct redist_layout_s *l, size_t elsize);
/* Same shape of global array (ndims and extents). */
int redist__same_global_shape(const struct redist_layout_s *a, const struct redist_layout_s *b);
/* Identical distributions (everything but the storage order). */
int redist__same_distribution(const struct redist_layout_s *a, const struct redist_layout_s *b);

/* ---- memory (sysmem.c): what this machine can hold, no MPI ------------------------------- */
/* Bytes of physical memory (REDIST_MEMORY_LIMIT overrides). */
double redist__memory_limit(void);
/* Bytes free for shared-memory segments: /dev/shm's free space, at most the physical memory
   (REDIST_SHM_LIMIT overrides). */
double redist__shm_limit(void);

/* ---- patterns (pattern.c): intersections of two layouts, closed form, no MPI ------------ */

/* A group of `count` runs of `len` elements along one dimension. Replica j starts at local
   index src_off + j*src_period on the source side and dst_off + j*dst_period on the
   destination side (the periods are those of the dimension, see redist__dim_pattern). */
typedef struct redist__run {
    int64_t src_off, dst_off, len, count;
} redist__run;

/* Along one dimension, for one coordinate on one side: the coordinates of the other side it
   exchanges data with and the run groups of each, in increasing global order (the same
   order on both sides, so sender and receiver agree on the message layout). */
typedef struct redist__dim_pattern {
    int npeers;
    int *peer;                      /* [npeers] coordinate on the other side, increasing */
    int64_t *first_run;             /* [npeers+1] run groups of peer i: runs[first_run[i] .. ) */
    int64_t *elems;                 /* [npeers] elements exchanged with peer i along this dim */
    redist__run *runs;              /* all run groups */
    int64_t src_period, dst_period; /* local-index advance per pattern period */
} redist__dim_pattern;

enum { REDIST__SIDE_SRC = 0, REDIST__SIDE_DST = 1 };
/* Pattern along dimension k for coordinate `coord` of side `side` (SRC: which dst coords
   receive from src coord `coord`; DST: which src coords send to dst coord `coord`).
   Cost O(blocks of `coord` in one period + grid of the other side). */
int redist__dim_pattern_create(const struct redist_layout_s *src, const struct redist_layout_s *dst,
                               int k, int side, int coord, redist__dim_pattern *out);
void redist__dim_pattern_free(redist__dim_pattern *p);

/* One level of a message: a dimension's run groups with the local strides (in elements)
   of that dimension in the source and destination arrays. Levels go from the slowest to
   the fastest dimension of the source's storage order; the message buffer holds the
   elements in that nested order. */
typedef struct redist__level {
    const redist__run *runs;
    int64_t nruns;
    int64_t src_period, dst_period; /* local-index advance per period */
    int64_t src_stride, dst_stride; /* element stride of this dimension in the local arrays */
} redist__level;

typedef struct redist__msg {
    int peer; /* comm rank of the other side */
    int nlevels;
    int64_t nelems; /* elements in the message */
    int64_t offset; /* element offset of the message in the plan's pack buffer */
    redist__level *levels;
    redist__run *owned_runs; /* runs of merged levels, owned by the message */
} redist__msg;

/* The messages of one rank: built from the per-dimension patterns of its source coordinate
   (sends) or its destination coordinate (receives). */
typedef struct redist__side {
    int ndims;
    int in_layout;             /* the rank holds a coordinate on this side */
    redist__dim_pattern *dims; /* [ndims] */
    int nmsgs;
    redist__msg *msgs; /* sorted by peer rank */
    int64_t total_elems;
} redist__side;

/* Builds the send (side SRC) or receive (side DST) messages of `rank`. */
int redist__side_create(const struct redist_layout_s *src, const struct redist_layout_s *dst,
                        int side, int rank, redist__side *out);
void redist__side_free(redist__side *s);
/* Both sides of `rank`, with the part it sends to itself taken out of both into *self
   (*has_self says whether there is one) and message offsets assigned in the pack buffers. */
int redist__sides_create(const struct redist_layout_s *src, const struct redist_layout_s *dst,
                         int rank, redist__side *send, redist__side *recv, redist__msg *self,
                         int *has_self);
void redist__msg_free(redist__msg *m);
/* Run groups stored by a side (the plan's size; grows with blocks per period, not with
   elements). */
int64_t redist__side_runs(const redist__side *s);

/* ---- copy engine (copy.c) -------------------------------------------------------------- */
/* Packs a message from the local source array into a contiguous buffer. */
void redist__pack(const redist__msg *m, const char *src, char *buf, size_t elsize);
/* Unpacks a contiguous buffer into the local destination array. */
void redist__unpack(const redist__msg *m, const char *buf, char *dst, size_t elsize);
/* Copies a message straight from the source array to the destination array (self part). */
void redist__copy(const redist__msg *m, const char *src, char *dst, size_t elsize);

/* ---- derived datatypes (sched/datatype.c) ---------------------------------------------- */
/* The committed datatype of message m over the source (use_dst = 0) or destination array.
   Run lengths and counts must fit in int (summary max_run_value). */
int redist__message_type(const redist__msg *m, int use_dst, MPI_Datatype elem, size_t es,
                         MPI_Datatype *out);

/* ---- cost model (model.c) -------------------------------------------------------------- */
typedef struct redist__model {
    double startup;       /* T_d: seconds per synchronised step (or a first message) */
    double per_message;   /* seconds per further message in flight at the same time */
    double per_byte;      /* tau_d: seconds per byte sent */
    double copy_per_byte; /* seconds per byte of local copy, pack or unpack */
    double per_piece;     /* seconds per contiguous piece MPI's datatype engine handles */
} redist__model;
const redist__model *redist__model_default(void);

/* The global quantities of a redistribution the model and the algorithms' rules use. */
typedef struct redist__summary {
    int comm_size;
    int64_t max_messages;    /* max over ranks of max(messages sent, messages received) */
    int64_t max_bytes;       /* max over ranks of max(bytes sent, bytes received) */
    int64_t max_copy_bytes;  /* max over ranks of the self part */
    int64_t max_local_bytes; /* max over ranks of max(src, dst) local bytes */
    int64_t total_messages;
    int64_t total_bytes;
    int64_t max_count;         /* max elements of one message (MPI int limits) */
    int64_t max_buffer;        /* max elements of one rank's pack buffer */
    int64_t max_run_value;     /* largest run length or count */
    int64_t max_sent_messages; /* max over ranks of messages sent */
    int64_t max_sent_bytes;    /* max over ranks of bytes sent */
    int64_t max_pieces;        /* max over ranks of contiguous pieces a rank sends or receives */
    int direct_steps;          /* steps of the direct schedule: the rows of P_s that move data
                                  in paper 000's table case, else the distinct shifts used */
    int64_t table_K;           /* K of the table case R_x(K, P) (circulant.h), 0 if none */
    int64_t ratio_K;           /* block ratio of a 1-D same-ranks pair, any K; 0 if none */
    int same_line_1d;          /* 1-D, same ranks, grid and first coordinate (paper 001) */
    int bmmc_rounds;           /* a bit permutation (bmmc applies): 2^rank(lambda); else 0 */
    int64_t x_block, y_block;  /* its source and destination blocks */
    int indirect_steps;        /* steps of paper 000's indirect schedule (table case) */
    int indirect_shift_steps;  /* of which circular shifts: ceil(log K') + ceil(log G) */
    int multiphase_steps;      /* direct steps summed over the prime factors of K */
    int multiphase_phases;     /* the number of prime factors (phases) */
    int hybrid_degree;         /* d of the hybrid schedule (the option, or the model's) */
    int hybrid_steps;          /* its steps */
    int alltoall_algo;         /* alltoall-padded: -1 = MPI_Ialltoall, else the index of paper
                                  002's all-to-all algorithm (coll.h) */
    size_t elsize;
} redist__summary;

/* Per-rank quantities, reduced with MAX across ranks (plan.c) or over all ranks in a loop
   (explain.c) to give a summary. */
enum {
    REDIST__S_MESSAGES,      /* max(messages sent, messages received) */
    REDIST__S_BYTES,         /* max(bytes sent, bytes received) */
    REDIST__S_COPY,          /* self part, bytes */
    REDIST__S_LOCAL,         /* max(src, dst) local bytes */
    REDIST__S_MAXCOUNT,      /* elements of the largest message */
    REDIST__S_BUFFER,        /* max(send, receive) pack-buffer elements */
    REDIST__S_RUNVALUE,      /* largest run length or count (MPI datatype int limits) */
    REDIST__S_SENT_MESSAGES, /* messages sent */
    REDIST__S_SENT_BYTES,    /* bytes sent */
    REDIST__S_PIECES,        /* max(contiguous pieces sent, pieces received) */
    REDIST__S_NVALS
};
void redist__summary_local(const redist__side *send, const redist__side *recv,
                           const redist__msg *self, int64_t src_count, int64_t dst_count,
                           size_t elsize, int64_t vals[REDIST__S_NVALS]);
/* Marks flags[k] = 1 for each shift k = (peer - rank) mod size this rank sends with. */
void redist__shift_flags(const redist__side *send, int rank, int size, unsigned char flags[]);
void redist__summary_finish(const int64_t vals[REDIST__S_NVALS], const unsigned char flags[],
                            int size, size_t elsize, redist__summary *s);
/* Adds what paper 000's table case (if the pair is one) changes: table_K, direct_steps. */
void redist__summary_tables(redist__summary *s, const struct redist_layout_s *src,
                            const struct redist_layout_s *dst, int hybrid_degree);

/* ---- algorithms (one file each under src/sched)
 * ------------------------------------------------------------ */
struct redist_plan_s;
typedef struct redist__algorithm {
    const char *name;
    /* Pure, from global quantities (the same on every rank): REDIST_SUCCESS or
       REDIST_ERR_NOT_APPLICABLE. */
    int (*applicable)(const redist__summary *s);
    /* Communication rounds of one execute. */
    int (*steps)(const redist__summary *s);
    /* Local setup after the messages exist (buffers, datatypes). */
    int (*setup)(struct redist_plan_s *plan);
    /* Begin one execution: post, pack, copy the self part. */
    int (*start)(struct redist_plan_s *plan);
    /* Progress; sets *done when complete. blocking: wait until complete. */
    int (*progress)(struct redist_plan_s *plan, int blocking, int *done);
    void (*destroy)(struct redist_plan_s *plan);
    /* Optional: this rank's messages and bytes when they are not the pattern's (relays). */
    void (*local_stats)(const struct redist_plan_s *plan, redist_stats *stats);
    /* Optional, pure: {max messages sent, max bytes sent, total messages, total bytes} over
       all ranks, when they are not the pattern's. */
    int (*explain)(const struct redist_layout_s *src, const struct redist_layout_s *dst,
                   const redist__summary *s, int64_t out[4]);
    int uses_shm;          /* its point-to-point messages may use the shared-memory transport */
    int dry_needs_buffers; /* a dry execution still needs arrays of the right size */
    int packs;             /* it packs into the plan's send and receive buffers */
    int has_transports;    /* it can also move messages as derived datatypes (datatype.c) */
} redist__algorithm;

extern const redist__algorithm redist__algo_direct_async;
extern const redist__algorithm redist__algo_direct;
extern const redist__algorithm redist__algo_alltoallv;
extern const redist__algorithm redist__algo_alltoallw;
extern const redist__algorithm redist__algo_indirect;
extern const redist__algorithm redist__algo_hybrid;
extern const redist__algorithm redist__algo_alltoall_padded;
extern const redist__algorithm redist__algo_multiphase;
extern const redist__algorithm redist__algo_general;
extern const redist__algorithm redist__algo_ky_to_y;
extern const redist__algorithm redist__algo_x_to_kx;
extern const redist__algorithm redist__algo_gcd;
extern const redist__algorithm redist__algo_lcm;
extern const redist__algorithm redist__algo_bmmc;
/* A block-cyclic pair that is a bit permutation (bmmc/perform.c): 1-D, one process set,
   N, P and both blocks powers of two; gives lg N, lg P and the blocks' logs. */
int redist__bpc_detect(const struct redist_layout_s *src, const struct redist_layout_s *dst, int *n,
                       int *p, int *f1, int *f2);
/* Rounds of the bmmc algorithm for such a pair (0 if it is not one). */
int redist__bpc_rounds(const struct redist_layout_s *src, const struct redist_layout_s *dst);

/* The table of algorithms (index 0 is "auto", which has no entry here: NULL). */
const redist__algorithm *redist__algorithm_by_name(const char *name);
/* The cheapest applicable algorithm for a summary (the "auto" rule). */
const redist__algorithm *redist__choose(const redist__summary *s);
double redist__predict(const redist__algorithm *a, const redist__summary *s);
/* The transport (REDIST_TRANSPORT_PACK or _DATATYPE) an algorithm uses for a summary when
   the user asks for `requested` (REDIST_TRANSPORT_AUTO: the cheaper under the model). */
int redist__choose_transport(const redist__algorithm *a, const redist__summary *s, int requested);
double redist__predict_transport(const redist__algorithm *a, const redist__summary *s,
                                 int transport);

/* ---- plans (plan.c, exec.c) ------------------------------------------------------------ */
struct redist_plan_s {
    MPI_Comm comm;
    MPI_Datatype type;
    int rank, size;
    size_t elsize;
    const redist__algorithm *algo;
    redist_layout src, dst;       /* private copies */
    int64_t src_count, dst_count; /* local elements */
    redist__side send, recv;
    redist__msg *self;       /* the part this rank sends to itself, or NULL */
    int send_msg_of_self;    /* index of the self message in send.msgs, or -1 */
    char *sendbuf, *recvbuf; /* pack / unpack buffers, allocated at plan time */
    double buffer_bytes;     /* data buffers allocated so far (redist__plan_buffer) */
    redist__summary summary;
    redist_stats stats;
    int check_arguments;
    int hybrid_degree;       /* the option: -1 lets the model choose */
    int synchronous_receive; /* the option (paper 001's synchronous method) */
    int bmmc_method;         /* the option: bmmc's communication */
    int alltoall_algo;       /* alltoall-padded: -1 MPI_Ialltoall, -2 paper 002's "auto" (chosen
                                at setup), else that algorithm's index (coll.h) */

    /* One execution in flight. */
    int active;
    int algo_done; /* the algorithm's progress reported done; only the agreement remains */
    int dry;       /* this rank's arguments were bad: communicate, touch nothing */
    const char *cur_src;
    char *cur_dst;
    int local_error, global_error;
    MPI_Request check_req;
    void *algo_state; /* the algorithm's private state */

    /* How messages move: REDIST_TRANSPORT_PACK (our packers, pack buffers) or
       REDIST_TRANSPORT_DATATYPE (one derived datatype per message over the user arrays). */
    int transport;
    MPI_Datatype *send_types, *recv_types; /* per message, datatype transport */
    char *dry_src, *dry_dst; /* scratch arrays for a dry execution that hands MPI buffers */

    /* Shared-memory transport (shm.c), NULL when messages all go through MPI. */
    struct redist__shm *shm;
    int *send_local, *recv_local; /* per message: the peer shares our node's memory */
    const char **recv_at;         /* per receive message on the node: its packed data */
};

typedef struct redist__shm redist__shm;
/* Collective over the plan's communicator. Replaces the send buffer by a shared window. */
int redist__shm_setup(struct redist_plan_s *plan);
void redist__shm_free(struct redist_plan_s *plan);
/* Memory barrier for the window (MPI_Win_sync) around notifications. */
void redist__shm_sync(struct redist_plan_s *plan);

/* Size of a contiguous element type, or an error for types we cannot copy as bytes. */
int redist__element_size(MPI_Datatype type, size_t *elsize);

/* ---- agreement (agree.c) ----------------------------------------------------------------- */
/* REDIST_ERR_MPI (with a detail) unless MPI is initialized and not yet finalized. Local. */
int redist__check_mpi(void);

/* Fingerprints of the arguments that must be the same on every rank, one per named field. */
enum { REDIST__MAX_FINGERPRINTS = 32, REDIST__LAYOUT_FIELDS = 7, REDIST__DETAIL_LEN = 512 };
typedef struct redist__fingerprint {
    const char *name; /* static: "src block", "algorithm", ... */
    uint64_t hash;
} redist__fingerprint;
typedef struct redist__fingerprints {
    int n;
    redist__fingerprint f[REDIST__MAX_FINGERPRINTS];
} redist__fingerprints;
void redist__fp_add(redist__fingerprints *fp, const char *name, const void *data, size_t n);
void redist__fp_add_string(redist__fingerprints *fp, const char *name, const char *s);
/* The layout's ndims, extent, block, grid, first, ranks and order, under the given names (l
   may be NULL: empty fields). */
void redist__fp_layout(redist__fingerprints *fp, const char *const names[REDIST__LAYOUT_FIELDS],
                       const struct redist_layout_s *l);
/* The agreement step, collective over comm: the worst status over all ranks (the same code
   everywhere, with the failing rank's detail), else REDIST_ERR_MISMATCH naming the first
   field whose fingerprints differ (fp may be NULL: nothing to compare). */
int redist__agree(MPI_Comm comm, int rank, int err, const redist__fingerprints *fp);
/* REDIST_ERR_ARG (naming the field) for an option value out of range, UNKNOWN_ALGORITHM for
   an unknown alltoall_algorithm; NULL options are the defaults. Local (plan.c). */
int redist__check_options(const redist_options *opt, int comm_size);
/* The options' fingerprints (algorithm name and every field), for redist__agree (plan.c). */
void redist__fp_options(redist__fingerprints *fp, const redist_options *opt);
/* malloc for a plan's data buffers (pack buffers, relays, phases' arrays): NULL, with a
   detail, once the plan's buffers would exceed this machine's memory, so that a plan that
   could never run fails at creation (REDIST_ERR_NOMEM) instead of being killed later. */
void *redist__plan_buffer(struct redist_plan_s *p, size_t bytes);
/* redist_start for a plan run inside another plan's execution (phases): dry = 1 runs it dry
   (every message posted, no user memory touched), as the outer execution is. */
int redist__start_inner(redist_plan inner, const void *src, void *dst, int dry);
/* Frees a plan and everything it owns (the communicator and type copies included). */
void redist__plan_destroy(struct redist_plan_s *plan);

/* Element-count limit of one MPI call's count argument. */
#define REDIST__MAX_INT_COUNT ((int64_t)2147483647)
/* Messages are sent in chunks of at most this many bytes. */
#define REDIST__CHUNK_BYTES ((int64_t)1 << 30)
int64_t redist__chunks(int64_t bytes);

/* Duplicates a small array (NULL if n == 0 or on failure; *ok = 0 on failure). */
void *redist__memdup(const void *p, size_t n);

#endif
