/* Internal (not installed): the exec layer. A plan's state, the interface every
 * redistribution algorithm implements, and the machinery algorithms share to move data:
 * execution (start/test/wait with the execute-time agreement), derived datatypes, the
 * shared-memory window, plan buffers (the local copies along a pattern are index.h's). The
 * point-to-point engine is in engine.h. Above the model; the algorithms (src/algo/) build on it.
 */
#ifndef REDIST_EXEC_H
#define REDIST_EXEC_H

#include "exec/agree.h"
#include "model/model.h"

#include <mpi.h>

struct redist_plan_s;
struct redist__algorithm_table; /* the algorithms a planner chooses from (planner/planner.h) */

/* The address the Fortran module passes for a buffer it cannot hand over (a non-contiguous
   array section; defined in exec.c). An execute given it fails with REDIST_ERR_ARG, agreed like
   every buffer error. */
const void *redist_f_not_contiguous(void);

/* ---- the algorithm interface ---------------------------------------------------------------
   One file per algorithm defines one of these (src/algo/, src/bmmc/perform.c) and the
   registry (src/algo/registry.c) lists it. Its rules are pure, from the case (the same on
   every rank) and the machine's parameters; its run functions drive one plan. Whether it may
   run a case with given options is decided in one place, redist__algo_usable (planner.h),
   from `applicable`, `why_not` and the flags `bounded`, `unscaled` and `transports`. */
enum { /* the transports an algorithm can move messages with (bits) */
       REDIST__T_PACK = 1 << REDIST_TRANSPORT_PACK,
       REDIST__T_DATATYPE = 1 << REDIST_TRANSPORT_DATATYPE
};
/* What all ranks of a communicator send in one execute: an algorithm's explain hook fills it
   when its traffic is not the pattern's (relays, padding, phases). */
typedef struct redist__traffic_summary {
    int64_t max_messages_per_rank; /* the most messages one rank sends */
    int64_t max_bytes_per_rank;    /* the most bytes one rank sends */
    int64_t total_messages;        /* over all ranks */
    int64_t total_bytes;
} redist__traffic_summary;
typedef struct redist__algorithm {
    const char *name;
    /* REDIST_SUCCESS or REDIST_ERR_NOT_APPLICABLE. */
    int (*applicable)(const redist__case *c);
    /* What `applicable` asks of the case, in words that complete "algorithm '<name>' ...":
       "needs ...". The NOT_APPLICABLE detail of a forced algorithm that does not apply says
       it. NULL only for an algorithm that always applies. */
    const char *why_not;
    /* Communication rounds of one execute. */
    int (*steps)(const redist__case *c, const redist__machine *m, const redist_options *opt);
    /* Predicted seconds of one execute with the given transport (one of `transports`). */
    double (*predict)(const redist__case *c, const redist__machine *m, const redist_options *opt,
                      int transport);
    unsigned transports; /* REDIST__T_* bits */
    /* Optional: checks the options this algorithm reads (REDIST_ERR_ARG naming the field,
       REDIST_ERR_UNKNOWN_ALGORITHM), and their fingerprints for the agreement. */
    int (*check_options)(const redist_options *opt, int comm_size);
    void (*fingerprint_options)(redist__fingerprints *fp, const redist_options *opt);
    /* Local setup after the messages exist (buffers, datatypes); may create child plans. */
    int (*setup)(struct redist_plan_s *plan);
    /* Begin one execution: post, pack, copy the self part. */
    int (*start)(struct redist_plan_s *plan);
    /* Progress; sets *done when complete. blocking: wait until complete. */
    int (*progress)(struct redist_plan_s *plan, int blocking, int *done);
    void (*destroy)(struct redist_plan_s *plan);
    /* Optional: this rank's messages and bytes when they are not the pattern's (relays). */
    void (*local_stats)(const struct redist_plan_s *plan, redist_stats *stats);
    /* Optional, pure: what all ranks send, when it is not the pattern's (needs c->src and
       c->dst). */
    int (*explain)(const redist__case *c, const redist__machine *m, const redist_options *opt,
                   redist__traffic_summary *out);
    int uses_shm;          /* its point-to-point messages may use the shared-memory transport */
    int dry_needs_buffers; /* a dry execution still needs arrays of the right size */
    int packs;             /* it packs into the plan's send and receive buffers */
    int bounded;           /* it runs in bounded mode (strip.c) when the plan is bounded */
    int is_batch;          /* a batch plan's exchange (api/batch.c): not for redist_start */
    int unscaled;          /* it places elements as they are: no alpha, beta or conjugate (bmmc) */
    int reduces;           /* it reduces partial values (options.reduce); the others refuse
                              a partial source */
    int device;            /* every move of the arrays goes through redist__par_move or
                              redist__par_cursor_move, so device memory works (kernels and
                              staging, staging.c); else NOT_APPLICABLE for device plans */
    int gpu_mpi;           /* its messages through MPI go by engine.c's pack_and_send,
                              send_packed and finish_recv, which hand a GPU-aware MPI device
                              buffers (plan.gpu_mpi) */
} redist__algorithm;

