/* One copy on a node (exec.h, "one copy on a node").
 *
 * Through the shared-memory window (shm.c) a message between ranks of a node costs two
 * copies: the sender packs into its window, the receiver unpacks from it. When the sender's
 * src lies in a redist_alloc allocation that the receiver maps too (they are on one node of
 * that allocation's communicator), the receiver can read the elements straight from the
 * sender's src: the sender does not pack, its notification says where its src is (the
 * allocation's id, its rank in the allocation's node, the byte offset of its local index 0),
 * and the receiver copies sender's src -> its own dst in chunks of a small buffer that stays
 * in the cache, so that memory sees one read of src and one write of dst. The receiver's
 * acknowledgement, which the window path already sends, tells the sender that its src has
 * been read (the caller may write it once execute returns).
 *
 * Where neither side has an ld, the receiver's own receive message (its guess of the
 * sender's storage is then exact) copies sender src -> dst by itself, with the plan's walker.
 * Otherwise the receiver walks the sender's side with the sender's own message to it, built
 * here at plan creation from the sender's local storage (its ld, which only it knows:
 * gathered over the node once), and its own side with its receive message: both list the
 * elements in the same order (the message's buffer order), so chunk k of one is chunk k of
 * the other.
 *
 * Several messages at once (redist__onecopy_copy_together, direct-async): a rank's on-node
 * messages each cover a sparse part of its dst (every 4th run of a column, say). Copied one
 * message after the other, both the reads of the sender's src and the writes of dst skip
 * through memory at that density, and a 2-D re-block costs 2.2-2.9x a memcpy of the same
 * bytes; copied in the destination's order, as one walk over dst, 1.2-1.6x (bench/bench_runs:
 * "pairs" against "pull"). So the messages that came together, and the self part, are cut
 * into parts by element fraction, and part k of each is copied before part k + 1 of any:
 * each message lists its elements in dst's order, so part k of all of them is one stretch of
 * dst, small enough to stay in the cache while the messages fill it.
 *
 * Who decides: the sender, per execute and message, from where its src lies; the receiver
 * follows its notification. So any mix (src in an allocation or not, peers inside or outside
 * the allocation's node, dry executes) is consistent on both sides.
 */
#include "exec/exec.h"
#include "exec/shared.h"

#include "device/device.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

enum { CHUNK_BYTES = 32 << 10 };          /* the pass-through buffer: well inside L1 + L2 */
enum { TOGETHER_PART_BYTES = 256 << 10 }; /* of dst, per part of a copy together: in L2 */

/* The bytes of dst per part of a copy together: TOGETHER_PART_BYTES, or
   REDIST_ONECOPY_PART_BYTES (measurements, docs/dev/one-copy.md). */
static int64_t part_bytes(void)
{
    const char *v = getenv("REDIST_ONECOPY_PART_BYTES");
    char *end = NULL;
    long long n = v != NULL ? strtoll(v, &end, 10) : 0;
    return v != NULL && end != v && *end == '\0' && n >= 1 ? (int64_t)n : TOGETHER_PART_BYTES;
}

struct redist__onecopy {
    int nrecv;
    redist__side *peer_side;      /* [nrecv] the sender's send side (local messages only) */
    const redist__msg **peer_msg; /* [nrecv] its message to this rank, or NULL */
    char *direct;                 /* [nrecv] 1: the receive message is itself a copy's */
    redist__walkbuf walk;         /* the pass-through buffers of the other messages */
    /* Plan ranks' ranks in the node of the allocation that last held src (-1: not there) */
    const struct redist__shared *alloc;
    uint64_t alloc_id;
    int *node_rank_of, *plan_ranks;     /* [size] */
    const redist__msg **msg_of;         /* [nrecv + 1] scratch of a copy together: the moves, */
    const char **src_of;                /* and each one's source (a sender's src, or ours) */
    int64_t part_bytes;                 /* of dst per part of a copy together */
    redist__pullbuf pull;               /* the copy together's rows in dst's order */
    struct redist__onecopy_device *dev; /* device plans: the pulls from peers' device src */
};

static atomic_ullong copied; /* messages copied once by this process (tests) */

uint64_t redist__onecopy_messages(void)
{
    return atomic_load(&copied);
}

