/* Batches: several arrays moved by one plan and one exchange, one message per peer pair.
 *
 * Each array gets its own plan (a child: the same layouts, types, windows, permutation and
 * scaling rules, forced to direct-async's packed messages without the shared-memory window),
 * which is used only for its messages: the batch packs, for every peer, the pieces of all
 * arrays one after the other into one message, posts one receive and one send per peer, copies
 * every array's local part, and unpacks each message as it arrives. The children's own pack
 * buffers are released; the batch holds one send and one receive buffer for all.
 *
 * Device memory (options.memory): the children stage their own moves (exec/staging.c), the
 * batch's buffers are host memory as theirs are.
 *
 * Start/test/wait are the plan's: redist_start_batch begins an execution (the argument
 * agreement of execute included) and redist_test / redist_wait drive it (exec.c calls the
 * batch's progress below).
 *
 * One copy on a node (exec/onecopy.c for single plans): a pair of ranks on one
 * node (the plan's node) exchanges a note first. The sender's note says where its arrays are
 * (header 1, then per array {allocation id, its rank in the allocation's node, the byte
 * offset of the array's window base}) when every array with elements for the peer lies in a
 * redist_alloc allocation the peer maps; else header 0, and the packed message follows as
 * for any peer. The receiver posts such a pair's data receive only once its note says
 * packed; an offered pair it copies straight from the sender's arrays and acknowledges,
 * which lets the sender complete. Where both ends store an array densely the children's
 * receive messages copy it by themselves (their guess of the sender's storage is exact),
 * together in dst's order; with an ld on either end, through a small buffer, the sender's
 * own message to this rank (built at creation from its ld, gathered over the node) walking
 * its src. The sender decides per execute and pair, the receiver follows its note: any mix
 * is consistent.
 */
#include "api/api.h"
#include "exec/engine.h"
#include "exec/shared.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

typedef struct batch_dir {
    int n;              /* peers */
    int *peer;          /* [n] comm ranks, increasing */
    int *msg;           /* [n * count] message index in child i's side, or -1 */
    int64_t *offset;    /* [n + 1] byte offsets in the buffer */
    int64_t *first_req; /* [n + 1] requests of peer slot j: [first_req[j], first_req[j + 1]),
                           a message in chunks of at most REDIST__CHUNK_BYTES */
    char *buf;
} batch_dir;

/* One copy on a node: the pairs that may copy once, and this execute's notes. */
typedef struct batch_once {
    char *send_pair, *recv_pair; /* [send.n], [recv.n]: the slot's peer is such a pair */
    int64_t *note_out, *note_in; /* [slots * note_len]: header, then 3 per array */
    int64_t note_len;            /* 1 + 3 count */
    int *ready, nready;          /* receive slots whose notes offered, not yet copied */
    int notes_left;              /* note receives not yet arrived */
    const redist__msg **msgs;    /* [recv.n] scratch of a copy in parts: one array's moves */
    const char **srcs;           /* and their sources */
    int64_t part_bytes;
    /* [recv.n * count]: where a sender stores array i otherwise than this rank's receive
       message guesses (an ld on either side), its own message to this rank, walking its
       src (redist__peer_msg; NULL: the receive message copies by itself), and its side */
    const redist__msg **peer_msg;
    redist__side *peer_side;
    redist__walkbuf walk;
    redist__pullbuf pull; /* each array's dense messages, by rows in dst's order */
} batch_once;

typedef struct batch {
    int count;
    redist_plan *child;
    batch_dir send, recv;
    batch_once once;
    /* Request ranges: receive chunks [0, ni - send chunks), send chunks, then from ni the
       note receives [recv.n], note sends [send.n] (from no), acknowledgement receives
       [send.n] (from ai) and sends [recv.n] (from ao); total in all. */
    int ni, no, ai, ao, total;
    MPI_Request *reqs;
    int *idx;         /* MPI_Waitsome's indices (allocated with the plan: none at execute) */
    int *slot_of_req; /* receive request -> its peer slot */
    int64_t *left;    /* per receive slot: chunks still to arrive */
    const char **src; /* this execution's arrays, at their windows' bases */
    char **dst;
} batch;

static const redist__side *side_of(const batch *b, int i, int is_send)
{
    return is_send ? &b->child[i]->send : &b->child[i]->recv;
}

