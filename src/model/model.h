/* Internal (not installed): the model layer, no MPI. The machine's parameters, the traffic of
 * a redistribution (global maxima over ranks), the case every algorithm's rules read
 * (traffic + shape), the cost terms the algorithms share, and the traffic of a pair computed
 * without MPI for any communicator size. Above the index layer; the algorithms' own costs
 * live in their files (src/algo/).
 */
#ifndef REDIST_MODEL_H
#define REDIST_MODEL_H

#include "index/index.h"

/* ---- the machine (machine.c) ------------------------------------------------------------- */
/* The GDM / Hockney parameters of [LBP96] §3.2 plus local copy rates, in seconds, and how far
   threads speed up the local moves (a ratio). */
typedef struct redist__machine {
    double startup;              /* T_d: seconds per synchronised step (or a first message) */
    double per_message;          /* seconds per further message in flight at the same time */
    double per_byte;             /* tau_d: seconds per byte that crosses between ranks */
    double copy_per_byte;        /* seconds per byte of local copy, pack or unpack */
    double copy_per_run;         /* seconds per run packed or unpacked, beyond its bytes */
    double per_piece;            /* seconds per contiguous piece MPI's datatype engine handles */
    double remote_startup;       /* seconds per message between nodes (0: as on a node) */
    double remote_per_byte;      /* seconds per byte through a node's network link (its ranks
                                    share it; 0: no cost beyond per_byte) */
    double window_per_byte;      /* seconds per byte unpacked from another rank's shared-memory
                                    window (what it just packed: the caches of another core) */
    double per_index;            /* seconds of index work per element (general) or per block (the
                                    [TCR96] algorithms), on each side; not measured by calibrate */
    double copy_thread_limit;    /* L: the most a rank's local moves speed up with threads (memory
                                    bandwidth saturates): redist__thread_speedup; >= 1, no time */
    double device_per_byte;      /* device plans (options.memory): seconds per byte copied
                                    between a rank's GPU and its host staging, each way (PCIe
                                    or NVLink-C2C, shared by the node's ranks as they share it) */
    double device_copy_per_byte; /* seconds per byte a device kernel packs or unpacks */
    double device_launch;        /* seconds per kernel or copy posted to the device, or wait */
    double device_ipc_per_byte;  /* seconds per byte a kernel pulls from a node peer's device
                                    array (inter-process memory: the same GPU's memory, or a
                                    peer GPU's over NVLink or PCIe) into its own */
    double stream_gain;          /* a copy of short runs in dst's order with ordinary stores over
                                    the same with non-temporal ones (a ratio): above 1, one copy
                                    on a node streams the rows it pulls (index/pull.c) */
    int shared_node;             /* 1: packed messages move through shared memory (one node), so a
                                    packed byte costs its two copies only; 0: it also crosses the
                                    network at per_byte */
    int shared_arrays;           /* 1 (with shared_node): every rank held a redist_alloc
                                    allocation when the plan was made, so its arrays are taken to
                                    be node-shared: a packed byte is copied once, read from the
                                    sender's src by the receiver (exec/onecopy.c), at
                                    window_per_byte */
    int device_ipc;              /* 1 (device plans, with shared_node): every rank's backend maps
                                    its node peers' device memory, so a packed message on the
                                    node is pulled by the receiver's kernel from the sender's
                                    src (exec/onecopy_device.c), at device_ipc_per_byte, and
                                    not staged */
    int gpu_mpi;                 /* 1 (device plans): every rank's MPI takes device buffers, so
                                    an algorithm that hands them to it (gpu_mpi) stages none of
                                    its messages through MPI */
    double threads_speedup;      /* what redist__machine_threads divided the moves by (0 or 1:
                                    one thread); general's walk divides its per_index work by it */
} redist__machine;
/* The documented defaults (machine.c states where they come from). */
const redist__machine *redist__machine_default(void);