void redist__onecopy_free(struct redist_plan_s *p)
{
    if (p->shm == NULL || p->shm->one == NULL)
        return;
    struct redist__onecopy *o = p->shm->one;
    for (int i = 0; o->peer_side != NULL && i < o->nrecv; i++)
        redist__side_free(&o->peer_side[i]);
    redist__free(o->peer_side);
    redist__free(o->peer_msg);
    redist__free(o->direct);
    redist__walkbuf_free(&o->walk);
    redist__free(o->node_rank_of);
    redist__free(o->plan_ranks);
    redist__free(o->src_of);
    redist__free(o->msg_of);
    redist__pullbuf_free(&o->pull);
    redist__onecopy_device_free(p, o->dev);
    redist__free(o);
    p->shm->one = NULL;
}

/* Whether this rank can take part: packed messages through the window (bounded mode's too:
   strip.c sends a chunk's place in src instead of packing it), a host plan (1) or a device
   plan whose backend maps other processes' memory (2: not in bounded mode; both arrays device
   memory on every rank, options.memory = CUDA: under AUTO a receiver's dst may be host
   memory, which a pull cannot write, and the sender cannot tell). A child plan (a
   phase, a batch's part) takes part but never offers host arrays: its executes hold no
   allocation (exec.c). */
enum { HOST_PLAN = 1, DEVICE_PLAN = 2 };
static int eligible(const struct redist_plan_s *p)
{
    if (p->shm == NULL || !p->opt.shared_memory || p->transport != REDIST_TRANSPORT_PACK)
        return 0;
    if (p->device == NULL)
        return HOST_PLAN;
    return !p->bounded && p->opt.memory == REDIST_MEMORY_CUDA &&
                   redist__device_has_ipc(redist__staging_dev(p))
               ? DEVICE_PLAN
               : 0;
}

int redist__peer_msg(const struct redist_plan_s *p, const redist__msg *m, const int64_t *q_ld,
                     redist__side *side, const redist__msg **out, int *max_levels)
{
    *out = NULL;
    struct redist_layout_s *src = redist__layout_copy(p->src);
    if (src == NULL)
        return REDIST_ERR_NOMEM;
    memcpy(src->ld, q_ld, (size_t)src->ndims * sizeof *src->ld);
    /* the sender chose its replicas by node and sends partial sums as the plan's source says:
       a copy keeps neither (node_of borrowed, taken back before the copy is freed) */
    src->node_of = p->src->node_of;
    src->partial = p->src->partial;
    int err = redist__side_create(src, p->dst, REDIST__SIDE_SRC, m->peer, side);
    src->node_of = NULL;
    redist_layout_free(&src);
    if (err != REDIST_SUCCESS)
        return err;
    for (int k = 0; k < side->nmsgs; k++)
        if (side->msgs[k].peer == p->rank)
            *out = &side->msgs[k];
    if (*out == NULL || (*out)->nelems != m->nelems)
        return redist__fail(REDIST_ERR_MISMATCH,
                            "one copy: rank %d's message to rank %d "
                            "does not match the one expected",
                            m->peer, p->rank);
    if ((*out)->nlevels > *max_levels)
        *max_levels = (*out)->nlevels;
    if (m->nlevels > *max_levels)
        *max_levels = m->nlevels;
    return REDIST_SUCCESS;
}

int redist__walkbuf_init(redist__walkbuf *w, int threads, size_t elsize, int max_levels)
{
    w->threads = threads > 0 ? threads : 1;
    w->max_levels = max_levels;
    w->chunk_bytes = CHUNK_BYTES > (int64_t)elsize ? CHUNK_BYTES : (int64_t)elsize;
    w->chunk = redist__malloc((size_t)w->chunk_bytes * (size_t)w->threads);
    w->cursors =
        redist__malloc((size_t)(6 * (max_levels + 1)) * (size_t)w->threads * sizeof(int64_t));
    return w->chunk != NULL && w->cursors != NULL ? REDIST_SUCCESS : REDIST_ERR_NOMEM;
}

void redist__walkbuf_free(redist__walkbuf *w)
{
    redist__free(w->chunk);
    redist__free(w->cursors);
    w->chunk = NULL;
    w->cursors = NULL;
}