static int compare_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The peers of every child's side, merged, and where each child's message to each lies. */
static int build_dir(batch *b, int is_send, batch_dir *d)
{
    size_t total = 0;
    for (int i = 0; i < b->count; i++)
        total += (size_t)side_of(b, i, is_send)->nmsgs;
    d->peer = redist__malloc((total + 1) * sizeof *d->peer);
    int *next = redist__calloc(b->count > 0 ? (size_t)b->count : 1, sizeof *next); /* per child */
    if (d->peer == NULL || next == NULL) {
        redist__free(next);
        return REDIST_ERR_NOMEM;
    }
    size_t at = 0;
    for (int i = 0; i < b->count; i++)
        for (int m = 0; m < side_of(b, i, is_send)->nmsgs; m++)
            d->peer[at++] = side_of(b, i, is_send)->msgs[m].peer;
    qsort(d->peer, total, sizeof *d->peer, compare_int);
    d->n = 0;
    for (size_t j = 0; j < total; j++)
        if (j == 0 || d->peer[j] != d->peer[j - 1])
            d->peer[d->n++] = d->peer[j];
    d->msg = redist__malloc(((size_t)d->n * (size_t)b->count + 1) * sizeof *d->msg);
    d->offset = redist__calloc((size_t)d->n + 1, sizeof *d->offset);
    d->first_req = redist__calloc((size_t)d->n + 1, sizeof *d->first_req);
    if (d->msg == NULL || d->offset == NULL || d->first_req == NULL) {
        redist__free(next);
        return REDIST_ERR_NOMEM;
    }
    for (int j = 0; j < d->n; j++) { /* the peers in order: each child's messages are too */
        d->offset[j + 1] = d->offset[j];
        for (int i = 0; i < b->count; i++) {
            const redist__side *s = side_of(b, i, is_send);
            int m = next[i] < s->nmsgs && s->msgs[next[i]].peer == d->peer[j] ? next[i]++ : -1;
            d->msg[j * b->count + i] = m;
            if (m >= 0)
                d->offset[j + 1] += s->msgs[m].nelems * (int64_t)b->child[i]->elsize;
        }
        d->first_req[j + 1] = d->first_req[j] + redist__chunks(d->offset[j + 1] - d->offset[j]);
    }
    redist__free(next);
    return d->first_req[d->n] < INT_MAX ? REDIST_SUCCESS
                                        : redist__fail(REDIST_ERR_UNSUPPORTED, "batch: requests");
}

static void free_dir(batch_dir *d)
{
    redist__free(d->peer);
    redist__free(d->msg);
    redist__free(d->offset);
    redist__free(d->first_req);
    redist__free(d->buf);
}

static void batch_destroy_state(batch *b)
{
    for (int i = 0; b->child != NULL && i < b->count; i++)
        redist_plan_free(&b->child[i]);
    redist__free(b->child);
    free_dir(&b->send);
    free_dir(&b->recv);
    redist__free(b->reqs);
    redist__free(b->idx);
    redist__free(b->slot_of_req);
    redist__free(b->left);
    redist__free(b->once.send_pair);
    redist__free(b->once.recv_pair);
    redist__free(b->once.note_out);
    redist__free(b->once.note_in);
    redist__free(b->once.ready);
    redist__free(b->once.msgs);
    redist__free(b->once.srcs);
    for (int k = 0; b->once.peer_side != NULL && k < b->recv.n * b->count; k++)
        redist__side_free(&b->once.peer_side[k]);
    redist__free(b->once.peer_side);
    redist__free(b->once.peer_msg);
    redist__walkbuf_free(&b->once.walk);
    redist__pullbuf_free(&b->once.pull);
    redist__free(b->src);
    redist__free(b->dst);
    redist__free(b);
}

static void batch_destroy(struct redist_plan_s *p)
{
    if (p->algo_state != NULL)
        batch_destroy_state(p->algo_state);
    p->algo_state = NULL;
}

/* The pieces of every array for peer slot j of d, packed (is_send) or unpacked. */
static void move_peer(const batch *b, const batch_dir *d, int j, int is_send)
{
    char *at = d->buf + d->offset[j];
    for (int i = 0; i < b->count; i++) {
        int m = d->msg[j * b->count + i];
        if (m < 0)
            continue;
        const struct redist_plan_s *c = b->child[i];
        const redist__msg *msg = &side_of(b, i, is_send)->msgs[m];
        if (is_send)
            redist__par_move(c, REDIST__PACK, msg, b->src[i], at);
        else
            redist__par_move(c, REDIST__UNPACK, msg, at, b->dst[i]);
        at += msg->nelems * (int64_t)c->elsize;
    }
}

/* Where the note of slot j lies. */
static int64_t *note_of(const batch *b, int is_send, int j)
{
    return (is_send ? b->once.note_out : b->once.note_in) + (size_t)j * (size_t)b->once.note_len;
}

