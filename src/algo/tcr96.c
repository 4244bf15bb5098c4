/* Shared machinery of [TCR96]'s algorithms (tcr96.h). */
#include "algo/tcr96.h"

#include "algo/algo.h"
#include "algo/packets.h"
#include "algo/phases.h"
#include <stdint.h>

#include <stdlib.h>
#include <string.h>

int redist__tcr96_check_options(const redist_options *opt, int comm_size)
{
    (void)comm_size;
    if (opt->synchronous_receive != 0 && opt->synchronous_receive != 1)
        return redist__fail(REDIST_ERR_ARG, "synchronous_receive = %d must be 0 or 1",
                            opt->synchronous_receive);
    return REDIST_SUCCESS;
}

void redist__tcr96_fingerprint_options(redist__fingerprints *fp, const redist_options *opt)
{
    redist__fp_add(fp, "options.synchronous_receive", &opt->synchronous_receive,
                   sizeof opt->synchronous_receive);
}

int redist__tcr96_two_steps(const redist__case *c, const redist__machine *m,
                            const redist_options *opt)
{
    (void)m, (void)opt;
    return c->t.max_messages > 0 ? 2 : 0;
}

/* [TCR96]'s algorithms find each block's peer and move it on its own: index work per block
   of min(x, y) elements on each side (per piece of the pattern in N-D), at the machine's
   per_index, as general's per element. */
static double block_work(const redist__case *c, const redist__machine *m)
{
    double local = (double)c->t.max_local_bytes / (double)c->t.elsize;
    int64_t b = c->s.x > 0 && c->s.y > 0 ? (c->s.x < c->s.y ? c->s.x : c->s.y) : 0;
    double blocks = b > 0 ? 2.0 * local / (double)b : (double)c->t.max_runs;
    return m->per_index * blocks;
}

/* Two phases through cyclic(mid): x -> mid moves blocks of min(x, mid), mid -> y blocks of
   min(mid, y), each on both sides (1-D; in N-D the pattern's pieces, twice). */
static double phases_block_work(const redist__case *c, const redist__machine *m, int64_t mid)
{
    int64_t x = c->s.x, y = c->s.y;
    if (x <= 0 || y <= 0 || mid <= 0)
        return 2.0 * block_work(c, m);
    double local = (double)c->t.max_local_bytes / (double)c->t.elsize;
    double b1 = (double)(x < mid ? x : mid), b2 = (double)(mid < y ? mid : y);
    return m->per_index * 2.0 * local * (1.0 / b1 + 1.0 / b2);
}

static double two_phases(const redist__case *c, const redist__machine *m, int transport,
                         double work)
{
    return 2.0 * (redist__cost_moves(c, m, transport) + m->startup +
                  m->per_message * (double)c->t.max_messages) +
           work;
}

double redist__tcr96_predict_gcd(const redist__case *c, const redist__machine *m,
                                 const redist_options *opt, int transport)
{
    (void)opt;
    int64_t g = c->s.x > 0 && c->s.y > 0 ? redist__gcd64(c->s.x, c->s.y) : 0;
    return two_phases(c, m, transport, phases_block_work(c, m, g));
}

double redist__tcr96_predict_lcm(const redist__case *c, const redist__machine *m,
                                 const redist_options *opt, int transport)
{
    (void)opt;
    int64_t g = c->s.x > 0 && c->s.y > 0 ? redist__gcd64(c->s.x, c->s.y) : 0;
    int64_t l = g > 0 && c->s.x / g <= INT64_MAX / c->s.y ? c->s.x / g * c->s.y : 0;
    return two_phases(c, m, transport, phases_block_work(c, m, l));
}

double redist__tcr96_predict_ratio(const redist__case *c, const redist__machine *m,
                                   const redist_options *opt, int transport)
{
    (void)opt; /* all in flight, MPI messages only */
    return redist__predict_all_in_flight(c, m, transport, 1.0) + block_work(c, m);
}

/* ---- ky-to-y and x-to-kx: boxes of pieces ---------------------------------------------- */