int redist__ld_dense(const int64_t *ld, int d)
{
    for (int k = 0; k < d; k++)
        if (ld[k] != 0)
            return 0;
    return 1;
}

/* Every node rank's plan rank, eligibility and src ld, gathered; the node's verdict (every
   rank eligible, and all of one kind: *every is that kind, else 0). The node's ranks all make
   the same calls whatever failed (a rank out of memory says so first). */
static int gather_node(struct redist_plan_s *p, int64_t **all, int *nnode, int *every)
{
    int d = p->src->ndims, n = 0;
    MPI_Comm_size(p->shm->node, &n);
    int64_t *mine = redist__calloc((size_t)(2 + d), sizeof *mine);
    *all = redist__calloc((size_t)n * (size_t)(2 + d), sizeof **all);
    int ok = mine != NULL && *all != NULL, all_ok = 0;
    *nnode = n;
    *every = 0;
    int rc = MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, p->shm->node);
    if (rc == MPI_SUCCESS && all_ok) {
        mine[0] = p->rank;
        mine[1] = eligible(p);
        for (int k = 0; k < d; k++)
            mine[2 + k] = p->src->ld[k];
        rc = MPI_Allgather(mine, 2 + d, MPI_INT64_T, *all, 2 + d, MPI_INT64_T, p->shm->node);
    }
    redist__free(mine);
    if (rc != MPI_SUCCESS)
        return redist__fail(REDIST_ERR_MPI, "one copy: gathering the node's storage failed");
    if (!all_ok)
        return REDIST_ERR_NOMEM;
    *every = (int)(*all)[1];
    for (int r = 0; r < n; r++)
        if ((*all)[(size_t)r * (size_t)(2 + d) + 1] != *every)
            *every = 0;
    return REDIST_SUCCESS;
}

/* Device plans: the pulls' state (onecopy_device.c), with each local receive's sender
   message (its own, built with the sender's storage, or the receive message where both sides
   are dense). Collective over the node: every rank calls it, `ready` or not (then it takes
   part and keeps nothing). */
static int device_setup(struct redist_plan_s *p, struct redist__onecopy *o, int ready)
{
    ready = ready && o != NULL;
    const redist__msg **from = redist__calloc((size_t)p->recv.nmsgs + 1, sizeof *from);
    for (int i = 0; from != NULL && ready && i < p->recv.nmsgs; i++)
        if (redist__shm_local(p, 0, i))
            from[i] = o->direct[i] ? &p->recv.msgs[i] : o->peer_msg[i];
    struct redist__onecopy_device *d = NULL;
    int err = redist__onecopy_device_setup(p, from, ready && from != NULL, p->recv.nmsgs, &d);
    redist__free(from);
    if (o != NULL)
        o->dev = d;
    else
        redist__onecopy_device_free(p, d);
    return err;
}