/* The words for a plain pair, which the papers' special cases need (layout.c's `plain`): the
   end of several algorithms' why_not. */
#define REDIST__PLAIN_WHY "(no irregular blocks, no window starting inside a block)"

/* Whether the algorithm can scale while unpacking (options alpha, beta, conjugate). */
static inline int redist__algo_scales(const redist__algorithm *a)
{
    return (a->transports & REDIST__T_PACK) && !a->unscaled;
}

/* Rules shared by several algorithms. */
int redist__always_applicable(const redist__case *c);
/* One round if any rank sends, else none. */
int redist__one_step(const redist__case *c, const redist__machine *m, const redist_options *opt);

/* ---- derived datatypes (datatype.c) ---------------------------------------------------- */
/* The committed datatype of message m over the source (use_dst = 0) or destination array.
   Run lengths and counts must fit in int (traffic max_run_value). */
int redist__message_type(const redist__msg *m, int use_dst, MPI_Datatype elem, size_t es,
                         MPI_Datatype *out);

/* ---- plans ------------------------------------------------------------------------------ */
struct redist_plan_s {
    MPI_Comm comm;
    MPI_Datatype type;
    int rank, size;
    size_t elsize;
    const redist__algorithm *algo;
    const struct redist__algorithm_table *algorithms; /* chosen from; its children choose too */
    redist_layout src, dst;                           /* private copies */
    int64_t src_count, dst_count;                     /* local elements */
    /* dst = beta dst + alpha op(src) (options.alpha, beta, conjugate): every move into the
       destination goes through scale (index/scale.h); NULL: a copy. */
    redist__scale scale_store;
    const redist__scale *scale;
    /* Windows and padding (window.c): the elements of the local arrays the plan touches,
       [lo, hi), and the element offset of local index 0 that execute adds to the user's
       pointers (not for a child plan, whose parent already did). */
    int64_t src_lo, src_hi, dst_lo, dst_hi, src_base, dst_base;
    redist__side send, recv;
    redist__msg *self;       /* the part this rank sends to itself, or NULL */
    int send_msg_of_self;    /* index of the self message in send.msgs, or -1 */
    char *sendbuf, *recvbuf; /* pack / unpack buffers, allocated at plan time */
    int gpu_mpi; /* device plans with a GPU-aware MPI: messages through MPI are packed into and
                    unpacked from device buffers that MPI reads and writes (no host staging) */
    char *dsendbuf, *drecvbuf; /* those buffers (device memory, at the messages' offsets) */
    double buffer_bytes;       /* data buffers allocated so far (redist__plan_buffer) */
    int bounded;               /* bounded mode: chunks through at most `bound` bytes */
    int64_t bound;
    redist__case pair;              /* traffic and shape, the same on every rank */
    const redist__machine *machine; /* the model's parameters the plan was chosen with */
    redist__machine machine_agreed; /* this process's, then agreed at plan time (planner.c) */
    double node_load; /* ranks per core of this rank's node (>= 1; 0: not yet measured) */
    int not_one_node; /* 1: this plan's ranks span more than one node */
    int node_ranks;   /* the plan's ranks on this rank's machine (MPI_COMM_TYPE_SHARED, virtual
                         nodes or not): they share its memory and cores */
    redist__node_map *nodes; /* the node of every rank, where the plan spans nodes (else NULL) */
    redist_options opt;      /* the options (alltoall_algorithm: opt_strings) */
    struct redist__shared *held[2];    /* redist_alloc allocations holding this execute's src and
                                          dst (exec/shared.h): in flight until it completes */
    struct redist__shared **held_more; /* a batch's: its arrays' allocations, nheld_more of them
                                          (allocated with the batch), released alike */
    int nheld_more;
    void *held_dev[2]; /* redist_device_alloc allocations (their bases) holding this execute's
                          src and dst (device.h's given allocations), alike */
    struct redist__staging *device; /* device memory (options.memory; staging.c): NULL for
                                       host arrays */
    int threads;              /* threads for local moves (options.threads resolved; threads.c) */
    int cores;                /* CPUs this rank may run on at creation (redist__cores) */
    int64_t thread_min_bytes; /* the least a thread of a team moves */
    char *opt_strings;        /* owned copies of the options' strings */
    redist_stats stats;
    int check_arguments;