/* Sender: fills slot j's note; 1 if its peer copies every array's message itself. */
static int offer(const struct redist_plan_s *p, const batch *b, int j)
{
    int64_t *note = note_of(b, 1, j);
    memset(note, 0, (size_t)b->once.note_len * sizeof *note);
    if (p->dry)
        return 0;
    for (int i = 0; i < b->count; i++) {
        int m = b->send.msg[j * b->count + i];
        if (m < 0)
            continue;
        const struct redist_plan_s *c = b->child[i];
        const char *base = b->src[i];
        int64_t es = (int64_t)c->elsize;
        if (2 * i >= p->nheld_more ||
            !redist__onecopy_locate(p->comm, b->send.peer[j], p->held_more[2 * i], base,
                                    base + (c->src_lo - c->src_base) * es,
                                    base + (c->src_hi - c->src_base) * es, note + 1 + 3 * i))
            return 0;
    }
    note[0] = 1;
    return 1;
}

/* Posts receive slot j's data (its chunks). */
static int post_data_recv(struct redist_plan_s *p, batch *b, int j)
{
    const batch_dir *r = &b->recv;
    b->left[j] = r->first_req[j + 1] - r->first_req[j];
    return redist__post_bytes(r->buf + r->offset[j], r->offset[j + 1] - r->offset[j], r->peer[j], 0,
                              p->comm, b->reqs + r->first_req[j]);
}

static int batch_start(struct redist_plan_s *p)
{
    batch *b = p->algo_state;
    const batch_dir *r = &b->recv, *sd = &b->send;
    int64_t nrr = r->first_req[r->n];
    for (int k = 0; k < b->total; k++)
        b->reqs[k] = MPI_REQUEST_NULL;
    b->once.nready = b->once.notes_left = 0;
    int rc = 0;
    for (int j = 0; j < r->n && rc >= 0; j++) {
        if (!b->once.recv_pair[j]) {
            rc = post_data_recv(p, b, j);
            continue;
        }
        b->left[j] = 0; /* the data, if any, once the note says packed */
        b->once.notes_left++;
        if (MPI_Irecv(note_of(b, 0, j), (int)b->once.note_len, MPI_INT64_T, r->peer[j],
                      REDIST__TAG_NOTE, p->comm, &b->reqs[b->ni + j]) != MPI_SUCCESS)
            rc = redist__fail(REDIST_ERR_MPI, "batch: a note's receive failed");
    }
    for (int j = 0; j < sd->n && rc >= 0; j++) {
        int once = b->once.send_pair[j] && offer(p, b, j);
        if (b->once.send_pair[j] &&
            (MPI_Isend(note_of(b, 1, j), (int)b->once.note_len, MPI_INT64_T, sd->peer[j],
                       REDIST__TAG_NOTE, p->comm, &b->reqs[b->no + j]) != MPI_SUCCESS ||
             (once && MPI_Irecv(NULL, 0, MPI_BYTE, sd->peer[j], REDIST__TAG_ACK, p->comm,
                                &b->reqs[b->ai + j]) != MPI_SUCCESS))) {
            rc = redist__fail(REDIST_ERR_MPI, "batch: a note's send failed");
            break;
        }
        if (once) /* the peer reads this rank's arrays: nothing packed, nothing sent */
            continue;
        if (!p->dry)
            move_peer(b, sd, j, 1);
        rc = redist__post_bytes(sd->buf + sd->offset[j], sd->offset[j + 1] - sd->offset[j],
                                sd->peer[j], 1, p->comm, b->reqs + nrr + sd->first_req[j]);
    }
    if (rc < 0) { /* what was posted is taken back: nothing of this execute writes the arrays */
        redist__abandon_requests(b->reqs, (int)nrr, b->reqs + nrr, b->ni - (int)nrr);
        redist__abandon_requests(b->reqs + b->ni, r->n, b->reqs + b->no, sd->n);
        redist__abandon_requests(b->reqs + b->ai, sd->n, NULL, 0);
        return rc;
    }
    for (int i = 0; i < b->count && !p->dry; i++) /* the local parts, while messages travel */
        if (b->child[i]->self != NULL)
            redist__par_move(b->child[i], REDIST__COPY, b->child[i]->self, b->src[i], b->dst[i]);
    return REDIST_SUCCESS;
}

/* The offered pairs whose notes came: each array's messages from them copied together in
   its dst's order (a transposing one by its own tiles), then every pair acknowledged. */