int redist__onecopy_setup(struct redist_plan_s *p)
{
    if (p->shm == NULL)
        return REDIST_SUCCESS;
    int64_t *all = NULL;
    int n = 0, every = 0, d = p->src->ndims;
    int err = gather_node(p, &all, &n, &every);
    if (err != REDIST_SUCCESS || !every) {
        redist__free(all);
        return err;
    }
    struct redist__onecopy *o = redist__calloc(1, sizeof *o);
    if (o == NULL) {
        redist__free(all);
        if (every == DEVICE_PLAN) /* its node's ranks are in it: take part */
            device_setup(p, NULL, 0);
        return REDIST_ERR_NOMEM;
    }
    p->shm->one = o;
    o->nrecv = p->recv.nmsgs;
    o->peer_side = redist__calloc((size_t)o->nrecv + 1, sizeof *o->peer_side);
    o->peer_msg = redist__calloc((size_t)o->nrecv + 1, sizeof *o->peer_msg);
    o->direct = redist__calloc((size_t)o->nrecv + 1, 1);
    o->src_of = redist__calloc((size_t)o->nrecv + 2, sizeof *o->src_of);
    o->msg_of = redist__calloc((size_t)o->nrecv + 2, sizeof *o->msg_of);
    o->part_bytes = part_bytes();
    o->node_rank_of = redist__malloc((size_t)p->size * sizeof *o->node_rank_of);
    o->plan_ranks = redist__malloc((size_t)p->size * sizeof *o->plan_ranks);
    int max_levels = 0;
    if (!o->peer_side || !o->peer_msg || !o->direct || !o->node_rank_of || !o->plan_ranks ||
        !o->src_of || !o->msg_of)
        err = REDIST_ERR_NOMEM;
    for (int i = 0; err == REDIST_SUCCESS && i < o->nrecv; i++) {
        if (!redist__shm_local(p, 0, i))
            continue;
        const int64_t *q = NULL;
        for (int r = 0; r < n; r++)
            if (all[(size_t)r * (size_t)(2 + d)] == p->recv.msgs[i].peer)
                q = &all[(size_t)r * (size_t)(2 + d) + 2];
        if (q == NULL) {
            err = redist__fail(REDIST_ERR_MISMATCH, "one copy: a node peer is missing");
            break;
        }
        /* both sides dense: the receive message copies by itself; else the sender's own
           message to this rank, built with its storage, walks its side */
        o->direct[i] = redist__ld_dense(q, d) && redist__ld_dense(p->dst->ld, p->dst->ndims);
        if (!o->direct[i])
            err = redist__peer_msg(p, &p->recv.msgs[i], q, &o->peer_side[i], &o->peer_msg[i],
                                   &max_levels);
    }
    /* the host copies' buffers (device plans' pulls are kernels: onecopy_device.c) */
    if (err == REDIST_SUCCESS && every == HOST_PLAN)
        err = redist__walkbuf_init(&o->walk, p->threads, p->elsize, max_levels);
    if (err == REDIST_SUCCESS && every == HOST_PLAN) { /* every receive message and the self */
        o->msg_of[o->nrecv] = p->self;
        for (int i = 0; i < o->nrecv; i++)
            o->msg_of[i] = &p->recv.msgs[i];
        err = redist__pullbuf_init(&o->pull, p, o->msg_of, o->nrecv + (p->self != NULL));
    }
    for (int r = 0; err == REDIST_SUCCESS && r < p->size; r++)
        o->plan_ranks[r] = r;
    redist__free(all);
    if (every == DEVICE_PLAN) { /* collective over the node, whatever failed here */
        int made = device_setup(p, o, err == REDIST_SUCCESS);
        err = err != REDIST_SUCCESS ? err : made;
    }
    return err; /* the caller frees the plan (and o) on an error */
}

/* The plan ranks' ranks in allocation a's node, cached per allocation; 0 if unknown. */
static int know_node(struct redist_plan_s *p, const struct redist__shared *a)
{
    struct redist__onecopy *o = p->shm->one;
    if (o->alloc == a && o->alloc_id == a->id)
        return 1;
    o->alloc = NULL;
    if (!redist__node_ranks_into(p->comm, a->node, p->size, o->plan_ranks, o->node_rank_of))
        return 0;
    o->alloc = a;
    o->alloc_id = a->id;
    return 1;
}

/* The note that lets a node peer read [lo, hi) of this rank's memory through allocation a,
   whose node knows this rank as me: {a's id, me, base's offset in my segment}; 0 (note
   zeros) if those bytes are not all in my segment. */
static int place(const struct redist__shared *a, int me, const char *base, const char *lo,
                 const char *hi, int64_t note[3])
{
    MPI_Aint size = 0;
    int disp = 0;
    char *seg = NULL;
    note[0] = note[1] = note[2] = 0;
    if (me < 0 || MPI_Win_shared_query(a->win, me, &size, &disp, &seg) != MPI_SUCCESS || lo < seg ||
        hi > seg + size)
        return 0;
    note[0] = (int64_t)a->id;
    note[1] = me;
    note[2] = (int64_t)(base - seg);
    return 1;
}