/* One side's local array along one dimension, cut into pieces of min(x, y) elements. */
typedef struct cut_dim {
    int64_t shape, stride;     /* local extent, storage stride (elements) */
    int64_t piece, npieces, K; /* piece length, pieces, ratio */
    int64_t nres;              /* min(K, npieces): the residues i mod K that occur */
    int *res_peer;             /* [nres] the paper processor of residue r (the sequence) */
    int64_t *by_peer;          /* [nres] residues grouped by peer, increasing within one */
    int64_t *peer_start;       /* [P + 1] */
    int64_t *all, *match;      /* [npieces] 0 .. npieces - 1; scratch for one peer's pieces */
    int *coord;                /* [npieces] the grid coordinate of each piece's peer */
} cut_dim;

/* One side of this rank: its dimensions and the packet slot of the peer at each grid
   position (REDIST__SELF_SLOT, a message index, or NO_SLOT). */
typedef struct cut {
    int in_layout;
    cut_dim *dims;
    int *slot_of_pos;
} cut;
enum { NO_SLOT = -2 };

typedef struct ratio_state {
    redist__packets pk; /* first: p->algo_state points at the whole */
    int d;
    int *nest;                /* dimensions, slowest first in the source's storage order */
    int *P, *first;           /* the common grid */
    cut out, in;              /* the source side (sending) and the destination side (receiving) */
    int64_t *mult;            /* [d] row-major grid position = sum of coordinate * mult */
    int64_t *idx, *at;        /* scratch: the current box (piece index per dimension), odometer */
    int64_t **lists, *counts; /* scratch: the pieces walked along each dimension */
} ratio_state;

static void free_cut(cut *c, int d)
{
    for (int k = 0; c->dims != NULL && k < d; k++) {
        cut_dim *D = &c->dims[k];
        redist__free(D->res_peer);
        redist__free(D->by_peer);
        redist__free(D->peer_start);
        redist__free(D->all);
        redist__free(D->match);
        redist__free(D->coord);
    }
    redist__free(c->dims);
    redist__free(c->slot_of_pos);
}

void redist__tcr96_ratio_destroy(struct redist_plan_s *p)
{
    ratio_state *s = p->algo_state;
    if (s == NULL)
        return;
    free_cut(&s->out, s->d);
    free_cut(&s->in, s->d);
    redist__packets_free(&s->pk);
    redist__free(s->nest);
    redist__free(s->P);
    redist__free(s->first);
    redist__free(s->idx);
    redist__free(s->at);
    redist__free(s->mult);
    redist__free(s->lists);
    redist__free(s->counts);
    redist__free(s);
    p->algo_state = NULL;
}

/* Dimension k of a side: pieces, the sequence, residues grouped by peer. */
static int cut_dimension(cut_dim *D, int64_t shape, int64_t stride, int64_t x, int64_t y, int64_t P,
                         int64_t first, int64_t me, redist__tcr96_seq_fn seq)
{
    D->shape = shape;
    D->stride = stride;
    D->piece = x < y ? x : y;
    D->K = (x < y ? y : x) / D->piece;
    D->npieces = shape / D->piece + (shape % D->piece != 0);
    D->nres = D->K < D->npieces ? D->K : D->npieces;
    size_t nr = (size_t)D->nres + 1, np = (size_t)D->npieces + 1;
    D->res_peer = redist__malloc(nr * sizeof *D->res_peer);
    D->by_peer = redist__malloc(nr * sizeof *D->by_peer);
    D->peer_start = redist__calloc((size_t)P + 1, sizeof *D->peer_start);
    D->all = redist__malloc(np * sizeof *D->all);
    D->match = redist__malloc(np * sizeof *D->match);
    D->coord = redist__malloc(np * sizeof *D->coord);
    if (!D->res_peer || !D->by_peer || !D->peer_start || !D->all || !D->match || !D->coord)
        return REDIST_ERR_NOMEM;
    for (int64_t r = 0; r < D->nres; r++) {
        D->res_peer[r] = (int)seq(D->K, P, me, r);
        D->peer_start[D->res_peer[r] + 1]++;
    }
    for (int64_t q = 0; q < P; q++)
        D->peer_start[q + 1] += D->peer_start[q];
    for (int64_t r = 0; r < D->nres; r++) /* counting sort; r increasing within a peer */
        D->by_peer[D->peer_start[D->res_peer[r]]++] = r;
    for (int64_t q = P; q > 0; q--) /* back to the starts */
        D->peer_start[q] = D->peer_start[q - 1];
    D->peer_start[0] = 0;
    for (int64_t i = 0, r = 0; i < D->npieces; i++, r = r + 1 == D->K ? 0 : r + 1) {
        D->all[i] = i;
        D->coord[i] = (int)((D->res_peer[r] + first) % P);
    }
    return REDIST_SUCCESS;
}