static int copy_ready(struct redist_plan_s *p, batch *b)
{
    batch_once *o = &b->once;
    int err = REDIST_SUCCESS;
    for (int i = 0; i < b->count && !p->dry && err == REDIST_SUCCESS; i++) {
        const struct redist_plan_s *c = b->child[i];
        int n = 0;
        for (int x = 0; x < o->nready; x++) {
            int j = o->ready[x], m = b->recv.msg[j * b->count + i];
            if (m < 0)
                continue;
            const char *from = redist__onecopy_source(note_of(b, 0, j) + 1 + 3 * i);
            if (from == NULL) {
                err = redist__fail(REDIST_ERR_STATE,
                                   "batch: rank %d offered an array this rank cannot map",
                                   b->recv.peer[j]);
                break;
            }
            const redist__msg *walk = o->peer_msg[j * b->count + i];
            if (walk != NULL) /* an ld on either side: through the buffers */
                redist__copy_walked(c, &o->walk, walk, &c->recv.msgs[m], from, b->dst[i], 0,
                                    c->recv.msgs[m].nelems);
            else if (c->recv.msgs[m].tiles != NULL)
                redist__par_move(c, REDIST__COPY, &c->recv.msgs[m], from, b->dst[i]);
            else
                o->msgs[n] = &c->recv.msgs[m], o->srcs[n++] = from;
        }
        if (err == REDIST_SUCCESS) {
            n = redist__pull_together(c, &o->pull, o->msgs, o->srcs, n, b->dst[i]);
            redist__copy_in_parts(c, o->msgs, o->srcs, n, b->dst[i], o->part_bytes);
        }
    }
    /* acknowledged even after a failure: the senders complete (the error stands here) */
    for (int x = 0; x < o->nready; x++) {
        int j = o->ready[x];
        if (MPI_Isend(NULL, 0, MPI_BYTE, b->recv.peer[j], REDIST__TAG_ACK, p->comm,
                      &b->reqs[b->ao + j]) != MPI_SUCCESS)
            return redist__fail(REDIST_ERR_MPI, "batch: an acknowledgement failed");
    }
    redist__onecopy_count(err == REDIST_SUCCESS ? o->nready : 0);
    o->nready = 0;
    return err;
}

/* One completed request k: a chunk (its slot unpacked once all are in), a note (data
   receives posted, or the pair marked for copying), or a send or acknowledgement. */
static int completed(struct redist_plan_s *p, batch *b, int k)
{
    int nrr = (int)b->recv.first_req[b->recv.n];
    if (k < nrr) {
        int j = b->slot_of_req[k];
        if (--b->left[j] == 0 && !p->dry)
            move_peer(b, &b->recv, j, 0);
        return REDIST_SUCCESS;
    }
    if (k < b->ni || k >= b->no)
        return REDIST_SUCCESS;
    int j = k - b->ni;
    b->once.notes_left--;
    if (note_of(b, 0, j)[0] != 0) {
        b->once.ready[b->once.nready++] = j;
        return REDIST_SUCCESS;
    }
    return post_data_recv(p, b, j) < 0 ? REDIST_ERR_MPI : REDIST_SUCCESS;
}

/* Unpacks every message whose chunks have all arrived, copies the offered pairs (a blocking
   wait once every note is in: notes are sent at the senders' start, so it cannot hang);
   *done once everything is in, copied and sent. */
static int batch_progress(struct redist_plan_s *p, int blocking, int *done)
{
    batch *b = p->algo_state;
    int *idx = b->idx;
    int err = REDIST_SUCCESS, outcount = 0;
    while (err == REDIST_SUCCESS) {
        int rc = blocking ? MPI_Waitsome(b->total, b->reqs, &outcount, idx, MPI_STATUSES_IGNORE)
                          : MPI_Testsome(b->total, b->reqs, &outcount, idx, MPI_STATUSES_IGNORE);
        if (rc != MPI_SUCCESS) {
            err = redist__fail(REDIST_ERR_MPI, "MPI_Waitsome/Testsome failed");
            break;
        }
        for (int k = 0; k < outcount && outcount != MPI_UNDEFINED && err == REDIST_SUCCESS; k++)
            err = completed(p, b, idx[k]);
        int copy =
            err == REDIST_SUCCESS && b->once.nready > 0 && (!blocking || b->once.notes_left == 0);
        if (copy)
            err = copy_ready(p, b); /* then round again: its acknowledgements are posted */
        else if (outcount == MPI_UNDEFINED || (!blocking && outcount == 0))
            break;
    }
    int flag = b->once.nready == 0; /* complete once every request is null and all copied */
    for (int r = 0; r < b->total && flag; r++)
        flag = b->reqs[r] == MPI_REQUEST_NULL;
    *done = err != REDIST_SUCCESS || flag;
    for (int i = 0; *done && err == REDIST_SUCCESS && i < b->count; i++)
        err = redist__staging_error(b->child[i]); /* device plans: a kernel or copy that failed */
    return err;
}