/* The double parameters by name, for the machine file and the environment. */
enum { REDIST__MACHINE_NPARAMS = 16 };
typedef struct redist__machine_param {
    const char *key;  /* "startup", ...: the file's key; REDIST_MACHINE_STARTUP, ... */
    size_t offset;    /* of the double in redist__machine */
    const char *what; /* one line for the file and the tools */
    double least;     /* the smallest valid value: 0 for seconds, 1 for copy_thread_limit */
    int seconds;      /* a time: redist__machine_scale multiplies it (not a ratio) */
} redist__machine_param;
const redist__machine_param *redist__machine_params(void); /* [REDIST__MACHINE_NPARAMS] */
double redist__machine_get(const redist__machine *m, int i);
/* Reads `key = value` lines over *m (only on success); returns -1 with why on a bad line. */
int redist__machine_parse(const char *text, redist__machine *m, char *why, size_t why_len);
/* Writes the machine as a machine file's lines; -1 if buf is too short. */
int redist__machine_format(const redist__machine *m, char *buf, size_t len);
/* The machine file's path (REDIST_MACHINE_FILE, XDG cache, ~/.cache); -1 if none. */
int redist__machine_file_path(char *buf, size_t len);
/* This process's parameters: the defaults, the machine file over them, the environment's
   REDIST_MACHINE_<KEY> over that; source (may be NULL) says which ("defaults (...)", the path,
   "+ VAR"). */
void redist__machine_current(redist__machine *m, char *source, size_t len);
/* Seconds per byte MPI takes to move data this rank has just written (packed): on one node
   MPI reads it from another core's caches as the window's receiver does (window_per_byte),
   over a network at per_byte; the larger of the two. */
double redist__fresh_per_byte(const redist__machine *m);
/* Multiplies every time parameter (not copy_thread_limit) by factor (a node's ranks per core,
   redist__ranks_per_core): the file's costs are one rank per core's; ranks that share a core take
   turns. */
void redist__machine_scale(redist__machine *m, double factor);
/* Threads (options.threads) speed up a rank's local moves, copy_per_byte, copy_per_run and
   window_per_byte (unpacking from a node peer's window), until memory bandwidth saturates: speedup
   T / (1 + (T - 1) / L), 1 for one thread, L for many. L is the machine's copy_thread_limit: by
   default 6.5, fitted on a 16-core node (docs/performance.md, "Threads": redist's local moves at
   1 rank x 1 .. 16 threads); `redist calibrate --threads N` measures it
   (redist__fit_thread_limit). MPI's own packing (the datatype transport: per_byte, per_piece) runs
   on one thread. */
double redist__thread_speedup(int threads, double limit);
/* Divides the local-move costs by redist__thread_speedup(threads, m->copy_thread_limit). */
void redist__machine_threads(redist__machine *m, int threads);
/* The threads a rank's local moves count as in the model: its threads, at most the cores it
   may run on (redist__cores: beyond them threads take turns and gain nothing). */
int redist__model_threads(int threads, int cores);
/* Device plans (options.memory): kernels pack, unpack and copy, so the local moves cost
   device_copy_per_byte a byte and nothing per run (one GPU thread per element); the copies
   between the device and the host are redist__cost_staging's. */
void redist__machine_device(redist__machine *m);
/* max(1, ranks / the cores this process may run on): the load of a node with `ranks` ranks. */
double redist__ranks_per_core(int ranks);
/* redist__machine_current as it was at this thread's first call (the basic operations: no
   file system access per call). */
const redist__machine *redist__machine_once(void);

/* ---- fitting measurements (fit.c) ---------------------------------------------------------- */
/* y = a + b x, and the fit's coefficient of determination r2 (1: every point on the line). */
typedef struct redist__fit {
    double a, b, r2;
} redist__fit;
/* Least squares through n points weighted by 1 / y^2 (relative errors); -1 if a y is not
   > 0, a value is not finite, or fewer than two distinct x. */
int redist__fit_line(const double *x, const double *y, int n, redist__fit *out);
/* The largest copy_thread_limit a fit may give: no saturation seen up to the threads measured
   (speedups of T or more) leaves L as large as the most threads a plan may have. */
#define REDIST__THREAD_LIMIT_MAX 1024.0
/* copy_thread_limit L from the times seconds[i] of the same local moves with threads[i]
   threads (one of them 1): least squares of 1/S - 1/T = (1 - 1/T) / L over the points with
   T > 1, S = t(1) / t(T) the speedup, clamped to [1, REDIST__THREAD_LIMIT_MAX]; -1 without a
   point at T = 1 and one at T > 1, or with a time not finite and > 0. */
int redist__fit_thread_limit(const int *threads, const double *seconds, int n, double *limit);

/* ---- traffic (model.c) ------------------------------------------------------------------- */
/* The terms of the traffic that nodes change, maxima over the ranks (nodes.c): on one node,
   nodes = 1 and nothing is off node. */