int redist__onecopy_offer(struct redist_plan_s *p, int i)
{
    int64_t *note = p->shm->note_out[i];
    note[0] = note[1] = note[2] = 0;
    struct redist__onecopy *o = p->shm->one;
    if (o != NULL && o->dev != NULL)
        return redist__onecopy_device_offer(p, o->dev, i, note);
    const struct redist__shared *a = p->held[0];
    if (o == NULL || a == NULL || p->dry || !know_node(p, a) ||
        o->node_rank_of[p->send.msgs[i].peer] < 0)
        return 0;
    /* the elements the plan reads, [src_lo, src_hi) from the caller's pointer (cur_src is
       past it by src_base), must lie in the segment: the peer reads them there */
    const char *lo = p->cur_src + (p->src_lo - p->src_base) * (int64_t)p->elsize,
               *hi = p->cur_src + (p->src_hi - p->src_base) * (int64_t)p->elsize;
    return place(a, o->node_rank_of[p->rank], p->cur_src, lo, hi, note);
}

int redist__onecopy_locate(MPI_Comm comm, int peer, const struct redist__shared *a,
                           const char *base, const char *lo, const char *hi, int64_t note[3])
{
    note[0] = note[1] = note[2] = 0;
    if (a == NULL)
        return 0;
    int mine[2] = {0, peer}, there[2] = {MPI_UNDEFINED, MPI_UNDEFINED};
    MPI_Comm_rank(comm, &mine[0]);
    MPI_Group g = MPI_GROUP_NULL, node = MPI_GROUP_NULL;
    int ok = MPI_Comm_group(comm, &g) == MPI_SUCCESS &&
             MPI_Comm_group(a->node, &node) == MPI_SUCCESS &&
             MPI_Group_translate_ranks(g, 2, mine, node, there) == MPI_SUCCESS;
    if (g != MPI_GROUP_NULL)
        MPI_Group_free(&g);
    if (node != MPI_GROUP_NULL)
        MPI_Group_free(&node);
    if (!ok || there[0] == MPI_UNDEFINED || there[1] == MPI_UNDEFINED)
        return 0;
    return place(a, there[0], base, lo, hi, note);
}

const char *redist__onecopy_source(const int64_t note[3])
{
    const struct redist__shared *a = redist__shared_by_id((uint64_t)note[0]);
    MPI_Aint size = 0;
    int disp = 0;
    char *seg = NULL;
    if (a == NULL || MPI_Win_shared_query(a->win, (int)note[1], &size, &disp, &seg) != MPI_SUCCESS)
        return NULL;
    return seg + note[2];
}

void redist__onecopy_count(int n)
{
    atomic_fetch_add(&copied, (unsigned long long)n);
}

int redist__onecopy_offered(const struct redist_plan_s *p, int i)
{
    return p->shm != NULL && p->shm->note_in[i][0] != 0;
}

/* One message's copy through the pass-through buffers, split among a team: part t of n
   copies its share of the elements, each thread with its own cursors and chunk (the parts
   write disjoint elements of dst). */
typedef struct {
    const struct redist_plan_s *p;
    const redist__walkbuf *w;
    const redist__msg *from, *to; /* the sender's message (its storage), the receiver's */
    const char *src;              /* the sender's local index 0, in this process */
    char *dst;
    int64_t lo, hi; /* the message's elements [lo, hi) */
} copy_job;

static void copy_part(void *arg, int part, int nparts)
{
    const copy_job *j = arg;
    const redist__walkbuf *w = j->w;
    size_t es = j->p->elsize;
    int64_t len = j->hi - j->lo, n;
    int64_t lo = j->lo + len * part / nparts, hi = j->lo + len * (part + 1) / nparts;
    int64_t *scratch = w->cursors + (size_t)part * 6 * (size_t)(w->max_levels + 1);
    char *chunk = w->chunk + (size_t)part * (size_t)w->chunk_bytes;
    redist__cursor from, to;
    redist__cursor_init(&from, j->from, scratch);
    redist__cursor_init(&to, j->to, scratch + 3 * (w->max_levels + 1));
    redist__cursor_skip(&from, lo);
    redist__cursor_skip(&to, lo);
    int64_t left = hi - lo, max = w->chunk_bytes / (int64_t)es;
    while (left > 0 &&
           (n = redist__cursor_pack(&from, j->src, chunk, left < max ? left : max, es)) > 0) {
        redist__cursor_unpack(&to, chunk, j->dst, n, es, j->p->scale);
        left -= n;
    }
}

/* Part t of n of a range of a message that the walker copies by itself (dense storage). */
static void range_part(void *arg, int part, int nparts)
{
    const copy_job *j = arg;
    int64_t len = j->hi - j->lo;
    redist__move_range(j->to, REDIST__COPY, j->src, j->dst, j->p->elsize, j->p->scale,
                       j->lo + len * part / nparts, j->lo + len * (part + 1) / nparts);
}

