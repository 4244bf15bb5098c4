/* Internal (not installed): the shared pieces of the basic communication operations
 * ([GGKK03]), one file per operation under src/coll/, each with its
 * algorithms (ring, mesh, hypercube, tree, ...) behind a small table and "auto".
 *
 * Every public operation (redist_bcast, ...) follows the same shape: local checks of this
 * rank's arguments; then (comm not MPI_COMM_NULL) the choice of the algorithm with
 * redist__coll_pick and one allocation of the workspace it needs on this rank
 * (redist__coll_workspace); then ONE agreement, redist__coll_begin, on the private duplicate
 * of comm, so that every rank returns the same code for any of these errors; then a->run on
 * the private communicator, with point-to-point messages only and no allocation; then
 * redist__free(workspace) on every path.
 *
 * Costs are stated in the paper's terms, t_s (start-up) and t_w (per byte), m the message
 * size in bytes, p the number of ranks; redist__coll_ts/tw give the model's values.
 */
#ifndef REDIST_COLL_H
#define REDIST_COLL_H

#include "exec/agree.h"
#include "model/model.h"

/* The private duplicate of comm (created on first use, cached as an MPI attribute and
   freed with comm), then one agreement (redist__agree) so that every rank returns the same
   code: the most negative local_err, else REDIST_ERR_MISMATCH naming the first of the
   arguments in fp (redist__coll_fingerprints) that differs between ranks (where MPI would
   hang or truncate). Collective over comm; REDIST_ERR_MPI before MPI_Init. */
int redist__coll_begin(MPI_Comm comm, int local_err, const redist__fingerprints *fp, MPI_Comm *priv,
                       int *rank, int *size);
/* The arguments every rank must pass alike: bytes per block (count times the size of type),
   the root (-1: none) and the algorithm's name. */
void redist__coll_fingerprints(redist__fingerprints *fp, int64_t bytes, int root,
                               const char *algorithm);
/* The reductions' op, as a value every rank computes alike: a predefined op's place in MPI's
   list (handles may differ between processes), a user-defined op's commutativity (the only
   portable property, and the one that picks the algorithm and the operand order). */
void redist__coll_fingerprint_op(redist__fingerprints *fp, MPI_Op op);
/* How a reduction applies op (reducer.c): MPI_Reduce_local on `type`, per_element of them
   for each of the user's elements. A predefined op reduces the predefined type the user's
   type is made of; a user-defined op gets the user's predefined type, or the library's
   committed duplicate of a derived one (owned: freed by redist__coll_reducer_free). */
typedef struct redist__coll_reducer {
    MPI_Datatype type;
    int64_t per_element;
    int owned;
} redist__coll_reducer;
/* REDIST_ERR_ARG unless MPI defines op on type (elsize bytes, contiguous): MPI_OP_NULL, a
   predefined op on a type outside its classes (MPI_BAND on MPI_DOUBLE) or on a derived type
   made of several predefined types, MPI_REPLACE and MPI_NO_OP; REDIST_ERR_UNSUPPORTED for
   what this MPI lacks. Never lets MPI raise an error. Local; before the agreement, so that no
   rank fails alone inside an algorithm while the others wait for it. Free *r on every path
   (it is empty after a failure). */
int redist__coll_reducer_make(MPI_Datatype type, size_t elsize, MPI_Op op, redist__coll_reducer *r);
void redist__coll_reducer_free(redist__coll_reducer *r);
/* The library's duplicate of MPI_COMM_SELF (cached like any private duplicate). Local. */
int redist__coll_self(MPI_Comm *self);

/* Local argument checks shared by the operations (no communication). */
int redist__coll_check_common(int64_t count, MPI_Datatype type, MPI_Comm comm, size_t *elsize);

/* What a cost reads: the ranks, their nodes and the model's times. On one node (nodes = 1:
   redist_coll_predict, and every operation but allgather, reduce_scatter and alltoall, which
   find their nodes) the network's terms are never read. The costs take the nodes to be
   blocks of `most` consecutive ranks (the node map's order), an estimate where they are not. */
