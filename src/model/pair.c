/* A pair's case without MPI, for any communicator size (model.h): the same pattern code
 * and traffic a plan uses, evaluated for every member rank in turn. Cost: the sum over the
 * member ranks (those that hold elements) of their plan-building cost; the ranks that hold
 * nothing, in a layout or not, have no traffic and cost nothing: they are never enumerated. */
#include "model/model.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

typedef struct rank_sides {
    redist__side send, recv;
    redist__msg self;
    int has_self;
} rank_sides;

static int sides_of(redist_layout src, redist_layout dst, int rank, rank_sides *s)
{
    memset(s, 0, sizeof *s);
    return redist__sides_create(src, dst, rank, &s->send, &s->recv, &s->self, &s->has_self);
}

static void sides_free(rank_sides *s)
{
    redist__side_free(&s->send);
    redist__side_free(&s->recv);
    if (s->has_self)
        redist__msg_free(&s->self);
}

static int check_pair(redist_layout src, redist_layout dst, int comm_size, int64_t elsize)
{
    if (src == NULL || dst == NULL || elsize <= 0 || comm_size < 1)
        return redist__fail(REDIST_ERR_ARG, "explain: bad argument");
    if (!redist__same_global_shape(src, dst))
        return redist__fail(REDIST_ERR_ARG, "src and dst describe different arrays");
    if (src->max_rank >= comm_size || dst->max_rank >= comm_size)
        return redist__fail(REDIST_ERR_ARG, "a layout uses rank %d but there are %d ranks",
                            src->max_rank > dst->max_rank ? src->max_rank : dst->max_rank,
                            comm_size);
    return redist__check_array_bytes(src, (size_t)elsize);
}

int redist__rank_traffic_compute(redist_layout src, redist_layout dst, int rank, int64_t elsize,
                                 redist__rank_traffic *out)
{
    if (out == NULL || rank < 0)
        return redist__fail(REDIST_ERR_ARG, "rank_traffic: bad argument");
    int err = check_pair(src, dst, INT_MAX, elsize);
    rank_sides s;
    if (err == REDIST_SUCCESS)
        err = sides_of(src, dst, rank, &s);
    if (err != REDIST_SUCCESS)
        return err;
    out->messages_sent = s.send.nmsgs;
    out->bytes_sent = s.send.total_elems * elsize;
    out->messages_received = s.recv.nmsgs;
    out->bytes_received = s.recv.total_elems * elsize;
    out->bytes_copied = s.has_self ? s.self.nelems * elsize : 0;
    out->peers_max = s.send.nmsgs > s.recv.nmsgs ? s.send.nmsgs : s.recv.nmsgs;
    sides_free(&s);
    return REDIST_SUCCESS;
}

