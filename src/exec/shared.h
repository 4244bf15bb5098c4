/* Internal (not installed): the node-shared allocations of redist_alloc (api/alloc.c makes
 * and frees them, shared.c keeps the process's list). A plan asks the list whether an array
 * lies in one, to copy its on-node traffic once, straight between the ranks' arrays. */
#ifndef REDIST_SHARED_H
#define REDIST_SHARED_H

#include "core/core.h"

#include <mpi.h>

/* The library's duplicate of a user's communicator that its allocations agree on (redist_free:
   every allocation of comm on the same duplicate, so that ranks freeing different ones is
   found, not a hang). Cached on comm as an attribute; it lives while comm or an allocation
   holds it (refs). */
typedef struct redist__shared_comm {
    MPI_Comm dup;
    int refs;
    int alive; /* the user's comm is not yet freed: its freed allocations are remembered */
} redist__shared_comm;

/* One redist_alloc: this rank's part of a window shared with the other ranks of its node. */
typedef struct redist__shared {
    char *base;                /* what redist_alloc returned: 64-byte aligned, `bytes` long */
    int64_t bytes;             /* as asked (0 allowed) */
    MPI_Win win;               /* MPI_Win_allocate_shared over `node` */
    redist__shared_comm *comm; /* the caller's comm's duplicate (redist_free agrees on it) */
    MPI_Comm node; /* the ranks of comm on this rank's node (REDIST_RANKS_PER_NODE: fewer) */
    uint64_t id;   /* the same on every rank of comm: which allocation of comm this is */
    int in_flight; /* executes started on arrays in it and not yet complete */
    int shadowed;  /* freed, and a later allocation of this process took its addresses */
    struct redist__shared *next;
} redist__shared;

/* The list (thread-safe: a lock around every access). add: takes s; remove: unlinks it. */
void redist__shared_add(redist__shared *s);
void redist__shared_remove(redist__shared *s);
/* The allocation whose base is exactly `base` (redist_free), or NULL. */
redist__shared *redist__shared_by_base(const void *base);
/* The allocation whose [base, base + bytes] holds p (a pointer inside one, or just past its
   end: never another allocation's base), or NULL. */
redist__shared *redist__shared_around(const void *p);

/* Freed allocations, remembered so that a second redist_free of one (or of a pointer inside
   one) still names the communicator to agree on: each keeps its reference to the comm's
   duplicate and its base, bytes and id; its window and node communicator are gone. At most
   `keep` per communicator, the most recently freed: retire takes s and returns the one it
   forgets (NULL: none), for the caller to release. Every rank of comm retires the same
   allocations in the same order (successful frees are agreed), so all forget alike. */
redist__shared *redist__shared_retire(redist__shared *s, int keep);
/* The most recently freed allocation whose [base, base + bytes] holds p, or NULL. One whose
   addresses a later allocation took (redist__shared_add marks it shadowed) is never found:
   a pointer there names the later one, and stays so once that is freed and forgotten. */
redist__shared *redist__shared_retired(const void *p);
/* Unlinks every freed allocation of c and returns them as a list (through `next`) for the
   caller to release: its user's communicator was freed. */
redist__shared *redist__shared_forget(const redist__shared_comm *c);
/* The allocation that holds all of [p, p + bytes), or NULL (bytes 0: the one holding p). */
redist__shared *redist__shared_holding(const void *p, int64_t bytes);
/* The allocation holding p (as redist__shared_holding with bytes 0), marked in flight (NULL:
   none); release unmarks it (NULL: nothing). Under the list's lock. */
redist__shared *redist__shared_hold(const void *p);
void redist__shared_release(redist__shared *s);
/* A fresh id for an allocation on this process (ids are then agreed over comm: the largest,
   which redist__shared_seen_id then keeps this process's next ids above, so that its ids
   stay unique). */
uint64_t redist__shared_next_id(void);
void redist__shared_seen_id(uint64_t id);
/* 1 if this process holds an allocation (the planner takes a plan's arrays to be in them
   when every rank does). */
int redist__shared_any(void);
/* This process's allocation with that id, or NULL. */
redist__shared *redist__shared_by_id(uint64_t id);

/* The ranks of comm on this rank's node (MPI_Comm_split_type, MPI_COMM_TYPE_SHARED); with
   k > 0 (REDIST_RANKS_PER_NODE), only those whose comm ranks share rank / k: tests split one
   machine into several "nodes". Collective over comm. */
int redist__node_comm(MPI_Comm comm, int rank, int k, MPI_Comm *node);
/* The same with k from REDIST_RANKS_PER_NODE (a malformed value counts as unset: the
   allocations report it). Plans find their node with it. */
int redist__plan_node_comm(MPI_Comm comm, MPI_Comm *node);

/* The node-communicator rank of each of comm's size ranks (-1: another node), allocated;
   NULL on failure. _into: of ranks[0 .. size) (0, 1, ... size - 1), into out; 0 on failure. */
int *redist__node_ranks_of(MPI_Comm comm, MPI_Comm node, int size);
int redist__node_ranks_into(MPI_Comm comm, MPI_Comm node, int size, const int *ranks, int *out);

/* The ranks per node that tests split one machine into (REDIST_RANKS_PER_NODE=k: ranks
   0..k-1 of a communicator form one "node", k..2k-1 the next, within each real node); 0 when
   unset. REDIST_ERR_ARG for a value that is not a positive whole number. */
int redist__ranks_per_node(int *k);

#endif