typedef struct redist__coll_shape {
    int p;           /* ranks */
    int nodes;       /* nodes they are on */
    int most;        /* the most ranks on one node (p on one node) */
    int fewest;      /* the fewest ranks on one node (p on one node) */
    double ts, tw;   /* t_s and t_w: every message's start-up, every byte's time at a rank */
    double rts, rtw; /* the network's: t_s' added to the start-up of a message between nodes,
                        t_w' per byte through a node's link (all its ranks' off-node bytes
                        share it); 0: as on a node */
} redist__coll_shape;
/* p ranks on one node, with the given t_s and t_w (redist_coll_predict). */
redist__coll_shape redist__coll_shape_one(int p, double ts, double tw);
/* p ranks on the nodes of m (NULL: one node) with the model's values (redist__coll_ts, tw,
   redist__coll_net). */
redist__coll_shape redist__coll_shape_of(const redist__node_map *m, int p);
/* The most pairs of nodes one rank carries in the node-aware algorithms, h = ceil((nodes - 1)
   / fewest) (0 on one node). */
int redist__coll_shape_pairs(const redist__coll_shape *s);
/* The network's t_s' and t_w' from the machine (as the plans' network term,
   redist__cost_network): remote_startup beyond per_message for each message between nodes,
   remote_per_byte for each byte through a node's link. */
void redist__coll_net(double *rts, double *rtw);

/* What the network adds to one step of an algorithm that ignores nodes, on the nodes of s
   (0 on one node): t_s' if any message of the step crosses nodes (the step waits for its
   slowest message), and t_w' for the bytes the node's crossing ranks put through its link.
   Each rank sends g bytes to the rank d places on (shift), or to rank XOR d (xor). */
double redist__coll_net_shift(const redist__coll_shape *s, int d, double g);
double redist__coll_net_xor(const redist__coll_shape *s, int d, double g);
/* The same for a mesh's two ring phases (redist__coll_mesh's rows x cols): row_steps steps of
   row_g bytes in the rows (rings of cols consecutive ranks), col_steps of col_g in the columns
   (rings of ranks cols apart). */
double redist__coll_net_mesh(const redist__coll_shape *s, int row_steps, double row_g,
                             int col_steps, double col_g);

typedef struct redist__coll_algo {
    const char *name;
    /* REDIST_SUCCESS or REDIST_ERR_NOT_APPLICABLE for p ranks (the same on every rank). */
    int (*applicable)(int p);
    /* Predicted seconds for m bytes per block on s's ranks, from t_s and t_w ([GGKK03]), and
       where they span nodes what the network adds (t_s', t_w'). */
    double (*cost)(const redist__coll_shape *s, double m);
    /* 1: auto considers it only where the ranks span several nodes (node-aware: on one node
       it is a flat algorithm of the table); it runs wherever it is named. */
    int several_nodes;
} redist__coll_algo;

/* An operation's algorithms, in its file's order (the first is preferred on equal cost). */
typedef struct redist__coll_table {
    const char *operation;
    const redist__coll_algo *const *algos;
    int n;
} redist__coll_table;
extern const redist__coll_table redist__coll_table_bcast, redist__coll_table_reduce,
    redist__coll_table_allreduce, redist__coll_table_scan, redist__coll_table_scatter,
    redist__coll_table_gather, redist__coll_table_allgather, redist__coll_table_reduce_scatter,
    redist__coll_table_alltoall, redist__coll_table_shift;

/* The algorithm named `name` (NULL or "auto": the cheapest applicable under the model, those
   marked several_nodes only where s spans nodes) among n entries; *err =
   REDIST_ERR_UNKNOWN_ALGORITHM or REDIST_ERR_NOT_APPLICABLE when none. The choice depends only
   on what every rank shares (the arguments, the agreed nodes, the model's values), so all
   ranks pick the same. */
int redist__coll_pick_shape(const redist__coll_algo *const table[], int n, const char *name,
                            const redist__coll_shape *s, double m, int *err);
/* The same for p ranks on one node with the model's t_s and t_w. */
int redist__coll_pick(const redist__coll_algo *const table[], int n, const char *name, int p,
                      double m, int *err);

/* The nodes of comm's ranks (MPI_COMM_TYPE_SHARED, or with REDIST_RANKS_PER_NODE=k virtual
   nodes of k consecutive ranks within each, redist__plan_node_comm), found at the first call
   on comm and cached with its private duplicate: REDIST_RANKS_PER_NODE is read then, once per
   communicator. The same map on every rank (gathered over the duplicate). Collective over
   comm; every rank of allgather, reduce_scatter and alltoall calls it, whatever its arguments,
   so that the first call's collectives match. Errors (comm, MPI, memory) are the same on every
   rank; *nodes is NULL then. */