static const redist__algorithm batch_algorithm = {
    .name = "batch",
    .start = batch_start,
    .progress = batch_progress,
    .destroy = batch_destroy,
    .is_batch = 1,
};

/* Phase 1: this rank's arguments; the children check the rest. */
static int check_batch(int count, const redist_layout src[], const redist_layout dst[],
                       const MPI_Datatype types[], const redist_options *opt, int size,
                       redist_plan *plan)
{
    if (plan == NULL)
        return redist__fail(REDIST_ERR_ARG, "plan: NULL output pointer");
    if (count < 1 || src == NULL || dst == NULL || types == NULL)
        return redist__fail(REDIST_ERR_ARG,
                            "batch: count = %d must be >= 1 and src, dst, types not NULL", count);
    const char *name = opt != NULL && opt->algorithm != NULL ? opt->algorithm : "auto";
    if (strcmp(name, "auto") != 0 && strcmp(name, "direct-async") != 0)
        return redist__fail(redist__algorithm_by_name(name) != NULL ? REDIST_ERR_NOT_APPLICABLE
                                                                    : REDIST_ERR_UNKNOWN_ALGORITHM,
                            "batch: algorithm '%s': a batch exchanges one message per peer pair "
                            "(direct-async's exchange; auto)",
                            name);
    if (opt != NULL && opt->max_buffer_bytes != 0)
        return redist__fail(REDIST_ERR_UNSUPPORTED, "batch: bounded mode (max_buffer_bytes)");
    if (opt != NULL && opt->transport == REDIST_TRANSPORT_DATATYPE)
        return redist__fail(REDIST_ERR_UNSUPPORTED, "batch: the datatype transport");
    /* The children run with options of the batch's choosing (check_arguments, shared_memory,
       transport): the user's values are checked here, not by them. */
    return redist__check_options(opt, size);
}

/* This rank's row of the node's table: its rank, then every array's src ld. */
static int64_t *ld_row(const batch *b, int64_t len, int rank)
{
    int64_t *row = redist__malloc((size_t)len * sizeof *row);
    if (row == NULL)
        return NULL;
    row[0] = rank;
    for (int i = 0, at = 1; i < b->count; i++)
        for (int k = 0; k < b->child[i]->src->ndims; k++)
            row[at++] = b->child[i]->src->ld[k];
    return row;
}

/* The walks of receive slot j, whose sender's row of the node's table is q: for each array
   stored otherwise than its receive message guesses, the sender's own message. */
static int build_walks(batch *b, int j, const int64_t *q, int *max_levels)
{
    batch_once *o = &b->once;
    int err = REDIST_SUCCESS;
    for (int i = 0, at = 1; i < b->count && err == REDIST_SUCCESS; i++) {
        const struct redist_plan_s *c = b->child[i];
        const int64_t *q_ld = q + at;
        at += c->src->ndims;
        int m = b->recv.msg[j * b->count + i];
        if (m < 0 ||
            (redist__ld_dense(q_ld, c->src->ndims) && redist__ld_dense(c->dst->ld, c->dst->ndims)))
            continue;
        err = redist__peer_msg(c, &c->recv.msgs[m], q_ld, &o->peer_side[j * b->count + i],
                               &o->peer_msg[j * b->count + i], max_levels);
    }
    return err;
}

/* The pulls' scratch: for any array's receive messages at once (children share options:
   the first one's threads and machine are all of theirs). */
static int setup_pull(batch *b)
{
    int total = 0;
    for (int i = 0; i < b->count; i++)
        total += b->child[i]->recv.nmsgs;
    const redist__msg **all = redist__malloc(((size_t)total + 1) * sizeof *all);
    if (all == NULL)
        return REDIST_ERR_NOMEM;
    int n = 0;
    for (int i = 0; i < b->count; i++)
        for (int m = 0; m < b->child[i]->recv.nmsgs; m++)
            all[n++] = &b->child[i]->recv.msgs[m];
    int err = redist__pullbuf_init(&b->once.pull, b->child[0], all, n);
    redist__free(all);
    return err;
}

/* The pairs that may copy once: peers on this rank's node (the plan's, REDIST_RANKS_PER_NODE
   included), host batches. The node's ranks gather their src ld (one row each) so that a
   receiver can walk a sender's storage where it is not what the layout alone says.
   Collective over the plan's communicator; the same verdict on both ends of each pair. */