    /* One execution in flight. */
    uint64_t executes; /* started so far (this one included) */
    int active;
    int algo_done; /* the algorithm's progress reported done; only the agreement remains */
    int broken;    /* an MPI call failed in an execution: messages may be left in flight, so
                      later executions would match them; the plan only frees */
    int dry;       /* this rank's arguments were bad: communicate, touch nothing */
    const char *cur_src;
    char *cur_dst;
    int local_error, global_error;
    MPI_Request check_req;
    /* Device plans: the execute's device failure (a kernel, a copy, a peer's src this rank
       could not map: known to one rank) agreed at its end, as the arguments at its start */
    int device_error, device_agreed, device_agreeing;
    MPI_Request device_req;
    char *dry_src, *dry_dst; /* scratch arrays for a dry execution that hands MPI buffers */
    void *algo_state;        /* the algorithm's private state */

    /* How messages move: REDIST_TRANSPORT_PACK (our packers, pack buffers; between ranks of
       a node through their shared memory where it applies) or REDIST_TRANSPORT_DATATYPE (one
       derived datatype per message over the user arrays). Each transport keeps its state in
       its own struct, NULL where the plan does not use it (as algorithms keep theirs in
       algo_state). */
    int transport;
    struct redist__datatypes *datatypes; /* the datatype transport (datatype.c) */
    struct redist__shm *shm;             /* the shared-memory window (shm.c) */
};

/* The datatype transport: one committed type per message (send.nmsgs, recv.nmsgs). */
typedef struct redist__datatypes {
    MPI_Datatype *send, *recv;
} redist__datatypes;
/* The plan's message types over the source (send) and destination (recv) arrays. Local:
   REDIST_ERR_NOMEM, REDIST_ERR_MPI; what was made is freed with the plan. */
int redist__datatypes_setup(struct redist_plan_s *plan);
void redist__datatypes_free(struct redist_plan_s *plan);

/* The shared-memory transport: the node's window that holds this rank's send buffer (its
   pack buffer, or bounded mode's send slots), and the messages whose peer shares it. */
typedef struct redist__shm {
    MPI_Comm node;
    MPI_Win win;
    char *base;
    int64_t bytes;                /* this rank's part of the window */
    int one_node;                 /* every rank of the plan shares the window's node */
    int *send_local, *recv_local; /* per message: the peer shares our node's memory */
    const char **recv_at;         /* per receive message on the node: its packed data */
    /* The notifications' contents (onecopy.c): per message, 0 0 0 (the data is packed in the
       sender's window) or the allocation id, the sender's rank in its node and the byte
       offset of its src's local index 0 there (one copy: the receiver reads src itself) */
    int64_t (*note_out)[3], (*note_in)[3];
    struct redist__onecopy *one; /* NULL: no one-copy path for this plan */
} redist__shm;
/* Collective over the plan's communicator. Replaces the send buffer by a shared window of
   window_bytes on this rank (the send volume, or bounded mode's send slots). */
int redist__shm_setup(struct redist_plan_s *plan, int64_t window_bytes);
void redist__shm_free(struct redist_plan_s *plan);
/* Memory barrier for the window (MPI_Win_sync) around notifications. */
void redist__shm_sync(struct redist_plan_s *plan);
/* ---- one copy on a node (onecopy.c) ----------------------------------------------------
   Where a rank's src lies in a redist_alloc allocation that a node peer can map, the peer
   copies its elements straight from that src into its own dst: no pack, no window. Made at
   plan creation for plans with the shared-memory window (collective over the node: each
   rank learns its peers' local storage and builds their messages to it); nothing for other
   plans (p->shm->one stays NULL). */