void redist__copy_walked(const struct redist_plan_s *p, const redist__walkbuf *w,
                         const redist__msg *from, const redist__msg *to, const char *src, char *dst,
                         int64_t lo, int64_t hi)
{
    copy_job job = {p, w, from, to, src, dst, lo, hi};
    if (hi > lo)
        redist__par_run(p, (hi - lo) * (int64_t)p->elsize, from != NULL ? copy_part : range_part,
                        &job);
}

/* The sender's src of receive message i (offered), in this process; NULL if unmappable. */
static const char *sender_src(const struct redist_plan_s *p, int i)
{
    const struct redist__onecopy *o = p->shm->one;
    if (o == NULL || (!o->direct[i] && o->peer_msg[i] == NULL))
        return NULL;
    return redist__onecopy_source(p->shm->note_in[i]);
}

static int unmappable(const struct redist_plan_s *p, int i)
{
    return redist__fail(REDIST_ERR_STATE,
                        "one copy: rank %d offered its src, which this rank cannot map",
                        p->recv.msgs[i].peer);
}

/* Device plans: receive messages msgs[0 .. n) pulled from the senders' device src (and the
   self part), then waited for: the acknowledgements that follow free the senders' src. */
static int device_copies(struct redist_plan_s *p, const int *msgs, int n, int with_self)
{
    struct redist__onecopy *o = p->shm->one;
    int err = REDIST_SUCCESS;
    for (int x = 0; x < n && err == REDIST_SUCCESS; x++)
        err = redist__onecopy_device_copy(p, o->dev, msgs[x]);
    redist__staging_defer(p, 1); /* the self kernel runs on: the execute's end waits */
    if (err == REDIST_SUCCESS && with_self && p->self != NULL) /* one kernel, no tiles */
        redist__par_move(p, REDIST__COPY, p->self, p->cur_src, p->cur_dst);
    redist__staging_defer(p, 0);
    redist__onecopy_device_done(p, o->dev); /* waited for, or an event the senders wait for */
    if (err == REDIST_SUCCESS)
        atomic_fetch_add(&copied, (unsigned long long)n);
    return err;
}

void redist__onecopy_end(struct redist_plan_s *p)
{
    const struct redist__onecopy *o = p->shm != NULL ? p->shm->one : NULL;
    if (o != NULL && o->dev != NULL && !p->dry)
        redist__onecopy_device_end(p, o->dev);
}

void redist__onecopy_device_stats(const struct redist_plan_s *p, int64_t *messages, int64_t *bytes)
{
    const struct redist__onecopy *o = p->shm != NULL ? p->shm->one : NULL;
    redist__onecopy_device_count(p, o != NULL ? o->dev : NULL, messages, bytes);
}

int redist__onecopy_copy(struct redist_plan_s *p, int i)
{
    struct redist__onecopy *o = p->shm->one;
    if (o != NULL && o->dev != NULL)
        return device_copies(p, &i, 1, 0);
    const char *src = sender_src(p, i);
    if (src == NULL)
        return unmappable(p, i);
    if (o->direct[i]) /* the receive message's guess of the sender's storage is exact */
        redist__par_move(p, REDIST__COPY, &p->recv.msgs[i], src, p->cur_dst);
    else
        redist__copy_walked(p, &o->walk, o->peer_msg[i], &p->recv.msgs[i], src, p->cur_dst, 0,
                            p->recv.msgs[i].nelems);
    atomic_fetch_add(&copied, 1);
    return REDIST_SUCCESS;
}

int redist__onecopy_copy_range(struct redist_plan_s *p, int i, const int64_t note[3], int64_t lo,
                               int64_t hi)
{
    const struct redist__onecopy *o = p->shm->one;
    const char *src = o != NULL && o->dev == NULL ? redist__onecopy_source(note) : NULL;
    if (o == NULL || src == NULL || (!o->direct[i] && o->peer_msg[i] == NULL))
        return unmappable(p, i); /* device plans offer nothing in bounded mode */
    redist__copy_walked(p, &o->walk, o->direct[i] ? NULL : o->peer_msg[i], &p->recv.msgs[i], src,
                        p->cur_dst, lo, hi);
    if (hi == p->recv.msgs[i].nelems)
        atomic_fetch_add(&copied, 1);
    return REDIST_SUCCESS;
}