static int setup_once(struct redist_plan_s *p, batch *b)
{
    batch_once *o = &b->once;
    o->note_len = 1 + 3 * (int64_t)b->count;
    size_t slots = (size_t)b->recv.n * (size_t)b->count + 1;
    o->send_pair = redist__calloc((size_t)b->send.n + 1, 1);
    o->recv_pair = redist__calloc((size_t)b->recv.n + 1, 1);
    o->note_out = redist__malloc(((size_t)b->send.n * (size_t)o->note_len + 1) * sizeof(int64_t));
    o->note_in = redist__malloc(((size_t)b->recv.n * (size_t)o->note_len + 1) * sizeof(int64_t));
    o->ready = redist__malloc(((size_t)b->recv.n + 1) * sizeof *o->ready);
    o->msgs = redist__malloc(((size_t)b->recv.n + 1) * sizeof *o->msgs);
    o->srcs = redist__malloc(((size_t)b->recv.n + 1) * sizeof *o->srcs);
    o->peer_msg = redist__calloc(slots, sizeof *o->peer_msg);
    o->peer_side = redist__calloc(slots, sizeof *o->peer_side);
    o->part_bytes = redist__onecopy_part_bytes();
    int64_t len = 1;
    for (int i = 0; i < b->count; i++)
        len += b->child[i]->src->ndims;
    int64_t *mine = ld_row(b, len, p->rank);
    int err = o->send_pair && o->recv_pair && o->note_out && o->note_in && o->ready && o->msgs &&
                      o->srcs && o->peer_msg && o->peer_side && mine
                  ? REDIST_SUCCESS
                  : redist__fail(REDIST_ERR_NOMEM, "batch: its notes");
    MPI_Comm node = MPI_COMM_NULL;
    int rc = redist__plan_node_comm(p->comm, &node); /* collective: every rank makes it */
    if (err == REDIST_SUCCESS && rc != REDIST_SUCCESS)
        err = rc;
    int n = 0;
    if (node != MPI_COMM_NULL)
        MPI_Comm_size(node, &n);
    int64_t *all = redist__malloc(((size_t)n * (size_t)len + 1) * sizeof *all);
    if (err == REDIST_SUCCESS && (all == NULL || node == MPI_COMM_NULL))
        err = redist__fail(REDIST_ERR_NOMEM, "batch: its node's list");
    err = redist__agree(p->comm, p->rank, err, NULL); /* every rank gathers, or none */
    if (err == REDIST_SUCCESS &&
        MPI_Allgather(mine, (int)len, MPI_INT64_T, all, (int)len, MPI_INT64_T, node) != MPI_SUCCESS)
        err = redist__fail(REDIST_ERR_MPI, "batch: MPI_Allgather over the node failed");
    int host = b->child[0]->device == NULL, max_levels = -1; /* >= 0: some walk to buffer */
    for (int r = 0; err == REDIST_SUCCESS && host && r < n; r++) {
        const int64_t *q = &all[(size_t)r * (size_t)len];
        if (q[0] == p->rank)
            continue;
        for (int j = 0; j < b->send.n; j++)
            o->send_pair[j] |= b->send.peer[j] == q[0];
        for (int j = 0; j < b->recv.n && err == REDIST_SUCCESS; j++)
            if (b->recv.peer[j] == q[0]) {
                o->recv_pair[j] = 1;
                err = build_walks(b, j, q, &max_levels);
            }
    }
    size_t elsize = 1; /* the largest element (the children share options, threads too) */
    for (int i = 0; i < b->count; i++)
        elsize = b->child[i]->elsize > elsize ? b->child[i]->elsize : elsize;
    if (err == REDIST_SUCCESS && max_levels >= 0 &&
        redist__walkbuf_init(&o->walk, b->child[0]->threads, elsize, max_levels) != REDIST_SUCCESS)
        err = redist__fail(REDIST_ERR_NOMEM, "batch: its one-copy buffers");
    if (err == REDIST_SUCCESS && host && setup_pull(b) != REDIST_SUCCESS)
        err = redist__fail(REDIST_ERR_NOMEM, "batch: its one-copy buffers");
    redist__free(mine);
    redist__free(all);
    if (node != MPI_COMM_NULL)
        MPI_Comm_free(&node);
    return redist__agree(p->comm, p->rank, err, NULL);
}