int redist__onecopy_setup(struct redist_plan_s *p);
void redist__onecopy_free(struct redist_plan_s *p);
/* Sender, at execute: send message i's notification (p->shm->note_out[i]) says one copy
   (returns 1: do not pack it) or the window (0). */
int redist__onecopy_offer(struct redist_plan_s *p, int i);
/* Receiver: receive message i arrived with a one-copy notification: copy it from the
   sender's src into dst (scaled). REDIST_SUCCESS or an error (the plan's). 0 from
   onecopy_offered if message i's notification says the window. */
int redist__onecopy_offered(const struct redist_plan_s *p, int i);
int redist__onecopy_copy(struct redist_plan_s *p, int i);
/* Receive messages msgs[0 .. n) (offered), and the self part if with_self (one without
   tiles), copied together in the destination's order (onecopy.c). */
int redist__onecopy_copy_together(struct redist_plan_s *p, int *msgs, int n, int with_self);
/* For plans without the window (batches): whether plan rank `peer` of comm shares
   allocation a's node and [lo, hi) of this rank's memory lies in a; then note = {a's id,
   this rank's rank in a's node, base's byte offset in its segment} (else zeros). */
int redist__onecopy_locate(MPI_Comm comm, int peer, const struct redist__shared *a,
                           const char *base, const char *lo, const char *hi, int64_t note[3]);
/* The base a peer's note points at, in this process (NULL: not mappable here). */
const char *redist__onecopy_source(const int64_t note[3]);
/* Counts n more messages copied once (redist__onecopy_messages). */
void redist__onecopy_count(int n);
/* Moves msgs[x] (COPY kind; tiles are not used) from srcs[x] into dst, all together: cut
   into parts of about part_bytes of dst in all, part k of every move before part k + 1 of
   any (dst's order, a stretch that stays in cache), split among p's team (p gives the
   element size, scaling and threads). */
void redist__copy_in_parts(const struct redist_plan_s *p, const redist__msg *const *msgs,
                           const char *const *srcs, int n, char *dst, int64_t part_bytes);
/* The scratch of copies in dst's order by rows (index/pull.c), made with the plan or batch
   for its moves (nothing allocated per execute): a group's members and sources, which moves
   are taken, the merged runs (at most 2^14), per thread the rows' positions. streaming: the
   machine's stream_gain is over 1 (non-temporal stores for copies of 4 MiB or more). */
typedef struct redist__pullbuf {
    const redist__msg **members;
    const char **member_src;
    char *taken;
    redist__pull_run *runs;
    int64_t cap, scratch; /* runs; scratch entries per thread */
    int64_t *rows;
    int threads, streaming;
} redist__pullbuf;
/* For up to n moves at once among msgs (the plan's machine, threads). */
int redist__pullbuf_init(redist__pullbuf *b, const struct redist_plan_s *p,
                         const redist__msg *const *msgs, int n);
void redist__pullbuf_free(redist__pullbuf *b);
/* Moves msgs[0 .. n) (COPY, from srcs[x] into dst) that fill the same rows of dst copied
   together, group by group, every row in dst's order, split among p's team; the others are
   moved to the front of msgs / srcs and their number returned (scaled copies: all of them). */
int redist__pull_together(const struct redist_plan_s *p, redist__pullbuf *b,
                          const redist__msg **msgs, const char **srcs, int n, char *dst);
/* The dst bytes per part of a copy together (REDIST_ONECOPY_PART_BYTES, default 256 KiB). */
int64_t redist__onecopy_part_bytes(void);
/* Bounded mode (strip.c): elements [lo, hi) of receive message i, copied from the sender's
   src that note (its offer's contents) points at. The message counts as copied once with its
   last range. */
int redist__onecopy_copy_range(struct redist_plan_s *p, int i, const int64_t note[3], int64_t lo,
                               int64_t hi);
/* Whether an ld is 0 along every one of d dimensions: the storage is what the layout alone
   says (a receive message's guess of the sender's storage is then exact). */
int redist__ld_dense(const int64_t *ld, int d);
/* Copying where the sender stores its elements otherwise than the receiver's message
   guesses (an ld on either side): the sender's own message to this rank, built from a copy
   of p's src layout carrying the sender's ld q_ld (gathered over the node), walks the
   sender's src, and the receive message m walks dst. *side owns it, *out points into it;
   *max_levels grows to cover both. 0 or an error. */
int redist__peer_msg(const struct redist_plan_s *p, const redist__msg *m, const int64_t *q_ld,
                     redist__side *side, const redist__msg **out, int *max_levels);