typedef struct redist__node_traffic {
    int nodes;                   /* nodes the ranks are on */
    int ranks_per_node;          /* the most ranks on one node */
    int64_t max_remote_messages; /* max over ranks of max(sent, received) off node */
    int64_t max_remote_bytes;
    int64_t max_remote_sent_messages; /* max over ranks of those sent (the plans' stats) */
    int64_t max_remote_sent_bytes;
    int64_t max_local_messages; /* the same between ranks of one node */
    int64_t max_node_bytes;     /* max over nodes of max(sent, received) by all its ranks off
                                   node: what its link carries */
    /* What the node-aware schedule (algo/node_aware.c) makes a rank send and receive */
    int64_t max_pair_messages;   /* the node pairs it carries over the network */
    int64_t max_pair_bytes;      /* their bytes */
    int64_t max_gather_messages; /* on its node: its own on-node messages, gathering and
                                    scattering the off-node ones */
    int64_t max_gather_bytes;
    int64_t max_aware_sent_messages; /* the most messages (bytes) one rank sends in all */
    int64_t max_aware_sent_bytes;
    int64_t aware_total_messages; /* over all ranks: explain's (model/pair.c), 0 in plans */
    int64_t aware_total_bytes;
} redist__node_traffic;

/* The global quantities of a redistribution, the same on every rank. */
typedef struct redist__traffic {
    int comm_size;
    size_t elsize;
    int64_t max_messages;      /* max over ranks of max(messages sent, messages received) */
    int64_t max_bytes;         /* max over ranks of max(bytes sent, bytes received) */
    int64_t max_copy_bytes;    /* max over ranks of the self part */
    int64_t max_local_bytes;   /* max over ranks of max(src, dst) local bytes */
    int64_t max_count;         /* max elements of one message (MPI int limits) */
    int64_t max_buffer;        /* max elements of one rank's pack buffer */
    int64_t max_packed;        /* max over ranks of send + receive pack-buffer elements */
    int64_t max_run_value;     /* largest run length or count */
    int64_t max_sent_messages; /* max over ranks of messages sent */
    int64_t max_sent_bytes;    /* max over ranks of bytes sent */
    int64_t max_pieces;        /* max over ranks of contiguous pieces sent or received */
    int64_t max_runs;          /* max over ranks of pieces packed + unpacked (messages) */
    int64_t max_self_runs;     /* max over ranks of pieces of the self part's copy */
    int shift_steps;           /* distinct nonzero shifts (peer - rank) mod size any rank uses */
    redist__node_traffic n;    /* nodes and the network (nodes.c) */
} redist__traffic;

/* Per-rank quantities, reduced with MAX across ranks (planner/planner.c, over MPI) or over
   every rank in a loop (redist__pair_case, without MPI) to give the traffic. */
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
    REDIST__S_PACKED,        /* send + receive pack-buffer elements */
    REDIST__S_RUNS,          /* contiguous pieces sent + pieces received */
    REDIST__S_SELF_RUNS,     /* contiguous pieces of the self part (the more of its sides) */
    /* nodes (nodes.c): the same on every rank of a plan, or this rank's figure */
    REDIST__S_NODES,                /* nodes the ranks are on */
    REDIST__S_NODE_RANKS,           /* the most ranks on one node */
    REDIST__S_REMOTE_MESSAGES,      /* max(messages sent, received) to or from other nodes */
    REDIST__S_REMOTE_BYTES,         /* max(bytes sent, received) to or from other nodes */
    REDIST__S_LOCAL_MESSAGES,       /* max(messages sent, received) to or from this node's ranks */
    REDIST__S_NODE_BYTES,           /* this rank's node: max(bytes it sends, receives) off node */
    REDIST__S_PAIR_MESSAGES,        /* node-aware: node pairs it sends or receives for (max) */
    REDIST__S_PAIR_BYTES,           /* node-aware: their bytes (max of sent, received) */
    REDIST__S_GATHER_MESSAGES,      /* node-aware: messages on its node, all steps (max) */
    REDIST__S_GATHER_BYTES,         /* node-aware: bytes on its node, all steps (max) */
    REDIST__S_REMOTE_SENT_MESSAGES, /* messages sent to other nodes */
    REDIST__S_REMOTE_SENT_BYTES,    /* bytes sent to other nodes */
    REDIST__S_AWARE_SENT_MESSAGES,  /* node-aware: messages it sends, all steps */
    REDIST__S_AWARE_SENT_BYTES,     /* node-aware: bytes it sends, all steps */
    REDIST__S_NVALS
};
/* A rank's values; its node terms as on one node (redist__node_terms replaces them). */
void redist__traffic_local(const redist__side *send, const redist__side *recv,
                           const redist__msg *self, int64_t src_count, int64_t dst_count,
                           size_t elsize, int64_t vals[REDIST__S_NVALS]);