int redist__coll_nodes(MPI_Comm comm, const redist__node_map **nodes);
/* Tests: comm's nodes from now on are those of first_of[r], the first rank of rank r's node
   (redist__node_map_from_firsts; the same array on every rank), as nodes whose ranks
   interleave would give, which REDIST_RANKS_PER_NODE's never do. Collective over comm. */
int redist__coll_nodes_set(MPI_Comm comm, const int *first_of);

/* The node-aware algorithms' pieces (nodes.c). The traffic between nodes a and b goes
   between rank redist__pair_sender(m, a, b) of a and rank redist__pair_receiver(m, a, b) of
   b, and the same two ranks carry the pair (b, a): a node's pairs are spread over its ranks.
   A rank's pairs are listed in the order a + 1, a + 2, ... (mod nodes). */
/* The blocks of the nodes that local rank t of node a carries the pairs of (their sizes),
   and in *pairs (may be NULL) how many pairs. */
int64_t redist__coll_carried(const redist__node_map *m, int a, int t, int *pairs);
/* The same for every local rank t of node a: blocks[t], pairs[t] (size(a) entries each). */
void redist__coll_carried_all(const redist__node_map *m, int a, int64_t *blocks, int64_t *pairs);
/* The most pairs one rank of node a carries: ceil((nodes - 1) / size(a)). */
int redist__coll_most_pairs(const redist__node_map *m, int a);
/* The node after `after` (the rank's own node: the first) whose pair rank `me` carries, in
   its list's order; -1 past the last. */
int redist__coll_next_pair(const redist__node_map *m, int me, int after);
/* The nodes this rank exchanges with at step k = 1 .. nodes - 1 of the exchange between
   nodes (node a sends to a + k and receives from a - k, mod nodes: both ranks of a pair meet
   at the same step, and a rank's sends follow its list's order, its receives the reverse):
   *to / *from the node (-1: this rank carries neither pair) and *to_rank / *from_rank the
   rank there (MPI_PROC_NULL). */
void redist__coll_pair_step(const redist__node_map *m, int rank, int k, int *to, int *to_rank,
                            int *from, int *from_rank);
/* 1 if every node's ranks are consecutive (nodes are numbered by their first rank: the ranks
   in node order are then 0 .. p-1, and a reduction node by node keeps rank order). */
int redist__coll_contiguous(const redist__node_map *m);
/* Copies the blocks of node b's ranks from rank-ordered blocks (from) to the node's order
   (to), to_packed; or back from the node's order (from) to rank order (to). One memcpy where
   the ranks are consecutive. */
void redist__coll_node_blocks(const redist__node_map *m, int b, const char *from, char *to,
                              int64_t bytes, int to_packed);
/* What rank t of a node gathers (alltoall) or reduces (reduce_scatter) from each rank of its
   node: of p rank-ordered blocks, t's own, then those of the ranks of each node whose pair t
   carries (its list's order): 1 + redist__coll_carried blocks into `to`. */
void redist__coll_pack_carried(const redist__node_map *m, int t, const char *blocks, char *to,
                               int64_t bytes);
/* redist__coll_sendrecv where a side of 0 bytes is no message (both ends know the sizes). */
int redist__coll_sendrecv_pair(const char *sbuf, int64_t sbytes, int to, char *rbuf, int64_t rbytes,
                               int from, MPI_Comm c);
/* Ring all-gather of n pieces of any size among ranks members[0..n), this rank member `me`:
   piece j is buf[off[j] .. off[j + 1]) (byte offsets). */
int redist__coll_ringv(char *buf, const int64_t *off, int n, int me, const int *members,
                       MPI_Comm c);

/* applicable() for algorithms that work for every p. */
int redist__coll_always(int p);
/* applicable() for hypercube algorithms that need p a power of two. */
int redist__coll_power_of_two(int p);