/* This rank's side `mine` (source: sending, with send_seq; destination: receiving). */
static int make_cut(struct redist_plan_s *p, ratio_state *s, const struct redist_layout_s *mine,
                    const redist__side *side, redist__tcr96_seq_fn seq, cut *c)
{
    int d = s->d, pos = redist__layout_position(mine, p->rank);
    c->dims = redist__calloc((size_t)d, sizeof *c->dims);
    c->slot_of_pos = redist__malloc((size_t)mine->nprocs * sizeof *c->slot_of_pos);
    int *coords = redist__malloc((size_t)d * sizeof *coords);
    int64_t *shape = redist__malloc((size_t)d * sizeof *shape),
            *stride = redist__malloc((size_t)d * sizeof *stride);
    int err =
        c->dims && c->slot_of_pos && coords && shape && stride ? REDIST_SUCCESS : REDIST_ERR_NOMEM;
    c->in_layout = pos >= 0;
    if (err == REDIST_SUCCESS && c->in_layout) {
        for (int q = 0; q < mine->nprocs; q++) {
            int rank = mine->ranks[q];
            c->slot_of_pos[q] = rank == p->rank ? REDIST__SELF_SLOT : redist__msg_index(side, rank);
            if (c->slot_of_pos[q] < 0 && rank != p->rank)
                c->slot_of_pos[q] = NO_SLOT;
        }
        redist__layout_coords_of(mine, pos, coords);
        for (int k = 0; k < d; k++)
            shape[k] = redist__local_extent(mine, k, coords[k]);
        redist__storage_strides(mine, coords, stride); /* plain: no phase (shape.c) */
        for (int k = 0; k < d && err == REDIST_SUCCESS; k++) {
            int64_t me = ((int64_t)coords[k] - s->first[k] + s->P[k]) % s->P[k];
            err = cut_dimension(&c->dims[k], shape[k], stride[k], p->src->block[k],
                                p->dst->block[k], s->P[k], s->first[k], me, seq);
        }
    }
    redist__free(coords);
    redist__free(shape);
    redist__free(stride);
    return err;
}

/* Copies box idx between the local array (arr) and the packet (pkt) along nest level l;
   returns the packet position after it. */
static char *copy_box(const ratio_state *s, const cut *c, int l, char *arr, char *pkt,
                      int to_packet, size_t es, const redist__scale *sc)
{
    const cut_dim *D = &c->dims[s->nest[l]];
    int64_t lo = s->idx[s->nest[l]] * D->piece;
    int64_t n = D->shape - lo < D->piece ? D->shape - lo : D->piece;
    char *a = arr + lo * D->stride * (int64_t)es;
    if (l < s->d - 1) {
        for (int64_t i = 0; i < n; i++)
            pkt = copy_box(s, c, l + 1, a + i * D->stride * (int64_t)es, pkt, to_packet, es, sc);
        return pkt;
    }
    int64_t step = D->stride * (int64_t)es; /* a run, or a strided one (storage orders differ) */
    if (to_packet)
        redist__put(NULL, pkt, (int64_t)es, a, step, n, es);
    else
        redist__put(sc, a, step, pkt, (int64_t)es, n, es);
    return pkt + n * (int64_t)es;
}

/* The length of piece i of D. */
static int64_t piece_len(const cut_dim *D, int64_t i)
{
    int64_t lo = i * D->piece;
    return D->shape - lo < D->piece ? D->shape - lo : D->piece;
}

/* Moves every box whose pieces are in s->lists (lexicographic in nest order) to the packets
   of their peers (pack) or from them (unpack); slot >= REDIST__SELF_SLOT: all from that one.
   The innermost nest level is the tight loop: one run per box in 1-D. */