/* Marks flags[k] = 1 for each shift k = (peer - rank) mod size this rank sends with. */
void redist__shift_flags(const redist__side *send, int rank, int size, unsigned char flags[]);
/* The traffic from the maxima; shift_steps counts the flags set (flags NULL: 0). */
void redist__traffic_finish(const int64_t vals[REDIST__S_NVALS], const unsigned char flags[],
                            int size, size_t elsize, redist__traffic *t);

/* ---- nodes (nodes.c) ----------------------------------------------------------------------
   Which node each of a communicator's ranks is on. Nodes are numbered in the order of their
   first rank, and a node's ranks listed in increasing order. */
typedef struct redist__node_map {
    int size, nodes, max_ranks; /* ranks, nodes, the most ranks on one node */
    int lanes;                  /* the most lanes of a pair of nodes (nodes.c) */
    int *node_of;               /* [size] */
    int *local_of;              /* [size]: the rank's place on its node */
    int *first;   /* [nodes + 1]: node a's ranks are members[first[a] .. first[a+1]) */
    int *members; /* [size] */
} redist__node_map;
/* From the first (smallest) rank of each rank's node (an entry that is not a first of its
   own starts a node of its own). REDIST_ERR_NOMEM leaves *m empty. */
int redist__node_map_from_firsts(int size, const int *first_of, redist__node_map *m);
/* Nodes of per_node consecutive ranks, the last one smaller if need be (simulations, and
   REDIST_RANKS_PER_NODE). */
int redist__node_map_uniform(int size, int per_node, redist__node_map *m);
int redist__node_map_copy(const redist__node_map *from, redist__node_map *to);
void redist__node_map_free(redist__node_map *m);
static inline int redist__node_size(const redist__node_map *m, int node)
{
    return m->first[node + 1] - m->first[node];
}
/* The rank of node `from` that sends the traffic from `from` to `to` over the network, and
   the rank of `to` that receives it: node pairs spread over a node's ranks (nodes.c). With
   few nodes a pair has several lanes, each its own sender and receiver, and a rank's traffic
   to `to` takes lane redist__lane_of; pair_sender and pair_receiver are lane 0's. */
int redist__pair_sender(const redist__node_map *m, int from, int to);
int redist__pair_receiver(const redist__node_map *m, int from, int to);
int redist__pair_lanes(const redist__node_map *m, int a, int b);
int redist__lane_sender(const redist__node_map *m, int from, int to, int lane);
int redist__lane_receiver(const redist__node_map *m, int from, int to, int lane);
int redist__lane_of(const redist__node_map *m, int rank, int to);
/* The rank of rank's node that carries its message to (is_send) or from peer over the
   network: its lane's sender, or receiver; -1 for a peer on rank's node. */
int redist__node_carrier(const redist__node_map *m, int rank, int peer, int is_send);
/* What reaches node `to` from rank `source` on another node travels in channel
   node_of[source] * lanes + its lane (< nodes * lanes). */
int redist__node_channel(const redist__node_map *m, int source, int to);
/* A node's sums, which its ranks add up (over MPI in a plan): the bytes it sends to and
   receives from each channel (2 nodes * lanes entries), and per rank of the node the other
   ranks that send it their off-node blocks and that it hands blocks to in the node-aware
   schedule (2 node-size entries). */
int redist__node_sums_length(const redist__node_map *m, int node);
/* Adds rank's part (its sides, elements of elsize bytes) to its node's sums (zeroed first). */
int redist__node_sums_add(const redist__node_map *m, int rank, const redist__side *send,
                          const redist__side *recv, int64_t elsize, int64_t *sums);
/* Rank's node terms (vals[REDIST__S_NODES ..]) from its sides and its node's sums. */
void redist__node_terms(const redist__node_map *m, int rank, const redist__side *send,
                        const redist__side *recv, int64_t elsize, const int64_t *sums,
                        int64_t vals[REDIST__S_NVALS]);

/* ---- the case an algorithm's rules read --------------------------------------------------- */
typedef struct redist__case {
    redist__traffic t;
    redist__shape s;
    /* The layouts, for rules that need more than the shape (explain's relay counts); NULL
       in the simulator, which describes a pair without building it. */
    const struct redist_layout_s *src, *dst;
} redist__case;

/* The time of the transfers every algorithm that sends the pattern's messages pays: the self
   part copied once (bytes and runs), then each byte a rank sends or receives moved by the
   transport (REDIST_TRANSPORT_PACK: packed and unpacked, a cost per run on each side, plus
   MPI's move of the packed bytes; REDIST_TRANSPORT_DATATYPE: once by MPI, plus a cost per
   contiguous piece). */