/* The pass-through buffers of such copies: per thread, a chunk that stays in the cache and
   both messages' cursors (made with the plan or batch: nothing is allocated per execute). */
typedef struct redist__walkbuf {
    char *chunk; /* [threads][chunk_bytes] */
    int64_t chunk_bytes;
    int64_t *cursors; /* [threads]: the scratch of both cursors, max_levels + 1 each */
    int max_levels, threads;
} redist__walkbuf;
int redist__walkbuf_init(redist__walkbuf *w, int threads, size_t elsize, int max_levels);
void redist__walkbuf_free(redist__walkbuf *w);
/* Elements [lo, hi) of receive message `to` copied from the sender's src into dst (scaled as
   p says, by p's team of at most w->threads): through w's chunks, walking src with `from`
   (redist__peer_msg), or, from NULL, by the walker alone (both sides dense). */
void redist__copy_walked(const struct redist_plan_s *p, const redist__walkbuf *w,
                         const redist__msg *from, const redist__msg *to, const char *src, char *dst,
                         int64_t lo, int64_t hi);
/* Messages this process has copied once so far (tests: tests/mpi/test_onecopy.c). */
uint64_t redist__onecopy_messages(void);
/* ---- GPU-aware MPI (gpu_mpi.c) ------------------------------------------------------------
   1 if the MPI library takes CUDA device pointers: REDIST_GPU_AWARE_MPI=0 or 1 if set, else
   Open MPI's MPIX_Query_cuda_support or MPICH's MPIX_GPU_query_support, looked up at run
   time (absent: 0). why (may be NULL): what decided, for explain. Local; after MPI_Init. */
int redist__mpi_gpu_aware(char *why, size_t len);
/* Device plans: sets p->gpu_mpi and the device buffers where the algorithm can (gpu_mpi),
   the arrays are device memory on every rank (memory = CUDA), not bounded, packed, some
   message goes through MPI and the MPI library is GPU-aware; else leaves it 0 (a device
   buffer that cannot be allocated too: staged as before). Local: MPI moves bytes between any
   buffers, so ranks may differ. */
void redist__gpu_mpi_setup(struct redist_plan_s *p);
/* 1 if p's device buffers may go to MPI: a CUDA plan, a GPU-aware MPI, and a backend whose
   memory MPI reaches (not the emulated device's, but for tests that set
   REDIST_EMULATED_MPI_VIEW: their PMPI wrappers hand MPI its host view). */
int redist__gpu_mpi_usable(const struct redist_plan_s *p);
/* Where send (is_send) or receive message i is packed or unpacked for MPI: the device
   buffer (gpu_mpi) or the host one. */
char *redist__msg_buffer(const struct redist_plan_s *p, int is_send, int i);

/* ---- one copy between device arrays on a node (onecopy_device.c) ------------------------
   A device plan's receiver pulls a node peer's message straight from the peer's device src
   (the driver's inter-process memory) into its dst: no pack, no staging, one copy on the
   GPUs. Made by onecopy_setup for device plans whose backend can (collective over the node:
   a board of handles, and a probe of which peers can map whose memory); onecopy_offer,
   _copy and _copy_together use it. from[i]: the sender's message of local receive i (its
   storage), NULL for the others. Every rank of the node calls it; one that is not `ready`
   (failed before) takes part in its collectives, keeps nothing and fails it on all. */
struct redist__onecopy_device;
int redist__onecopy_device_setup(struct redist_plan_s *p, const redist__msg *const *from, int ready,
                                 int nrecv, struct redist__onecopy_device **out);
void redist__onecopy_device_free(struct redist_plan_s *p, struct redist__onecopy_device *d);
/* Sender: 1 if send message i's peer pulls it (note set: {-1, node rank, src offset}). */
int redist__onecopy_device_offer(struct redist_plan_s *p, struct redist__onecopy_device *d, int i,
                                 int64_t note[3]);
/* Receiver: queues the pull of offered receive message i on the plan's stream (the caller
   waits for it before acknowledging). A sender's allocation that cannot be mapped is the
   execute's error (kept for its end, REDIST_ERR_STATE), not a return: the message is still
   acknowledged, so that its sender completes. */