static int compare_ints(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The coordinates along dimension k of l that hold elements (in no particular order), written
   to out unless it is NULL; returns their number. A regular dimension's are the coordinates
   of its first min(blocks, grid) blocks (every block meets the window: phase < block); an
   irregular one's are those with a nonempty block (its grid + 1 sizes are stored anyway). */
static int data_coords(const struct redist_layout_s *l, int k, int *out)
{
    int g = l->grid[k], n = 0;
    if (l->extent[k] == 0)
        return 0;
    if (l->gen != NULL && l->gen[k] != NULL) {
        for (int c = 0; c < g; c++)
            if (redist__local_extent(l, k, c) > 0) {
                if (out != NULL)
                    out[n] = c;
                n++;
            }
        return n;
    }
    int64_t blocks = (l->extent[k] - 1 + l->phase[k]) / l->block[k] + 1;
    int m = blocks < g ? (int)blocks : g;
    for (int j = 0; out != NULL && j < m; j++)
        out[j] = (int)((l->first[k] + j) % g);
    return m;
}

/* Appends to ranks[*n ..] the ranks of l's grid positions that hold elements: the Cartesian
   product of each dimension's data coordinates. */
static int append_data_ranks(const struct redist_layout_s *l, int *ranks, int64_t *n)
{
    if (!redist__grid_only(l)) { /* boxes, replicas: every position that holds elements */
        for (int p = 0; p < l->nprocs; p++) {
            int64_t count = 0;
            if (redist_layout_local_size((redist_layout)l, l->ranks[p], &count) != REDIST_SUCCESS)
                return REDIST_ERR_NOMEM;
            if (count > 0)
                ranks[(*n)++] = l->ranks[p];
        }
        return REDIST_SUCCESS;
    }
    int d = l->ndims, *count = redist__calloc((size_t)d + 1, sizeof *count);
    int *at = redist__calloc((size_t)d + 1, sizeof *at),
        *coords = redist__calloc((size_t)d + 1, sizeof *coords);
    int **lists = redist__calloc((size_t)d + 1, sizeof *lists);
    int err = count && at && coords && lists ? REDIST_SUCCESS : REDIST_ERR_NOMEM;
    int64_t total = 1;
    for (int k = 0; err == REDIST_SUCCESS && k < d; k++) {
        count[k] = data_coords(l, k, NULL);
        total *= count[k];
        lists[k] = redist__malloc(((size_t)count[k] + 1) * sizeof **lists);
        if (lists[k] == NULL)
            err = REDIST_ERR_NOMEM;
        else
            data_coords(l, k, lists[k]);
    }
    for (int64_t i = 0; err == REDIST_SUCCESS && i < total; i++) {
        for (int k = 0; k < d; k++)
            coords[k] = lists[k][at[k]];
        ranks[(*n)++] = l->ranks[redist__layout_position_of(l, coords)];
        for (int k = d - 1; k >= 0 && ++at[k] == count[k]; k--) /* mixed radix, last fastest */
            at[k] = 0;
    }
    for (int k = 0; lists != NULL && k < d; k++)
        redist__free(lists[k]);
    redist__free(lists);
    redist__free(count);
    redist__free(at);
    redist__free(coords);
    return err;
}

int redist__member_ranks(redist_layout src, redist_layout dst, int **ranks, int *count)
{
    /* At most every position of both layouts; usually far fewer: those holding elements. */
    int64_t n = 0, most = 0;
    const struct redist_layout_s *both[2] = {src, dst};
    for (int i = 0; i < 2; i++) {
        int64_t m = 1;
        for (int k = 0; k < both[i]->ndims; k++)
            m *= data_coords(both[i], k, NULL);
        most += redist__grid_only(both[i]) ? m : both[i]->nprocs;
    }
    int *out = redist__malloc(((size_t)most + 1) * sizeof *out);
    int err = out != NULL ? REDIST_SUCCESS : REDIST_ERR_NOMEM;
    for (int i = 0; err == REDIST_SUCCESS && i < 2; i++)
        err = append_data_ranks(both[i], out, &n);
    if (err != REDIST_SUCCESS) {
        redist__free(out);
        return redist__fail(REDIST_ERR_NOMEM, "explain: rank list");
    }
    qsort(out, (size_t)n, sizeof *out, compare_ints);
    int64_t kept = 0;
    for (int64_t i = 0; i < n; i++)
        if (kept == 0 || out[i] != out[kept - 1])
            out[kept++] = out[i];
    *ranks = out;
    *count = (int)kept;
    return REDIST_SUCCESS;
}

/* The distinct nonzero shifts (peer - rank) mod size that ranks send with: the steps of the
   shift schedule (what the planner counts with a flag per shift, here without O(size) memory). */
typedef struct shift_set {
    int *v;
    int64_t n, cap;
} shift_set;

/* Sorts the shifts and drops repeats: the set never holds more than the distinct shifts
   (at most size) plus what arrived since the last compaction, whatever the messages' count. */
static void shift_set_compact(shift_set *s)
{
    if (s->n > 1)
        qsort(s->v, (size_t)s->n, sizeof *s->v, compare_ints);
    int64_t kept = 0;
    for (int64_t i = 0; i < s->n; i++)
        if (kept == 0 || s->v[i] != s->v[kept - 1])
            s->v[kept++] = s->v[i];
    s->n = kept;
}

/* Room for one more shift: compact a full set first, and grow it only if that freed less
   than half (so compaction runs at most once per cap / 2 additions). */
static int shift_set_room(shift_set *s)
{
    if (s->n < s->cap)
        return REDIST_SUCCESS;
    shift_set_compact(s);
    if (s->cap > 0 && s->n <= s->cap / 2)
        return REDIST_SUCCESS;
    int64_t cap = s->cap ? 2 * s->cap : 64;
    int *v = redist__realloc(s->v, (size_t)cap * sizeof *v);
    if (v == NULL)
        return redist__fail(REDIST_ERR_NOMEM, "explain: shifts");
    s->v = v;
    s->cap = cap;
    return REDIST_SUCCESS;
}

static int shift_set_add(shift_set *s, const redist__side *send, int rank, int size)
{
    for (int i = 0; i < send->nmsgs; i++) {
        if (shift_set_room(s) != REDIST_SUCCESS)
            return REDIST_ERR_NOMEM;
        s->v[s->n++] = (int)(((int64_t)send->msgs[i].peer - rank + size) % size);
    }
    return REDIST_SUCCESS;
}

static int shift_set_distinct_nonzero(shift_set *s)
{
    shift_set_compact(s);
    int distinct = 0;
    for (int64_t i = 0; i < s->n; i++)
        distinct += s->v[i] != 0;
    return distinct;
}

/* The case of a pair over comm_size ranks, plus the totals explain reports.
   Computing it visits every rank, so the last one is kept (per thread): explain asks for
   every algorithm of the same pair in turn. */
typedef struct pair_summary {
    uint64_t key;
    redist__case c;
    int64_t total_messages, total_bytes;
    int64_t aware_messages, aware_bytes; /* node-aware's totals (its steps' messages) */
} pair_summary;

static _Thread_local pair_summary cached;
static _Thread_local int cached_valid;

/* The node terms of a node's member ranks ms[0 .. n) (sides s[]), from the node's sums. */
static int add_node_terms(const redist__node_map *map, const int *ms, rank_sides *s, int n,
                          int64_t elsize, int64_t vals[][REDIST__S_NVALS])
{
    int len = redist__node_sums_length(map, map->node_of[ms[0]]);
    int64_t *sums = redist__calloc((size_t)len + 1, sizeof *sums);
    int err = sums != NULL ? REDIST_SUCCESS : redist__fail(REDIST_ERR_NOMEM, "explain: node sums");
    for (int x = 0; err == REDIST_SUCCESS && x < n; x++)
        err = redist__node_sums_add(map, ms[x], &s[x].send, &s[x].recv, elsize, sums);
    for (int x = 0; err == REDIST_SUCCESS && x < n; x++)
        redist__node_terms(map, ms[x], &s[x].send, &s[x].recv, elsize, sums, vals[x]);
    redist__free(sums);
    return err;
}

/* Member ranks ms[0 .. n), all of one node (or one rank where there are no nodes): their
   values into vmax, shifts and totals. */
static int visit_ranks(redist_layout src, redist_layout dst, int comm_size, int64_t elsize,
                       const redist__node_map *map, const int *ms, int n, int64_t *vmax,
                       shift_set *shifts, pair_summary *out)
{
    rank_sides *s = redist__calloc((size_t)n + 1, sizeof *s);
    int64_t(*v)[REDIST__S_NVALS] = redist__calloc((size_t)n + 1, sizeof *v);
    int made = 0, err = s && v ? REDIST_SUCCESS : redist__fail(REDIST_ERR_NOMEM, "explain");
    for (; err == REDIST_SUCCESS && made < n; made++) {
        int r = ms[made];
        err = sides_of(src, dst, r, &s[made]);
        if (err != REDIST_SUCCESS)
            break;
        int64_t sc = 0, dc = 0, lo, hi, base;
        err = redist__storage_span(src, r, &sc, &lo, &hi, &base);
        if (err == REDIST_SUCCESS)
            err = redist__storage_span(dst, r, &dc, &lo, &hi, &base);
        if (err == REDIST_SUCCESS)
            redist__traffic_local(&s[made].send, &s[made].recv,
                                  s[made].has_self ? &s[made].self : NULL, sc, dc, (size_t)elsize,
                                  v[made]);
    }
    if (err == REDIST_SUCCESS && map != NULL)
        err = add_node_terms(map, ms, s, n, elsize, v);
    for (int x = 0; err == REDIST_SUCCESS && x < n; x++) {
        for (int i = 0; i < REDIST__S_NVALS; i++)
            vmax[i] = v[x][i] > vmax[i] ? v[x][i] : vmax[i];
        err = shift_set_add(shifts, &s[x].send, ms[x], comm_size);
        out->total_messages += s[x].send.nmsgs;
        out->total_bytes += s[x].send.total_elems * elsize;
        out->aware_messages += v[x][REDIST__S_AWARE_SENT_MESSAGES];
        out->aware_bytes += v[x][REDIST__S_AWARE_SENT_BYTES];
    }
    for (int x = 0; x < made && s != NULL; x++)
        sides_free(&s[x]);
    redist__free(s);
    redist__free(v);
    return err;
}

static int summarize_pair(redist_layout src, redist_layout dst, int comm_size, int per_node,
                          int64_t elsize, pair_summary *out)
{
    uint64_t key = redist__layout_hash(dst, redist__layout_hash(src, REDIST__FNV_BASIS));
    key = redist__hash_bytes(key, &comm_size, sizeof comm_size);
    key = redist__hash_bytes(key, &per_node, sizeof per_node);
    key = redist__hash_bytes(key, &elsize, sizeof elsize);
    if (cached_valid && cached.key == key) {
        *out = cached;
        out->c.src = src; /* the same pair, maybe other objects */
        out->c.dst = dst;
        return REDIST_SUCCESS;
    }
    memset(out, 0, sizeof *out);
    int64_t vmax[REDIST__S_NVALS] = {0};
    shift_set shifts = {NULL, 0, 0};
    int *members = NULL, nmembers = 0;
    redist__node_map map, *nodes = NULL;
    int err = redist__member_ranks(src, dst, &members, &nmembers);
    if (err == REDIST_SUCCESS && per_node > 0 && per_node < comm_size &&
        (err = redist__node_map_uniform(comm_size, per_node, &map)) == REDIST_SUCCESS)
        nodes = &map;
    /* node by node (members increase, and a node's ranks are consecutive), or rank by rank */
    for (int m = 0, n; err == REDIST_SUCCESS && m < nmembers; m += n) {
        for (n = 1; nodes != NULL && m + n < nmembers &&
                    members[m + n] / per_node == members[m] / per_node;
             n++)
            ;
        err = visit_ranks(src, dst, comm_size, elsize, nodes, members + m, n, vmax, &shifts, out);
    }
    redist__free(members);
    redist__node_map_free(nodes);
    if (err == REDIST_SUCCESS) {
        if (nodes == NULL)
            vmax[REDIST__S_NODES] = 1;
        else { /* the nodes that hold nothing count too */
            vmax[REDIST__S_NODES] = (comm_size - 1) / per_node + 1;
            vmax[REDIST__S_NODE_RANKS] = per_node;
        }
        redist__traffic_finish(vmax, NULL, comm_size, (size_t)elsize, &out->c.t);
        out->c.t.shift_steps = shift_set_distinct_nonzero(&shifts);
        out->c.t.n.aware_total_messages = out->aware_messages;
        out->c.t.n.aware_total_bytes = out->aware_bytes;
        redist__shape_of(src, dst, &out->c.s);
        out->c.src = src;
        out->c.dst = dst;
    }
    redist__free(shifts.v);
    if (err != REDIST_SUCCESS)
        return err;
    out->key = key;
    cached = *out;
    cached_valid = 1;
    return REDIST_SUCCESS;
}

int redist__pair_case_on_nodes(redist_layout src, redist_layout dst, int comm_size, int per_node,
                               int64_t elsize, redist__case *out, int64_t *total_messages,
                               int64_t *total_bytes)
{
    int err = check_pair(src, dst, comm_size, elsize);
    if (err == REDIST_SUCCESS && per_node < 0)
        err = redist__fail(REDIST_ERR_ARG, "explain: %d ranks per node", per_node);
    pair_summary ps;
    if (err == REDIST_SUCCESS)
        err = summarize_pair(src, dst, comm_size, per_node, elsize, &ps);
    if (err != REDIST_SUCCESS)
        return err;
    *out = ps.c;
    if (total_messages != NULL)
        *total_messages = ps.total_messages;
    if (total_bytes != NULL)
        *total_bytes = ps.total_bytes;
    return REDIST_SUCCESS;
}

int redist__pair_case(redist_layout src, redist_layout dst, int comm_size, int64_t elsize,
                      redist__case *out, int64_t *total_messages, int64_t *total_bytes)
{
    return redist__pair_case_on_nodes(src, dst, comm_size, 0, elsize, out, total_messages,
                                      total_bytes);
}