double redist__cost_moves(const redist__case *c, const redist__machine *m, int transport);
/* What the network adds where the ranks span nodes (0 on one node), in every algorithm's
   moves: each off-node message's start-up beyond an on-node one's (remote_startup over
   per_message, a rank's most off-node messages), and the off-node bytes of the busiest node
   through its link (remote_per_byte: the node's ranks share it). Relays and phases are
   costed with their pattern's off-node traffic. */
double redist__cost_network(const redist__case *c, const redist__machine *m);
/* The same for a schedule whose own messages are not the pattern's (padded all-to-alls,
   relays, slab phases, BMMC rounds): a rank sends `messages` messages of `bytes` in all,
   taken as spread evenly over the other ranks, so that the share on other nodes pays the
   remote start-up beyond per_message and, from each of a node's ranks, the node's link. */
double redist__cost_network_spread(const redist__case *c, const redist__machine *m, double messages,
                                   double bytes);
/* The same; through_memory: packed bytes move through the shared-memory window (exec/shm.c):
   their pack, and their unpack from the sender's window (window_per_byte), no MPI. */
double redist__cost_moves_via(const redist__case *c, const redist__machine *m, int transport,
                              int through_memory);
/* What an execute's agreements add (options.check_arguments: `reductions` MPI_Iallreduce of
   one int over the plan's ranks, which every algorithm pays alike: 1, on the arguments, and
   for device plans 2, the second on device failures at the end; 0 without check_arguments):
   on several nodes each one's ceil(log2 P) rounds cross the network (remote_startup); on one
   node each round is about an on-node message, inside the model's start-up, and it is not
   counted (0). */
double redist__cost_agreement(const redist__case *c, const redist__machine *m, int reductions);

/* Device plans (options.memory): what staging adds to an execute. Each byte a rank
   sends is packed by a kernel and copied off its device, each byte it receives copied on and
   unpacked, the self part copied by a kernel (device_per_byte, device_copy_per_byte); about
   three posted operations or waits per message and per piece of stage_bytes
   (device_launch). Taken as not overlapping the messages: an upper bound where the pieces
   pipeline. staged: the share of the messages (and their bytes) that is staged, from 0 to 1
   (planner's redist__staged_share): the others are pulled over inter-process memory or
   handed to a GPU-aware MPI from device buffers, a kernel posted for each. */
double redist__cost_staging(const redist__traffic *t, const redist__machine *m, int64_t stage_bytes,
                            double staged);

/* ---- a pair's case without MPI (pair.c) ----------------------------------------------------- */
/* One rank's traffic for one execute of src -> dst (self part excluded from messages). */
typedef struct redist__rank_traffic {
    int64_t messages_sent, bytes_sent;
    int64_t messages_received, bytes_received;
    int64_t bytes_copied; /* the self part, copied locally */
    int64_t peers_max;    /* max(messages_sent, messages_received) */
} redist__rank_traffic;
/* Traffic of comm rank `rank` for elements of elsize bytes. */
int redist__rank_traffic_compute(redist_layout src, redist_layout dst, int rank, int64_t elsize,
                                 redist__rank_traffic *out);
/* The ranks that hold elements in src or dst, increasing, without repeats: the only ranks
   with any traffic (the others of a communicator, however many, have none: one class, never
   visited), found without visiting the positions that hold nothing. *ranks is allocated with
   redist__malloc (free it with redist__free); returns REDIST_SUCCESS or REDIST_ERR_NOMEM. */
int redist__member_ranks(redist_layout src, redist_layout dst, int **ranks, int *count);
/* The case of a pair over comm_size ranks, as a plan would agree on it, computed by visiting
   every member rank (the last pair is cached per thread), with the totals over all ranks of
   messages and bytes sent. REDIST_ERR_ARG for bad arguments (checked as a plan checks them:
   same array, ranks < comm_size, fewer than 2^63 bytes). */
int redist__pair_case(redist_layout src, redist_layout dst, int comm_size, int64_t elsize,
                      redist__case *out, int64_t *total_messages, int64_t *total_bytes);
/* The same with the ranks on nodes of per_node consecutive ranks (the last one smaller where
   per_node does not divide comm_size; 0, or comm_size or more: one node), as a plan on
   REDIST_RANKS_PER_NODE's virtual nodes sees them: the case's node terms. */
int redist__pair_case_on_nodes(redist_layout src, redist_layout dst, int comm_size, int per_node,
                               int64_t elsize, redist__case *out, int64_t *total_messages,
                               int64_t *total_bytes);

#endif