int redist__onecopy_device_copy(struct redist_plan_s *p, struct redist__onecopy_device *d, int i);
/* Receiver, after posting its pulls: where the node's ranks have events between processes,
   records its `done` event on the plan's stream (the senders' streams wait for it: no host
   wait); else waits for the stream. With REDIST_DEVICE_IPC=per-execute it waits and unmaps
   the peers' allocations (else they stay mapped for the next execute). */
void redist__onecopy_device_done(struct redist_plan_s *p, struct redist__onecopy_device *d);
/* Sender, at the end of an execute (every acknowledgement in): the plan's stream waits for
   the `done` event of every peer that pulled from it, so that what the caller then posts on
   the stream (a write to src) runs after their reads. */
void redist__onecopy_device_end(struct redist_plan_s *p, struct redist__onecopy_device *d);
/* The execute's end for the one copy (exec.c, once its algorithm is done): device plans'
   onecopy_device_end; nothing for the others. */
void redist__onecopy_end(struct redist_plan_s *p);
/* The receive messages (and their bytes) pulled from peers whose memory this rank can map
   (the probe's verdict; each is pulled where its sender's src is device memory it can
   share): redist_stats' messages_device_ipc. 0 without d. */
void redist__onecopy_device_count(const struct redist_plan_s *p,
                                  const struct redist__onecopy_device *d, int64_t *messages,
                                  int64_t *bytes);
/* Device plans: the one copy's count for p (redist__onecopy_device_count), 0 for others. */
void redist__onecopy_device_stats(const struct redist_plan_s *p, int64_t *messages, int64_t *bytes);

/* Whether send (is_send) or receive message i travels through the window: its peer shares
   this rank's node. */
static inline int redist__shm_local(const struct redist_plan_s *p, int is_send, int i)
{
    return p->shm != NULL && (is_send ? p->shm->send_local[i] : p->shm->recv_local[i]);
}

/* ---- device memory (staging.c; device/device.h) ---------------------------------------
   options.memory at plan creation: REDIST_MEMORY_HOST (and AUTO where no driver loads):
   p->device stays NULL; else the backend, a device scratch and host staging.
   REDIST_ERR_UNSUPPORTED (with the reason) where a CUDA plan finds no driver. */
int redist__staging_open(struct redist_plan_s *p);
/* options.memory as this process can serve it (local): REDIST_MEMORY_AUTO where no device
   backend loads here is REDIST_MEMORY_HOST, since no array of this process can then be device
   memory; other values as they are. A plan agrees on it over its ranks (planner/construct.c);
   the checks of phase 1 and explain, which have no other ranks to ask, take this one's. */
int redist__memory_served(int memory);
void redist__staging_close(struct redist_plan_s *p);
/* After the algorithm's setup: the kernels' index lists of the send and receive messages and
   the self part, uploaded (nothing for host plans). */
int redist__staging_upload(struct redist_plan_s *p);
/* A host buffer the plan allocated (redist__plan_buffer): pinned for a device plan's copies
   (a failure leaves it pageable), unpinned by staging_close or, for a buffer freed before
   the plan is, by staging_unpin. Nothing for host plans. */
void redist__staging_pin(struct redist_plan_s *p, void *buf, size_t bytes);
void redist__staging_unpin(struct redist_plan_s *p, void *buf);
/* An array of `bytes` in device memory that the plan owns (freed by staging_close): the
   middle arrays of a device plan's phases (algo/phases.c), so that every phase is a device
   plan and no element leaves the device between phases. NULL with the error set on failure;
   for host plans (p->device NULL) the caller allocates host memory instead. */
void *redist__staging_array(struct redist_plan_s *p, size_t bytes);
/* At start: this execute's arrays (AUTO asks the backend where each lives; CUDA: device
   memory is required, else REDIST_ERR_ARG). */
int redist__staging_check(struct redist_plan_s *p, const void *src, int64_t src_n, const void *dst,
                          int64_t dst_n);
/* Elements [lo, hi) of message m moved with device arrays (the buffer side points at element
   lo, host memory): kernels on the device, the packed side staged through host memory.
   A device failure is kept in the plan and returned at the end of the execute. */
void redist__staged_move(const struct redist_plan_s *p, int kind, const redist__msg *m,
                         const char *a, char *b, int64_t lo, int64_t hi);
/* Pipelining: with defer on, staged moves return with their kernels and copies still in
   flight (the caller may not yet read or reuse their host side); send message i's pack is
   marked when posted (mark_sent) and waited for before it is sent (wait_sent). The end of
   the execute (staging_error) waits for everything. Nothing for host plans. */