/* A copy in parts: part k of every move before part k + 1 of any, thread t of nt taking
   parts [k * parts / nt, ...). */
typedef struct {
    const struct redist_plan_s *p;
    const redist__msg *const *msgs;
    const char *const *srcs;
    int n;
    char *dst;
    int64_t parts;
} parts_job;

static void parts_part(void *arg, int t, int nt)
{
    const parts_job *j = arg;
    const struct redist_plan_s *p = j->p;
    for (int64_t k = j->parts * t / nt; k < j->parts * (t + 1) / nt; k++)
        for (int x = 0; x < j->n; x++) {
            const redist__msg *m = j->msgs[x];
            redist__move_range(m, REDIST__COPY, j->srcs[x], j->dst, p->elsize, p->scale,
                               m->nelems * k / j->parts, m->nelems * (k + 1) / j->parts);
        }
}

void redist__copy_in_parts(const struct redist_plan_s *p, const redist__msg *const *msgs,
                           const char *const *srcs, int n, char *dst, int64_t part_bytes)
{
    int64_t elems = 0;
    for (int x = 0; x < n; x++)
        elems += msgs[x]->nelems;
    int64_t bytes = elems * (int64_t)p->elsize, parts = bytes / part_bytes;
    parts_job job = {p, msgs, srcs, n, dst, parts > 0 ? parts : 1};
    if (elems > 0)
        redist__par_run(p, bytes, parts_part, &job);
}

int64_t redist__onecopy_part_bytes(void)
{
    return part_bytes();
}

enum { PULL_MAX_RUNS = 1 << 14 }; /* a group's merged runs at most (else copied in parts) */
/* A group streams (where the machine says it pays) only from this many bytes: dst that fits
   in the caches is better left there for the caller, who reads it next. */
enum { STREAM_MIN_BYTES = 4 << 20 };

int redist__pullbuf_init(redist__pullbuf *b, const struct redist_plan_s *p,
                         const redist__msg *const *msgs, int n)
{
    int64_t runs = 0;
    int levels = 0;
    for (int i = 0; i < n; i++) {
        if (!redist__pull_fits(msgs[i]))
            continue;
        const redist__level *L = &msgs[i]->levels[msgs[i]->nlevels - 1];
        for (int64_t r = 0; r < L->nruns; r++)
            runs += L->runs[r].count;
        levels = msgs[i]->nlevels > levels ? msgs[i]->nlevels : levels;
    }
    b->streaming = p->machine != NULL && p->machine->stream_gain > 1.0;
    b->cap = runs < PULL_MAX_RUNS ? runs : PULL_MAX_RUNS;
    b->scratch = 3 * (int64_t)levels + n + 1;
    b->threads = p->threads > 0 ? p->threads : 1;
    size_t k = (size_t)n + 1;
    b->members = redist__malloc(k * sizeof *b->members);
    b->member_src = redist__malloc(k * sizeof *b->member_src);
    b->taken = redist__malloc(k);
    b->runs = redist__malloc(((size_t)b->cap + 1) * sizeof *b->runs);
    b->rows = redist__malloc((size_t)b->scratch * (size_t)b->threads * sizeof *b->rows);
    return b->members && b->member_src && b->taken && b->runs && b->rows ? REDIST_SUCCESS
                                                                         : REDIST_ERR_NOMEM;
}

void redist__pullbuf_free(redist__pullbuf *b)
{
    redist__free(b->members);
    redist__free(b->member_src);
    redist__free(b->taken);
    redist__free(b->runs);
    redist__free(b->rows);
    memset(b, 0, sizeof *b);
}

/* Rows of one group, split among a team: part t of n copies rows [rows t / n, ...). */
typedef struct {
    const struct redist_plan_s *p;
    const redist__pullbuf *b;
    char *dst;
    int g, streaming;
    int64_t nruns, rows;
} pull_job;