static void move_boxes(struct redist_plan_s *p, ratio_state *s, const cut *c, int pack, int slot)
{
    int d = s->d, L = d - 1, ki = s->nest[L];
    for (int k = 0; k < d; k++) {
        if (s->counts[k] == 0)
            return;
        s->at[k] = 0;
    }
    const cut_dim *I = &c->dims[ki];
    size_t es = p->elsize;
    char *arr = pack ? (char *)p->cur_src : p->cur_dst;
    for (;;) {
        int64_t outer = 1, pos = 0;
        for (int l = 0; l < L; l++) { /* the box's pieces along the outer levels */
            int k = s->nest[l];
            int64_t i = s->lists[k][s->at[k]];
            s->idx[k] = i;
            outer *= piece_len(&c->dims[k], i);
            pos += c->dims[k].coord[i] * s->mult[k];
        }
        for (int64_t j = 0; j < s->counts[ki]; j++) {
            int64_t i = s->lists[ki][j], n = piece_len(I, i);
            int to =
                slot >= REDIST__SELF_SLOT ? slot : c->slot_of_pos[pos + I->coord[i] * s->mult[ki]];
            if (to == NO_SLOT)
                continue;
            size_t bytes = (size_t)(outer * n) * es;
            char *pkt = pack ? redist__packet_append(&s->pk, to, bytes)
                             : (char *)redist__packet_next(&s->pk, to, bytes);
            if (L == 0 && I->stride == 1) { /* 1-D: the box is one run */
                char *a = arr + i * I->piece * (int64_t)es;
                redist__put(pack ? NULL : p->scale, pack ? pkt : a, (int64_t)es, pack ? a : pkt,
                            (int64_t)es, (int64_t)(bytes / es), es);
                continue;
            }
            s->idx[ki] = i;
            copy_box(s, c, 0, arr, pkt, pack, es, pack ? NULL : p->scale);
        }
        int l = L - 1;
        for (; l >= 0; l--) { /* the next outer box: the last outer level fastest */
            int k = s->nest[l];
            if (++s->at[k] < s->counts[k])
                break;
            s->at[k] = 0;
        }
        if (l < 0)
            return;
    }
}

static void use_all_pieces(ratio_state *s, const cut *c)
{
    for (int k = 0; k < s->d; k++) {
        s->lists[k] = c->dims[k].all;
        s->counts[k] = c->dims[k].npieces;
    }
}

/* Every box of one side: packed to (pack) or unpacked from its peer's packet. */
static void move_all(struct redist_plan_s *p, ratio_state *s, int pack)
{
    cut *c = pack ? &s->out : &s->in;
    if (!c->in_layout)
        return;
    use_all_pieces(s, c);
    move_boxes(p, s, c, pack, NO_SLOT);
}

static void pack_all(struct redist_plan_s *p, void *algo)
{
    move_all(p, algo, 1);
}

static void unpack_all(struct redist_plan_s *p, void *algo)
{
    move_all(p, algo, 0);
}

/* The asynchronous method: along each dimension the pieces from the sender's processor,
   residues r of its sequence repeated every K pieces (the paper's strided blocks). */
static void unpack_one(struct redist_plan_s *p, void *algo, int slot)
{
    ratio_state *s = algo;
    if (!s->in.in_layout)
        return;
    int rank = slot == REDIST__SELF_SLOT ? p->rank : p->recv.msgs[slot].peer;
    int pos = redist__layout_position(p->src, rank);
    for (int k = s->d - 1; k >= 0; k--) { /* the sender's paper processor along k */
        cut_dim *D = &s->in.dims[k];
        int64_t q = ((int64_t)(pos % s->P[k]) - s->first[k] + s->P[k]) % s->P[k];
        pos /= s->P[k];
        int64_t n = 0, from = D->peer_start[q], to = D->peer_start[q + 1];
        for (int64_t base = 0; from < to && base < D->npieces; base += D->K)
            for (int64_t r = from; r < to && base + D->by_peer[r] < D->npieces; r++)
                D->match[n++] = base + D->by_peer[r];
        s->lists[k] = D->match;
        s->counts[k] = n;
    }
    move_boxes(p, s, &s->in, 0, slot);
}