void redist__staging_defer(const struct redist_plan_s *p, int on);
void redist__staging_mark_sent(const struct redist_plan_s *p, int i);
void redist__staging_wait_sent(const struct redist_plan_s *p, int i);
/* At the end of an execute: waits for the moves still in flight, then returns the first
   device failure of this execute (REDIST_SUCCESS if none), and forgets it. */
int redist__staging_error(struct redist_plan_s *p);
/* For the device one copy (onecopy_device.c): the backend, this execute's src is device
   memory, a pull of receive message m from a node peer's src (its lists `from`) into dst on
   the plan's stream, and a wait for the stream (a failure is kept for the execute's end, as
   the staged moves' are). */
struct redist__device *redist__staging_dev(const struct redist_plan_s *p);
int redist__staging_src_on_device(const struct redist_plan_s *p);
struct redist__device_msg;
void redist__staging_pull(const struct redist_plan_s *p, const struct redist__device_msg *from,
                          const redist__msg *m, const char *src);
void redist__staging_wait(const struct redist_plan_s *p);
/* Keeps a failure of this execute's device work (the first one) for the execute's end. */
void redist__staging_failed(const struct redist_plan_s *p, int err);

/* ---- threads (threads.c) -------------------------------------------------------------- */
/* Whether the library was built with OpenMP (threads > 1 possible). */
int redist__threads_available(void);
/* options.threads at plan creation: 0 means REDIST_NUM_THREADS, else 1. REDIST_ERR_ARG for a
   negative or too large count or a malformed variable, REDIST_ERR_UNSUPPORTED for more than
   one without OpenMP. */
int redist__threads_resolve(const redist_options *opt, int *threads, int64_t *min_bytes);
/* The threads a move of `bytes` gets out of the plan's: enough work for each (at least 1). */
int redist__team_size(const struct redist_plan_s *p, int64_t bytes);
/* fn(arg, t, n) on each thread t of a team of n of the plan's threads (n = 1: the calling
   thread alone) for work of `bytes`; each part must write its own bytes and call no MPI. */
typedef void (*redist__part_fn)(void *arg, int part, int nparts);
void redist__par_run(const struct redist_plan_s *p, int64_t bytes, redist__part_fn fn, void *arg);
/* redist__move_part (index.h) of the whole message by a team of the plan's threads: kind
   REDIST__PACK (a: source array, b: buffer), REDIST__UNPACK or REDIST__COPY, scaled by the
   plan into the destination. Call only on the thread that calls MPI, outside a team. */
void redist__par_move(const struct redist_plan_s *p, int kind, const redist__msg *m, const char *a,
                      char *b);
/* redist__cursor_pack (kind REDIST__PACK: a the source array, b the chunk) or
   redist__cursor_unpack (REDIST__UNPACK: a the chunk, b the destination array) by a team;
   returns the elements moved. */
int64_t redist__par_cursor_move(const struct redist_plan_s *p, int kind, redist__cursor *c,
                                const char *a, char *b, int64_t max);

/* malloc for a plan's data buffers (pack buffers, relays, phases' arrays): NULL, with a
   detail, once the plan's buffers would exceed this rank's share of its node's memory
   (redist__memory_share of p->node_ranks), so that a plan that could never run fails at
   creation (REDIST_ERR_NOMEM) instead of being killed later. */
void *redist__plan_buffer(struct redist_plan_s *p, size_t bytes);
/* redist_start for a plan run inside another plan's execution (phases): dry = 1 runs it dry
   (every message posted, no user memory touched), as the outer execution is. */
int redist__start_inner(redist_plan inner, const void *src, void *dst, int dry);
/* execute's checks of one array pair of plan p (the user's pointers): REDIST_SUCCESS or
   REDIST_ERR_ARG with the reason. */
int redist__check_execute_buffers(redist_plan p, const void *src, void *dst);
/* The rest of redist_start once this rank's arguments are checked (local_err): a dry
   execution when they are bad, the argument agreement, the algorithm's start (batches).
   The allocations the caller held for the execute (held, held_more) are released if it
   does not start; else when it completes. */
int redist__begin_checked(redist_plan p, int local_err);
/* Frees a plan and everything it owns (the communicator and type copies included). */
void redist__plan_destroy(struct redist_plan_s *plan);

#endif