static void pull_part(void *arg, int part, int nparts)
{
    const pull_job *j = arg;
    const redist__pullbuf *b = j->b;
    redist__pull_copy(b->members, b->member_src, j->g, b->runs, j->nruns, j->dst, j->p->elsize,
                      j->rows * part / nparts, j->rows * (part + 1) / nparts,
                      b->rows + (size_t)part * (size_t)b->scratch, j->streaming);
}

/* taken[x]: in the group being gathered, copied by rows, or left for the parts */
enum { GATHERED = 1, PULLED = 2, LEFT = 3 };

/* The members of the group that msgs[x] starts (the moves not yet taken that fill its rows),
   each marked GATHERED in taken. */
static int gather_group(redist__pullbuf *b, const redist__msg **msgs, const char **srcs, int n,
                        int x, size_t elsize, int64_t *bytes)
{
    int g = 0;
    *bytes = 0;
    for (int y = x; y < n; y++)
        if (!b->taken[y] && redist__pull_fits(msgs[y]) &&
            redist__pull_same_rows(msgs[x], msgs[y])) {
            b->members[g] = msgs[y];
            b->member_src[g++] = srcs[y];
            *bytes += msgs[y]->nelems * (int64_t)elsize;
            b->taken[y] = GATHERED;
        }
    return g;
}

int redist__pull_together(const struct redist_plan_s *p, redist__pullbuf *b,
                          const redist__msg **msgs, const char **srcs, int n, char *dst)
{
    if (p->scale != NULL || b->runs == NULL || p->threads > b->threads)
        return n;
    memset(b->taken, 0, (size_t)n);
    for (int x = 0; x < n; x++) {
        if (b->taken[x] || !redist__pull_fits(msgs[x]))
            continue;
        int64_t bytes = 0;
        int g = gather_group(b, msgs, srcs, n, x, p->elsize, &bytes);
        int64_t nruns = redist__pull_merge(b->members, g, b->runs, b->cap);
        if (nruns >= 0) { /* else too many runs for the scratch: the group goes in parts */
            pull_job job = {p,
                            b,
                            dst,
                            g,
                            b->streaming && bytes >= STREAM_MIN_BYTES,
                            nruns,
                            redist__pull_rows_of(msgs[x])};
            redist__par_run(p, bytes, pull_part, &job);
        }
        for (int y = x; y < n; y++)
            if (b->taken[y] == GATHERED)
                b->taken[y] = nruns >= 0 ? PULLED : LEFT;
    }
    int rest = 0;
    for (int x = 0; x < n; x++)
        if (b->taken[x] != PULLED) {
            msgs[rest] = msgs[x];
            srcs[rest++] = srcs[x];
        }
    return rest;
}

/* Whether receive message i can join a copy together: the walker copies it (both sides
   dense) and it does not transpose (a transposing copy goes by its own tiles). */
static int joins(const struct redist_plan_s *p, int i)
{
    return p->shm->one->direct[i] && p->recv.msgs[i].tiles == NULL;
}

int redist__onecopy_copy_together(struct redist_plan_s *p, int *msgs, int n, int with_self)
{
    struct redist__onecopy *o = p->shm->one;
    if (o != NULL && o->dev != NULL)
        return device_copies(p, msgs, n, with_self);
    int joined = 0;
    for (int x = 0; x < n; x++) { /* the ones that cannot join, alone; the rest together */
        int i = msgs[x];
        const char *src = o != NULL ? sender_src(p, i) : NULL;
        if (src == NULL)
            return unmappable(p, i);
        if (!joins(p, i)) {
            int err = redist__onecopy_copy(p, i);
            if (err != REDIST_SUCCESS)
                return err;
            continue;
        }
        o->msg_of[joined] = &p->recv.msgs[i];
        o->src_of[joined++] = src;
    }
    if (with_self) { /* no tiles (the caller's rule) */
        o->msg_of[joined] = p->self;
        o->src_of[joined++] = p->cur_src;
    }
    int rest = redist__pull_together(p, &o->pull, o->msg_of, o->src_of, joined, p->cur_dst);
    redist__copy_in_parts(p, o->msg_of, o->src_of, rest, p->cur_dst, o->part_bytes);
    atomic_fetch_add(&copied, (unsigned long long)(joined - (with_self != 0)));
    return REDIST_SUCCESS;
}