/* The children (collective, every rank makes every one), the directories and buffers. */
static int setup_batch(struct redist_plan_s *p, batch *b, const redist_layout src[],
                       const redist_layout dst[], const MPI_Datatype types[],
                       const redist_options *opt)
{
    redist_options o;
    redist_options_init(&o);
    if (opt != NULL)
        o = *opt;
    o.algorithm = "direct-async";
    o.transport = REDIST_TRANSPORT_PACK;
    o.shared_memory = 0;
    o.check_arguments = 0; /* the batch agrees on its arguments itself */
    for (int i = 0; i < b->count; i++) {
        int err = redist_plan_create(src[i], dst[i], types[i], p->comm, &o, &b->child[i]);
        if (err != REDIST_SUCCESS)
            return err; /* every rank got the same code from the same child */
    }
    for (int i = 0; i < b->count; i++) { /* their messages only: the batch's buffers below */
        redist__staging_unpin(b->child[i], b->child[i]->sendbuf);
        redist__staging_unpin(b->child[i], b->child[i]->recvbuf);
        redist__free(b->child[i]->sendbuf);
        redist__free(b->child[i]->recvbuf);
        b->child[i]->sendbuf = b->child[i]->recvbuf = NULL;
    }
    int err = build_dir(b, 1, &b->send);
    if (err == REDIST_SUCCESS)
        err = build_dir(b, 0, &b->recv);
    if (err == REDIST_SUCCESS) {
        b->send.buf = redist__plan_buffer(p, (size_t)b->send.offset[b->send.n] + 1);
        b->recv.buf = redist__plan_buffer(p, (size_t)b->recv.offset[b->recv.n] + 1);
        size_t nrr = (size_t)b->recv.first_req[b->recv.n];
        b->ni = (int)(nrr + (size_t)b->send.first_req[b->send.n]);
        b->no = b->ni + b->recv.n;
        b->ai = b->no + b->send.n;
        b->ao = b->ai + b->send.n;
        b->total = b->ao + b->recv.n;
        size_t nreq = (size_t)b->total;
        b->reqs = redist__malloc((nreq + 1) * sizeof *b->reqs);
        b->idx = redist__malloc((nreq + 1) * sizeof *b->idx);
        b->slot_of_req = redist__malloc((nrr + 1) * sizeof *b->slot_of_req);
        b->left = redist__malloc(((size_t)b->recv.n + 1) * sizeof *b->left);
        for (int j = 0; b->slot_of_req != NULL && j < b->recv.n; j++)
            for (int64_t q = b->recv.first_req[j]; q < b->recv.first_req[j + 1]; q++)
                b->slot_of_req[q] = j;
        if (!b->send.buf || !b->recv.buf || !b->reqs || !b->idx || !b->slot_of_req || !b->left)
            err = redist__fail(REDIST_ERR_NOMEM, "batch buffers");
        else { /* device plans: pinned, and unpinned when the first child is freed (before
                  the buffers are: batch_destroy_state) */
            redist__staging_pin(b->child[0], b->send.buf, (size_t)b->send.offset[b->send.n] + 1);
            redist__staging_pin(b->child[0], b->recv.buf, (size_t)b->recv.offset[b->recv.n] + 1);
        }
    }
    err = redist__agree(p->comm, p->rank, err, NULL);
    return err == REDIST_SUCCESS ? setup_once(p, b) : err;
}

static void batch_stats(struct redist_plan_s *p, const batch *b)
{
    redist_stats *s = &p->stats;
    memset(s, 0, sizeof *s);
    s->steps = 1;
    s->messages_sent = b->send.n;
    s->bytes_sent = b->send.offset[b->send.n];
    s->messages_received = b->recv.n;
    s->bytes_received = b->recv.offset[b->recv.n];
    for (int i = 0; i < b->count; i++) {
        const redist_stats *c = &b->child[i]->stats;
        s->bytes_copied += c->bytes_copied;
        s->predicted_seconds += c->predicted_seconds; /* at most: the messages are merged */
        s->runs_per_period += c->runs_per_period;
    }
    s->transport = REDIST_TRANSPORT_PACK;
    s->buffer_bytes = (int64_t)p->buffer_bytes;
    s->max_messages_per_rank = s->messages_sent;
    s->max_bytes_per_rank = s->bytes_sent;
    redist__stats_maxima(p);
}

/* The state of a batch of count arrays, or NULL (the caller's error then stands). */
static batch *batch_new(int count)
{
    batch *b = redist__calloc(1, sizeof *b);
    if (b == NULL)
        return NULL;
    b->count = count;
    b->child = redist__calloc((size_t)count, sizeof *b->child);
    b->src = redist__calloc((size_t)count, sizeof *b->src);
    b->dst = redist__calloc((size_t)count, sizeof *b->dst);
    if (b->child == NULL || b->src == NULL || b->dst == NULL) {
        batch_destroy_state(b);
        return NULL;
    }
    return b;
}

/* The count must agree before the children are made, one per array on every rank. Every rank
   gets here (the plan constructor agreed that none failed). Collective. */