static const redist__packet_ops ratio_ops = {pack_all, unpack_one, unpack_all};

int redist__tcr96_ratio_setup(struct redist_plan_s *p, redist__tcr96_seq_fn send_seq,
                              redist__tcr96_seq_fn recv_seq)
{
    ratio_state *s = redist__calloc(1, sizeof *s);
    if (s == NULL)
        return REDIST_ERR_NOMEM;
    p->algo_state = s;
    int d = s->d = p->src->ndims;
    s->nest = redist__malloc((size_t)d * sizeof *s->nest);
    s->P = redist__malloc((size_t)d * sizeof *s->P);
    s->first = redist__malloc((size_t)d * sizeof *s->first);
    s->idx = redist__calloc((size_t)d, sizeof *s->idx);
    s->at = redist__calloc((size_t)d, sizeof *s->at);
    s->mult = redist__calloc((size_t)d, sizeof *s->mult);
    s->lists = redist__calloc((size_t)d, sizeof *s->lists);
    s->counts = redist__calloc((size_t)d, sizeof *s->counts);
    if (!s->nest || !s->P || !s->first || !s->idx || !s->at || !s->mult || !s->lists || !s->counts)
        return REDIST_ERR_NOMEM;
    for (int k = 0; k < d; k++) {
        s->nest[k] = p->src->storage[k];
        s->P[k] = p->src->grid[k];
        s->first[k] = p->src->first[k];
    }
    for (int k = d - 1, m = 1; k >= 0; m *= s->P[k], k--)
        s->mult[k] = m;
    int err = make_cut(p, s, p->src, &p->send, send_seq, &s->out);
    if (err == REDIST_SUCCESS)
        err = make_cut(p, s, p->dst, &p->recv, recv_seq, &s->in);
    int err2 = redist__packets_setup(p, &s->pk, &ratio_ops, s);
    return err != REDIST_SUCCESS ? err : err2;
}

int redist__tcr96_ratio_start(struct redist_plan_s *p)
{
    ratio_state *s = p->algo_state;
    return redist__packets_start(p, &s->pk);
}

int redist__tcr96_ratio_progress(struct redist_plan_s *p, int blocking, int *done)
{
    ratio_state *s = p->algo_state;
    return redist__packets_progress(p, &s->pk, blocking, done);
}

/* ---- gcd and lcm: two phases through cyclic(m) ---------------------------------------- */

int redist__tcr96_two_phases(struct redist_plan_s *p, int use_lcm, const char *first,
                             const char *second)
{
    int d = p->src->ndims;
    int64_t *m = redist__malloc((size_t)d * sizeof *m);
    redist_layout mid[1] = {NULL};
    for (int k = 0; m != NULL && k < d; k++) {
        int64_t x = p->src->block[k], y = p->dst->block[k], g = redist__gcd64(x, y);
        m[k] = use_lcm ? x / g * y : g; /* the lcm fits: the rule checked (shape.c) */
    }
    if (m != NULL)
        redist_layout_create(d, p->src->extent, m, p->src->grid, p->src->first, p->src->ranks,
                             p->src->order, &mid[0]);
    redist__free(m);
    const char *names[2] = {first, second};
    redist__phases *ph = NULL;
    int err = redist__phases_create(p, 2, mid, names, -1, p->opt.synchronous_receive, &ph);
    p->algo_state = ph;
    return err;
}

int redist__tcr96_phases_start(struct redist_plan_s *p)
{
    return redist__phases_start(p, p->algo_state);
}

int redist__tcr96_phases_progress(struct redist_plan_s *p, int blocking, int *done)
{
    return redist__phases_progress(p, p->algo_state, blocking, done);
}

void redist__tcr96_phases_destroy(struct redist_plan_s *p)
{
    redist__phases_free(p->algo_state);
    p->algo_state = NULL;
}

void redist__tcr96_phases_stats(const struct redist_plan_s *p, redist_stats *st)
{
    redist__phases_stats(p->algo_state, st);
}