/* Entries shared by operations with the same algorithms and costs ([GGKK03]):
   all-to-all broadcast and all-to-all reduction (allgather, reduce_scatter): ring
   (t_s + t_w m)(p - 1), mesh t_s (rows + cols - 2) + t_w m (p - 1), hypercube (power-of-two
   p: reduce_scatter's recursive halving) t_s log p + t_w m (p - 1), plus on several nodes
   the network's terms of their steps (ring: p - 1 steps to the next rank; mesh: its two
   phases; hypercube: step k sends p / 2k blocks to rank XOR k); scatter and gather (one node
   always): tree (= hypercube) t_s ceil(log p) + t_w m (p - 1), any p (on one node also
   allgather's hypercube, Bruck for any p), linear (p - 1)(t_s + t_w m). */
extern const redist__coll_algo redist__coll_ring_all, redist__coll_mesh_all,
    redist__coll_hypercube_all;
extern const redist__coll_algo redist__coll_tree_sg, redist__coll_hypercube_sg,
    redist__coll_linear_sg;

/* Workspace (the pattern of every operation): before redist__coll_begin, an operation picks
   its algorithm and allocates once the bytes that algorithm needs on this rank, so that a
   failure (REDIST_ERR_NOMEM) is agreed like an argument error; the algorithms carve their
   buffers out of it and never allocate. redist__coll_workspace returns NULL and leaves *err
   when *err is already set; otherwise at least 1 byte (a zero-size workspace is a valid
   pointer), or NULL and *err = REDIST_ERR_NOMEM. Free it with redist__free() on every path. */
char *redist__coll_workspace(int64_t bytes, int *err);
/* This rank and the size of comm (ranks are the same in the private duplicate); *rank and *p
   are left unchanged when comm is MPI_COMM_NULL. */
void redist__coll_local(MPI_Comm comm, int *rank, int *p);
/* MPI_IN_PLACE as sendbuf (MPI's convention: the input is already in recvbuf; the algorithms
   read their input while they write recvbuf): copies `bytes` of recvbuf, from `in` on, to
   the start of *ws, moves *ws past them and returns the copy; otherwise returns sendbuf.
   The workspace needs bytes more when sendbuf is MPI_IN_PLACE. */
const void *redist__coll_source(const void *sendbuf, const void *in, int64_t bytes, char **ws);
/* REDIST_ERR_ARG for MPI_IN_PLACE where the operation has no in-place form. */
int redist__coll_no_in_place(const void *buf, const char *name);

/* allreduce and scan: the common entry (checks, choice, workspace, agreement, MPI_IN_PLACE),
   then run of the chosen algorithm with workspace(count, es, rank, p) bytes at ws. */
typedef struct redist__coll_reduction_algo {
    int (*run)(const void *src, void *dst, int64_t count, size_t es, MPI_Datatype type, MPI_Op op,
               int rank, int p, char *ws, MPI_Comm c);
    int64_t (*workspace)(int64_t count, size_t es, int rank, int p);
} redist__coll_reduction_algo;
int redist__coll_reduction(const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype type,
                           MPI_Op op, MPI_Comm comm, const char *algorithm,
                           const redist__coll_algo *const table[],
                           const redist__coll_reduction_algo algos[], int n);

/* scatter and gather: their common entry. Checks root and buffers (the root's sendbuf and
   everyone's recvbuf for scatter, root_sends = 1; everyone's sendbuf and the root's recvbuf
   for gather), picks among table[0..n) for p ranks and m-byte blocks (linear when a tree
   message could exceed 2 GiB: every rank knows p and m), allocates the tree's workspace
   (the blocks of this rank's subtree, v = (rank - root) mod p, redist__coll_subtree), all
   before the agreement, then runs tree(..., ws, c) or linear(..., c). */
typedef int (*redist__coll_sg_tree)(const char *sbuf, char *rbuf, int64_t bytes, int root, int rank,
                                    int p, char *ws, MPI_Comm c);
typedef int (*redist__coll_sg_linear)(const char *sbuf, char *rbuf, int64_t bytes, int root,
                                      int rank, int p, MPI_Comm c);
int redist__coll_rooted(const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype type,
                        int root, MPI_Comm comm, const char *algorithm, int root_sends,
                        const redist__coll_algo *const table[], int n, redist__coll_sg_tree tree,
                        redist__coll_sg_linear linear);
/* The binomial subtree of relative rank v among p: *low = the lowest set bit of v (for v = 0
   the power of two >= p); returns its number of nodes, min(low, p - v) (p for v = 0). */