static int agree_on_count(const struct redist_plan_s *p, int count)
{
    int counts[2] = {count, -count}, err = REDIST_SUCCESS;
    if (MPI_Allreduce(MPI_IN_PLACE, counts, 2, MPI_INT, MPI_MIN, p->comm) != MPI_SUCCESS)
        err = redist__fail(REDIST_ERR_MPI, "MPI_Allreduce failed");
    else if (counts[0] != -counts[1])
        err = redist__fail(REDIST_ERR_MISMATCH, "batch: the ranks pass different counts");
    return redist__agree(p->comm, p->rank, err, NULL);
}

int redist_plan_create_batch(int count, const redist_layout src[], const redist_layout dst[],
                             const MPI_Datatype types[], MPI_Comm comm, const redist_options *opt,
                             redist_plan *plan)
{
    int size = 0, rank = 0;
    int err = redist__plan_prologue(comm, plan, &rank, &size);
    if (err != REDIST_SUCCESS)
        return err;
    err = check_batch(count, src, dst, types, opt, size, plan);
    batch *b = err == REDIST_SUCCESS ? batch_new(count) : NULL;
    if (err == REDIST_SUCCESS && b == NULL)
        err = redist__fail(REDIST_ERR_NOMEM, "batch plan");
    /* The options the children do not compare (they get the batch's own check_arguments,
       shared_memory and transport), and the algorithm name, as redist_plan_create does:
       execute's argument agreement is a collective every rank must make alike. The plan has
       no type of its own: each array has its child's. */
    redist__fingerprints fp;
    fp.n = 0;
    redist__fp_options(&fp, opt);
    redist__plan_basis basis = {comm, MPI_DATATYPE_NULL, 0, opt, NULL};
    struct redist_plan_s *p = NULL;
    err = redist__plan_new(&basis, err, &fp, &p);
    if (err != REDIST_SUCCESS) {
        if (b != NULL)
            batch_destroy_state(b);
        return err;
    }
    p->algo = &batch_algorithm;
    p->algo_state = b;
    /* the allocations its arrays lie in, held while an execute is in flight (exec.c) */
    p->held_more = redist__calloc(2 * (size_t)count + 1, sizeof *p->held_more);
    p->nheld_more = p->held_more != NULL ? 2 * count : 0;
    err = agree_on_count(p, count);
    if (err == REDIST_SUCCESS) /* agreed: a rank out of memory fails every rank */
        err = redist__agree(p->comm, p->rank,
                            p->held_more != NULL
                                ? REDIST_SUCCESS
                                : redist__fail(REDIST_ERR_NOMEM, "batch: its arrays' list"),
                            NULL);
    if (err == REDIST_SUCCESS)
        err = setup_batch(p, b, src, dst, types, opt);
    if (err != REDIST_SUCCESS) {
        redist__plan_destroy(p);
        return err;
    }
    batch_stats(p, b);
    *plan = p;
    return REDIST_SUCCESS;
}

int redist_start_batch(redist_plan p, const void *const src[], void *const dst[])
{
    if (p == NULL || p->algo != &batch_algorithm)
        return redist__fail(REDIST_ERR_ARG, "start_batch: %s",
                            p == NULL ? "plan is NULL" : "not a batch plan (redist_start)");
    if (redist__check_mpi() != REDIST_SUCCESS)
        return REDIST_ERR_MPI;
    if (p->active)
        return redist__fail(REDIST_ERR_BUSY, "start_batch: an execution is already in progress");
    batch *b = p->algo_state;
    int err = src == NULL || dst == NULL
                  ? redist__fail(REDIST_ERR_ARG, "start_batch: NULL array list")
                  : REDIST_SUCCESS;
    for (int i = 0; err == REDIST_SUCCESS && i < b->count; i++) {
        err = redist__check_execute_buffers(b->child[i], src[i], dst[i]);
        b->src[i] = src[i] == NULL ? NULL
                                   : (const char *)src[i] +
                                         b->child[i]->src_base * (int64_t)b->child[i]->elsize;
        b->dst[i] = dst[i] == NULL
                        ? NULL
                        : (char *)dst[i] + b->child[i]->dst_base * (int64_t)b->child[i]->elsize;
    }
    /* redist_alloc's allocations holding the arrays stay in flight until it completes */
    for (int i = 0; err == REDIST_SUCCESS && i < b->count && 2 * i + 1 < p->nheld_more; i++) {
        p->held_more[2 * i] = redist__shared_hold(src[i]);
        p->held_more[2 * i + 1] = redist__shared_hold(dst[i]);
    }
    return redist__begin_checked(p, err); /* which releases them if it does not start */
}

int redist_execute_batch(redist_plan p, const void *const src[], void *const dst[])
{
    int err = redist_start_batch(p, src, dst);
    return err != REDIST_SUCCESS ? err : redist_wait(p);
}