int redist__coll_subtree(int v, int p, int *low);

/* [GGKK03]'s personalized all-to-all (alltoall.c) for the schedules (alltoall-padded): no
   agreement and no argument checks, on a communicator the caller owns. pick: the index of
   algorithm `name` (NULL or "auto": the cheapest for p ranks and m-byte blocks), or -1 and
   *err. run: sendbuf holds p blocks of b bytes, block j for rank j; recvbuf gets block i from
   rank i; ws holds workspace(idx, p, b) bytes. */
int redist__coll_alltoall_pick(const char *name, int p, double m, int *err);
/* (node-aware is not among these: a plan's exchange has no nodes; it is
   REDIST_ERR_UNKNOWN_ALGORITHM there) */
int64_t redist__coll_alltoall_workspace(int idx, int p, int64_t b);
double redist__coll_alltoall_cost(int idx, int p, double m, double ts, double tw);
/* Messages and bytes each rank sends (and receives) in algorithm idx's exchange. */
void redist__coll_alltoall_traffic(int idx, int p, int64_t b, int64_t *msgs, int64_t *bytes);
int redist__coll_alltoall_run(int idx, const void *sendbuf, void *recvbuf, int64_t b, int rank,
                              int p, void *ws, MPI_Comm c);

double redist__coll_ts(void);
double redist__coll_tw(void);

/* inout = in op inout, element-wise on count elements, in pieces of at most INT_MAX
   elements (MPI_Reduce_local counts in int). */
int redist__coll_reduce_local(const void *in, void *inout, int64_t count, MPI_Datatype t,
                              MPI_Op op);

/* Helpers for point-to-point algorithms: messages of any size (chunks of at most
   REDIST__CHUNK_BYTES, the sizes agreed by construction: a receiver always expects what its
   sender sends). */
int redist__coll_sendrecv(const void *sbuf, int64_t sbytes, int to, void *rbuf, int64_t rbytes,
                          int from, MPI_Comm c);
int redist__coll_send(const void *buf, int64_t bytes, int to, MPI_Comm c);
int redist__coll_recv(void *buf, int64_t bytes, int from, MPI_Comm c);
/* The most square factorization rows x cols = p (rows <= cols); a prime p gives 1 x p. */
void redist__coll_mesh(int p, int *rows, int *cols);

/* Helpers shared by the reduction operations (reduce.c) and the broadcast tree (bcast.c). */
/* Local checks of a reduction's arguments (no communication); root < 0: no root;
   recv_needed: recvbuf must be valid; r NULL: no op (bcast), else the op's reducer (free it
   on every path). */
int redist__coll_red_args(const void *sendbuf, const void *recvbuf, int recv_needed, int64_t count,
                          MPI_Datatype type, MPI_Op op, redist__coll_reducer *r, int root,
                          MPI_Comm comm, size_t *es);
/* Block i of count elements split over p ranks: its offset and length. */
void redist__coll_block(int64_t count, int p, int i, int64_t *off, int64_t *len);
/* Reduce-scatter of p blocks in rank order (non-commutative operations keep their order);
   ws holds redist__coll_reduce_scatter_ws bytes: the p contributions to this rank's block. */
int redist__coll_reduce_scatter_blocks(const void *src, void *out, int64_t count, size_t es,
                                       MPI_Datatype t, MPI_Op op, int rank, int p, char *ws,
                                       MPI_Comm c);
int64_t redist__coll_reduce_scatter_ws(int64_t count, size_t es, int rank, int p);
/* reduce.c's "tree" on the private communicator (arguments checked, count > 0); ws holds
   redist__coll_reduce_tree_ws(bytes, rel, p) bytes, rel = (rank - vroot) mod p, vroot the
   root for a commutative op, else 0. */
int redist__coll_reduce_tree(const void *src, void *dst, int64_t count, size_t es, MPI_Datatype t,
                             MPI_Op op, int root, int rank, int p, char *ws, MPI_Comm c);
int64_t redist__coll_reduce_tree_ws(int64_t bytes, int rel, int p);
/* Binomial-tree broadcast of bytes from root. */
int redist__coll_bcast_tree(void *buf, int64_t bytes, int root, int rank, int p, MPI_Comm c);

#endif
