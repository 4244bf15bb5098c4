/* Fuzz target: communication patterns between two random layouts of one array, with the
 * transforms (an axis permutation, irregular blocks, windows with every rank's own ld), built
 * with the index layer as plan creation builds them (src/planner/planner.c, build_messages: the
 * destination's axis-permuted view, redist__sides_create for every rank, the tiles of the
 * messages it unpacks), for a communicator of 1 to 12 ranks, no MPI.
 *
 * Checked on every case: each rank sends (and sends itself) exactly its source elements and
 * receives exactly its destination elements; its messages are sorted by peer, non-empty, laid
 * out back to back in the pack buffer; sender and receiver of every pair agree on the count.
 * A pattern may be refused only as too large for the memory limit (REDIST_MEMORY_LIMIT, set
 * small here so that no case takes long).
 *
 * On arrays of up to 2^14 elements, the exchange is then run: every source element's bytes
 * (an id) are put in the owner's local array of the source root where the model (oracle.h)
 * says, each message packed (whole or in chunks through a cursor, as bounded mode does),
 * handed to the receiver's matching message and unpacked (whole, by tiles, or in chunks), the
 * self part copied; then every destination element must hold the id of the source element
 * that the permutation sends there, and every other byte of the destination arrays (padding,
 * elements outside the window) must be untouched. Exactly sized buffers let AddressSanitizer
 * catch any move outside them.
 */
#include "fuzz.h"
#include "index/index.h"
#include "oracle.h"

#include <string.h>

enum {
    MAX_RANKS = 12,
    MAX_DIMS = 4,
    SIM_ELEMENTS = 1 << 14,  /* run the exchange up to this many elements */
    SIM_STORAGE = 1 << 18,   /* and this many elements of local arrays in all */
    MAX_GEN_GRID = MAX_RANKS /* a grid along a dimension is at most the ranks */
};
static const unsigned char SENTINEL = 0xA5;

FZ_ASAN_OPTIONS("allocator_may_return_null=1:max_allocation_size_mb=64")

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    /* Patterns beyond this many bytes per rank and dimension are refused (pattern.c): keeps
       every case fast. */
    setenv("REDIST_MEMORY_LIMIT", "1000000", 1);
    return 0;
}

/* One side (source or destination) of the pair: its parameters, the layout every rank sees
   (windows: one per rank when the ranks' ld differ), the model. */
typedef struct side_desc {
    int ndims, order, grid[MAX_DIMS], first[MAX_DIMS], nprocs, ranks[MAX_RANKS];
    int64_t extent[MAX_DIMS]; /* the shape (the window's) */
    int64_t root[MAX_DIMS], block[MAX_DIMS], offset[MAX_DIMS];
    int64_t sizes_store[MAX_DIMS][MAX_GEN_GRID];
    const int64_t *sizes[MAX_DIMS];
    int window, any_gen;
    int64_t ld[MAX_RANKS * MAX_DIMS]; /* rank r's row at r * ndims (oracle.h) */
    redist_layout root_layout, of_rank[MAX_RANKS];
    fz_model m;
} side_desc;

/* sizes summing to extent, cut points from the input. */
static void split(fz_reader *r, int64_t extent, int grid, int64_t *sizes)
{
    int64_t cut[MAX_GEN_GRID + 1];
    cut[0] = 0;
    for (int c = 1; c < grid; c++) {
        uint64_t v = fz_bytes(r, extent > 255 ? 8 : 1);
        cut[c] = (int64_t)(v % ((uint64_t)extent + 1));
    }
    for (int i = 1; i < grid; i++)
        for (int j = i; j > 1 && cut[j] < cut[j - 1]; j--) {
            int64_t t = cut[j];
            cut[j] = cut[j - 1];
            cut[j - 1] = t;
        }
    cut[grid] = extent;
    for (int c = 0; c < grid; c++)
        sizes[c] = cut[c + 1] - cut[c];
}

/* How much an ld pads a local extent: -1 (no ld), a little, or anything (a padded array of
   2^62 elements or more is refused by the model and the library alike, and the case
   skipped). */
static int64_t ld_extra(fz_reader *r)
{
    unsigned c = fz_u8(r) % 16;
    if (c < 4)
        return -1;
    if (c < 14)
        return (int64_t)(c % 3);
    int64_t v = fz_value(r, 64);
    return v < 0 ? -1 : v;
}

/* Decodes one side over `shape`; returns 0 if the case must be skipped. */
static int decode_side(fz_reader *r, side_desc *s, int ndims, const int64_t shape[], int nranks,
                       int big)
{
    memset(s, 0, sizeof *s);
    s->ndims = ndims;
    s->order = (int)(fz_u8(r) % 2);
    int np = 1;
    for (int k = 0; k < ndims; k++) {
        int g = 1 + (int)(fz_u8(r) % 4);
        while (np * g > nranks)
            g--;
        s->grid[k] = g;
        np *= g;
        s->first[k] = (int)(fz_u8(r) % (unsigned)g);
        s->extent[k] = shape[k];
    }
    s->nprocs = np;
    int perm[MAX_RANKS] = {0};
    fz_permutation(r, perm, nranks); /* a random subset of the ranks, in random order */
    memcpy(s->ranks, perm, (size_t)np * sizeof *perm);
    for (int k = 0; k < ndims; k++) {
        unsigned kind = fz_u8(r) % 8;
        int64_t n = shape[k], P = s->grid[k];
        if (kind == 0) { /* irregular */
            s->sizes[k] = s->sizes_store[k];
            split(r, n, s->grid[k], s->sizes_store[k]);
            s->any_gen = 1;
            s->block[k] = 1;
        } else if (kind < 6) {
            s->block[k] = 1 + (int64_t)(fz_u8(r) % 8);
        } else if (kind == 6) { /* one block per coordinate: [SD96]'s sections */
            s->block[k] = n / P + (n % P != 0) + (int64_t)(fz_u8(r) % 2);
            if (s->block[k] < 1)
                s->block[k] = 1;
        } else {
            s->block[k] = fz_value(r, 64);
            if (s->block[k] < 1)
                s->block[k] = 1;
        }
    }
    unsigned w = fz_u8(r) % 4;
    s->window = !s->any_gen && w > 0;
    fz_i128 elements = 1;
    for (int k = 0; k < ndims; k++) {
        int64_t off = 0, slack = 0;
        if (s->window && w > 1) {
            off = big ? fz_value(r, 6) : (int64_t)(fz_u8(r) % 7);
            slack = big ? fz_value(r, 6) : (int64_t)(fz_u8(r) % 7);
        }
        fz_i128 root = (fz_i128)shape[k] + off + slack;
        if (off < 0 || slack < 0 || root > REDIST_MAX_EXTENT)
            return 0;
        elements *= root > 0 ? root : 1;
        if (elements > REDIST_MAX_EXTENT)
            return 0;
        s->offset[k] = off;
        s->root[k] = (int64_t)root;
    }
    /* The model of the root, then the ld of every rank. */
    fz_model *m = &s->m;
    m->ndims = ndims;
    m->order = s->order;
    m->nprocs = np;
    m->ranks = s->ranks;
    for (int k = 0; k < ndims; k++) {
        m->root_extent[k] = s->root[k];
        m->block[k] = s->block[k];
        m->grid[k] = s->grid[k];
        m->first[k] = s->first[k];
        m->sizes[k] = s->sizes[k];
        m->offset[k] = s->offset[k];
        m->extent[k] = s->extent[k];
    }
    unsigned ldmode = s->window ? fz_u8(r) % 3 : 0;
    if (ldmode != 0) {
        m->ld = s->ld;
        m->ld_per_rank = 1;
        int64_t common[MAX_DIMS];
        for (int k = 0; k < ndims; k++) /* mode 1: one extra per dimension for every rank */
            common[k] = ldmode == 1 ? ld_extra(r) : 0;
        for (int rank = 0; rank < nranks; rank++) {
            int pos = fz_position(m, rank), c[MAX_DIMS];
            if (pos < 0)
                continue;
            fz_coords_of(m, pos, c);
            for (int k = 0; k < ndims; k++) { /* ld 0 (dense) or the local extent + extra */
                int64_t extra = ldmode == 1 ? common[k] : ld_extra(r),
                        n = fz_root_local(m, k, c[k]);
                s->ld[rank * ndims + k] = extra < 0               ? 0
                                          : extra > INT64_MAX - n ? INT64_MAX
                                                                  : n + extra;
            }
        }
    }
    return 1;
}

/* The root layout and every rank's view of it. Returns 0 (and frees) if the library refuses
   parameters the model says are valid: only when their whole array is too large. */
static int create_side(side_desc *s, int nranks, int big)
{
    int rc = s->any_gen
                 ? redist_layout_create_gen_block(s->ndims, s->root, s->block, s->grid, s->first,
                                                  s->ranks, s->order, s->sizes, &s->root_layout)
                 : redist_layout_create(s->ndims, s->root, s->block, s->grid, s->first, s->ranks,
                                        s->order, &s->root_layout);
    FZ_CHECK(rc == 0 || big, "layout creation: %d (%s)", rc, redist_last_error_detail());
    if (rc != 0)
        return 0;
    for (int rank = 0; rank < nranks; rank++) {
        if (!s->window) {
            s->of_rank[rank] = s->root_layout;
            continue;
        }
        const int64_t *ld = fz_ld(&s->m, rank);
        if (rank > 0 && s->m.ld == NULL) {
            s->of_rank[rank] = s->of_rank[0];
            continue;
        }
        rc = redist_layout_create_window(s->root_layout, s->offset, s->extent, ld,
                                         &s->of_rank[rank]);
        FZ_CHECK(rc == 0, "window: %d (%s)", rc, redist_last_error_detail());
    }
    return 1;
}

static void free_side(side_desc *s, int nranks)
{
    for (int rank = nranks - 1; rank >= 0; rank--) {
        int shared =
            s->of_rank[rank] == s->root_layout || (rank > 0 && s->of_rank[rank] == s->of_rank[0]);
        if (!shared)
            redist_layout_free(&s->of_rank[rank]);
        s->of_rank[rank] = NULL;
    }
    redist_layout_free(&s->root_layout);
}

/* ---- the exchange --------------------------------------------------------------------- */

typedef struct world {
    int nranks, ndims, es, perm[MAX_DIMS], have_perm;
    unsigned mode;
    int64_t shape[MAX_DIMS];
    side_desc *src, *dst;
    redist_layout view[MAX_RANKS];
    redist__side send[MAX_RANKS], recv[MAX_RANKS];
    redist__msg self[MAX_RANKS];
    int has_self[MAX_RANKS], built[MAX_RANKS];
    int64_t src_n[MAX_RANKS], dst_n[MAX_RANKS], src_base[MAX_RANKS], dst_base[MAX_RANKS];
} world;

static void element_bytes(uint32_t id, int es, unsigned char *out)
{
    memcpy(out, &id, sizeof id);
    for (int i = 4; i < es; i++)
        out[i] = (unsigned char)(id * 7u + (unsigned)i * 31u);
}

static const int64_t chunks[] = {1, 2, 3, 5, 8, 13, 64, 1000};

static void pack_message(const redist__msg *m, const char *src, char *buf, int es, int how)
{
    if (how % 3 != 2) {
        redist__pack(m, src, buf, (size_t)es);
        return;
    }
    int64_t scratch[3 * MAX_DIMS], done = 0;
    redist__cursor c;
    redist__cursor_init(&c, m, scratch);
    for (int i = how; done < m->nelems; i++) {
        int64_t n = redist__cursor_pack(&c, src, buf + done * es, chunks[i % 8], (size_t)es);
        FZ_CHECK(n > 0, "cursor pack stalls at %lld of %lld", (long long)done,
                 (long long)m->nelems);
        done += n;
    }
    FZ_CHECK(redist__cursor_pack(&c, src, buf, 4, (size_t)es) == 0, "cursor pack past the end");
}

static void unpack_message(const redist__msg *m, const char *buf, char *dst, int es, int how)
{
    if (how % 3 != 1) {
        redist__unpack(m, buf, dst, (size_t)es, NULL);
        return;
    }
    int64_t scratch[3 * MAX_DIMS], done = 0;
    redist__cursor c;
    redist__cursor_init(&c, m, scratch);
    for (int i = how; done < m->nelems; i++) {
        int64_t n =
            redist__cursor_unpack(&c, buf + done * es, dst, chunks[i % 8], (size_t)es, NULL);
        FZ_CHECK(n > 0, "cursor unpack stalls at %lld of %lld", (long long)done,
                 (long long)m->nelems);
        done += n;
    }
}

static const redist__msg *find_msg(const redist__side *s, int peer)
{
    for (int i = 0; i < s->nmsgs; i++)
        if (s->msgs[i].peer == peer)
            return &s->msgs[i];
    return NULL;
}

/* The messages' bookkeeping, on every case. */
static void check_counts(world *w)
{
    fz_i128 total = 1, sent = 0, received = 0;
    for (int k = 0; k < w->ndims; k++)
        total *= w->shape[k];
    int64_t nsend = 0, nrecv = 0;
    for (int r = 0; r < w->nranks; r++) {
        const redist__side *sides[2] = {&w->send[r], &w->recv[r]};
        int64_t self = w->has_self[r] ? w->self[r].nelems : 0;
        if (w->has_self[r])
            FZ_CHECK(w->self[r].peer == r && self > 0,
                     "rank %d: self part with peer %d, %lld "
                     "elements",
                     r, w->self[r].peer, (long long)self);
        for (int s = 0; s < 2; s++) {
            const redist__side *sd = sides[s];
            int64_t off = 0;
            for (int i = 0; i < sd->nmsgs; i++) {
                const redist__msg *m = &sd->msgs[i];
                FZ_CHECK(m->peer >= 0 && m->peer < w->nranks && m->peer != r,
                         "rank %d: message %d to peer %d", r, i, m->peer);
                FZ_CHECK(i == 0 || m->peer > sd->msgs[i - 1].peer,
                         "rank %d: messages not sorted by peer", r);
                FZ_CHECK(m->nelems > 0, "rank %d: empty message to %d", r, m->peer);
                FZ_CHECK(m->offset == off, "rank %d: message to %d at %lld, expected %lld", r,
                         m->peer, (long long)m->offset, (long long)off);
                off += m->nelems;
            }
            FZ_CHECK(sd->total_elems == off, "rank %d: total %lld, messages %lld", r,
                     (long long)sd->total_elems, (long long)off);
        }
        FZ_CHECK(w->send[r].total_elems + self == w->src_n[r],
                 "rank %d sends %lld + %lld to itself, holds %lld", r,
                 (long long)w->send[r].total_elems, (long long)self, (long long)w->src_n[r]);
        FZ_CHECK(w->recv[r].total_elems + self == w->dst_n[r],
                 "rank %d receives %lld + %lld from itself, holds %lld", r,
                 (long long)w->recv[r].total_elems, (long long)self, (long long)w->dst_n[r]);
        sent += w->src_n[r];
        received += w->dst_n[r];
        nsend += w->send[r].nmsgs;
        nrecv += w->recv[r].nmsgs;
        for (int i = 0; i < w->send[r].nmsgs; i++) {
            const redist__msg *m = &w->send[r].msgs[i], *q = find_msg(&w->recv[m->peer], r);
            FZ_CHECK(q != NULL, "rank %d sends to %d, which expects nothing", r, m->peer);
            FZ_CHECK(q->nelems == m->nelems, "%d -> %d: %lld sent, %lld expected", r, m->peer,
                     (long long)m->nelems, (long long)q->nelems);
        }
    }
    FZ_CHECK(nsend == nrecv, "%lld messages sent, %lld expected", (long long)nsend,
             (long long)nrecv);
    FZ_CHECK(sent == total && received == total, "ranks hold %lld and %lld of %lld elements",
             (long long)sent, (long long)received, (long long)total);
}

/* Whether the model accepts the rank's ld (padded local arrays under 2^62 elements). */
static int ld_valid(const side_desc *s, int rank)
{
    int pos = fz_position(&s->m, rank), c[MAX_DIMS];
    if (pos < 0)
        return 1;
    fz_coords_of(&s->m, pos, c);
    fz_i128 stride[FZ_MAX_DIMS], size;
    return fz_strides(&s->m, rank, c, stride, &size);
}

/* Padded local-array size of `rank` on a side (0 outside it). */
static int64_t storage_of(const side_desc *s, int rank)
{
    int pos = fz_position(&s->m, rank), c[MAX_DIMS];
    if (pos < 0)
        return 0;
    fz_coords_of(&s->m, pos, c);
    fz_i128 stride[FZ_MAX_DIMS], size;
    FZ_CHECK(fz_strides(&s->m, rank, c, stride, &size), "the model refuses rank %d's ld", rank);
    return (int64_t)size;
}

static void exchange(world *w)
{
    int es = w->es, n = w->nranks, d = w->ndims;
    char *sa[MAX_RANKS], *da[MAX_RANKS], *sbuf[MAX_RANKS], *rbuf[MAX_RANKS];
    int64_t dsize[MAX_RANKS];
    unsigned char want[32];
    for (int r = 0; r < n; r++) {
        int64_t ss = storage_of(w->src, r);
        dsize[r] = storage_of(w->dst, r);
        sa[r] = malloc((size_t)(ss > 0 ? ss : 1) * (size_t)es);
        da[r] = malloc((size_t)(dsize[r] > 0 ? dsize[r] : 1) * (size_t)es);
        sbuf[r] = malloc((size_t)(w->send[r].total_elems + 1) * (size_t)es);
        rbuf[r] = malloc((size_t)(w->recv[r].total_elems + 1) * (size_t)es);
        FZ_CHECK(sa[r] && da[r] && sbuf[r] && rbuf[r], "out of memory");
        memset(sa[r], SENTINEL, (size_t)(ss > 0 ? ss : 1) * (size_t)es);
        memset(da[r], SENTINEL, (size_t)(dsize[r] > 0 ? dsize[r] : 1) * (size_t)es);
    }
    fz_i128 total = 1;
    for (int k = 0; k < d; k++)
        total *= w->shape[k];
    int64_t g[MAX_DIMS], h[MAX_DIMS];
    for (int64_t lin = 0; lin < (int64_t)total; lin++) { /* ids into the sources */
        int64_t rem = lin;
        for (int k = d - 1; k >= 0; k--) {
            g[k] = rem % w->shape[k];
            rem /= w->shape[k];
        }
        int rank;
        fz_i128 off;
        fz_locate(&w->src->m, g, &rank, &off, NULL);
        element_bytes((uint32_t)lin + 1, es, (unsigned char *)sa[rank] + (int64_t)off * es);
    }
    for (int r = 0; r < n; r++) { /* pack */
        for (int i = 0; i < w->send[r].nmsgs; i++) {
            const redist__msg *m = &w->send[r].msgs[i];
            pack_message(m, sa[r] + w->src_base[r] * es, sbuf[r] + m->offset * es, es,
                         (int)(w->mode >> 2) + r + i);
        }
    }
    for (int q = 0; q < n; q++) { /* deliver and unpack */
        for (int i = 0; i < w->recv[q].nmsgs; i++) {
            const redist__msg *m = &w->recv[q].msgs[i], *s = find_msg(&w->send[m->peer], q);
            memcpy(rbuf[q] + m->offset * es, sbuf[m->peer] + s->offset * es,
                   (size_t)(m->nelems * es));
            unpack_message(m, rbuf[q] + m->offset * es, da[q] + w->dst_base[q] * es, es,
                           (int)(w->mode >> 4) + q + i);
        }
        if (w->has_self[q])
            redist__copy(&w->self[q], sa[q] + w->src_base[q] * es, da[q] + w->dst_base[q] * es,
                         (size_t)es, NULL);
    }
    /* Every destination element holds its source's id; nothing else was written. */
    int64_t written[MAX_RANKS] = {0};
    for (int64_t lin = 0; lin < (int64_t)total; lin++) {
        int64_t rem = lin;
        for (int k = d - 1; k >= 0; k--) {
            g[k] = rem % w->shape[k];
            rem /= w->shape[k];
        }
        for (int j = 0; j < d; j++)
            h[j] = g[w->have_perm ? w->perm[j] : j];
        int rank;
        fz_i128 off;
        fz_locate(&w->dst->m, h, &rank, &off, NULL);
        element_bytes((uint32_t)lin + 1, es, want);
        const char *at = da[rank] + (int64_t)off * es;
        uint32_t held;
        memcpy(&held, at, sizeof held);
        FZ_CHECK(memcmp(at, want, (size_t)es) == 0, "element %lld: rank %d offset %lld holds id %u",
                 (long long)lin, rank, (long long)off, held);
        written[rank]++;
    }
    for (int r = 0; r < n; r++) {
        int64_t untouched = 0;
        for (int64_t i = 0; i < dsize[r]; i++) {
            const unsigned char *e = (const unsigned char *)da[r] + i * es;
            int all = 1;
            for (int b = 0; b < es; b++)
                all &= e[b] == SENTINEL;
            untouched += all;
        }
        FZ_CHECK(untouched + written[r] == dsize[r],
                 "rank %d: %lld elements written outside the window or padding", r,
                 (long long)(dsize[r] - untouched - written[r]));
        free(sa[r]);
        free(da[r]);
        free(sbuf[r]);
        free(rbuf[r]);
    }
}

/* FZ_DEBUG=1 in the environment: the decoded case on stderr (for reading a reproducer). */
static void dump_side(const char *name, const side_desc *s, int nranks)
{
    fprintf(stderr, "%s: order %d window %d gen %d nprocs %d ranks", name, s->order, s->window,
            s->any_gen, s->nprocs);
    for (int i = 0; i < s->nprocs; i++)
        fprintf(stderr, " %d", s->ranks[i]);
    fputc('\n', stderr);
    for (int k = 0; k < s->ndims; k++) {
        fprintf(stderr, "  dim %d: extent %lld root %lld offset %lld block %lld grid %d first %d",
                k, (long long)s->extent[k], (long long)s->root[k], (long long)s->offset[k],
                (long long)s->block[k], s->grid[k], s->first[k]);
        for (int c = 0; s->sizes[k] != NULL && c < s->grid[k]; c++)
            fprintf(stderr, "%s%lld", c ? "+" : " sizes ", (long long)s->sizes[k][c]);
        fputc('\n', stderr);
    }
    for (int r = 0; s->m.ld != NULL && r < nranks; r++) {
        fprintf(stderr, "  ld of rank %d:", r);
        for (int k = 0; k < s->ndims; k++)
            fprintf(stderr, " %lld", (long long)fz_ld(&s->m, r)[k]);
        fputc('\n', stderr);
    }
}

static void dump(const world *w)
{
    if (getenv("FZ_DEBUG") == NULL)
        return;
    fprintf(stderr, "ranks %d, element size %d, mode %u, shape", w->nranks, w->es, w->mode);
    for (int k = 0; k < w->ndims; k++)
        fprintf(stderr, " %lld", (long long)w->shape[k]);
    if (w->have_perm) {
        fprintf(stderr, ", permutation");
        for (int k = 0; k < w->ndims; k++)
            fprintf(stderr, " %d", w->perm[k]);
    }
    fputc('\n', stderr);
    dump_side("src", w->src, w->nranks);
    dump_side("dst", w->dst, w->nranks);
}

/* ---- the target ----------------------------------------------------------------------- */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_reader rd = {data, size}, *r = &rd;
    static world w;
    static side_desc src, dst;
    memset(&w, 0, sizeof w);
    w.nranks = 1 + (int)(fz_u8(r) % MAX_RANKS);
    unsigned nd = fz_u8(r);
    w.ndims = nd < 240 ? 1 + (int)(nd % 3) : MAX_DIMS;
    int big = fz_u8(r) % 8 == 0;
    /* Element sizes: 1 and 2 only for the counts (no room for an id), where they allow the
       most elements under 2^63 bytes. */
    static const int sizes[] = {8, 4, 12, 16, 24, 8, 1, 2};
    w.es = sizes[fz_u8(r) % 8];
    if (w.es < 4 && !big)
        w.es = 8;
    w.mode = fz_u8(r);
    static const int64_t small_extent[] = {0, 160, 40, 14, 8};
    fz_i128 elements = 1;
    for (int k = 0; k < w.ndims; k++) {
        w.shape[k] = big ? fz_value(r, 40) : (int64_t)(fz_u8(r) % (small_extent[w.ndims] + 1));
        if (w.shape[k] < 0 || w.shape[k] > REDIST_MAX_EXTENT)
            return 0;
        elements *= w.shape[k] > 0 ? w.shape[k] : 1;
        if (elements > REDIST_MAX_EXTENT)
            return 0;
    }
    w.have_perm = fz_u8(r) % 2;
    if (w.have_perm)
        fz_permutation(r, w.perm, w.ndims);
    int64_t dshape[MAX_DIMS];
    for (int j = 0; j < w.ndims; j++) /* dst's extent j is src's extent perm[j] */
        dshape[j] = w.shape[w.have_perm ? w.perm[j] : j];
    w.src = &src;
    w.dst = &dst;
    if (!decode_side(r, &src, w.ndims, w.shape, w.nranks, big) ||
        !decode_side(r, &dst, w.ndims, dshape, w.nranks, big))
        return 0;
    dump(&w);
    if (!create_side(&src, w.nranks, big))
        return 0;
    if (!create_side(&dst, w.nranks, big)) {
        free_side(&src, w.nranks);
        return 0;
    }
    const int *perm = w.have_perm ? w.perm : NULL;
    int ok = 1, refused = 0;
    FZ_CHECK(redist__check_permutation(w.ndims, perm) == 0, "a permutation refused");
    for (int q = 0; q < w.nranks && ok; q++) { /* plan creation's local checks */
        redist_layout s = src.of_rank[q], t = dst.of_rank[q];
        FZ_CHECK(redist__permuted_shape_matches(s, t, perm), "shapes do not match");
        int s_ok = ld_valid(&src, q), t_ok = ld_valid(&dst, q);
        FZ_CHECK((redist__check_ld(s, q) == 0) == s_ok && (redist__check_ld(t, q) == 0) == t_ok,
                 "rank %d: check_ld differs from the model", q);
        if (!s_ok || !t_ok || redist__check_array_bytes(s, (size_t)w.es) != 0) {
            ok = 0; /* a plan refuses it: padding of 2^62 elements, 2^63 bytes or more */
            break;
        }
        w.view[q] = perm ? redist__layout_permuted(t, perm) : t;
        FZ_CHECK(w.view[q] != NULL, "permuted view");
        FZ_CHECK(redist__same_global_shape(s, w.view[q]), "the view's shape");
    }
    if (ok) {
        redist__shape shape; /* the pair's classification: pure, must not misbehave */
        redist__shape_of(src.of_rank[0], w.view[0], &shape);
    }
    for (int q = 0; q < w.nranks && ok; q++) {
        int64_t lo, hi;
        FZ_CHECK(
            redist__storage_span(src.of_rank[q], q, &w.src_n[q], &lo, &hi, &w.src_base[q]) == 0 &&
                redist__storage_span(dst.of_rank[q], q, &w.dst_n[q], &lo, &hi, &w.dst_base[q]) == 0,
            "storage span");
        int rc = redist__sides_create(src.of_rank[q], w.view[q], q, &w.send[q], &w.recv[q],
                                      &w.self[q], &w.has_self[q]);
        if (rc == REDIST_ERR_NOMEM &&
            strstr(redist_last_error_detail(), "would take up to") != NULL) {
            refused = 1; /* larger than the memory limit: refused before any work */
            break;
        }
        FZ_CHECK(rc == 0, "rank %d: sides_create returns %d (%s)", q, rc,
                 redist_last_error_detail());
        w.built[q] = 1;
        if (w.mode & 1) { /* as plans do: tiles for the messages unpacked */
            redist__side_tiles(&w.recv[q]);
            if (w.has_self[q])
                redist__tiles_create(&w.self[q]);
        }
    }
    if (ok && !refused) {
        check_counts(&w);
        fz_i128 storage = 0;
        for (int q = 0; q < w.nranks; q++)
            storage += (fz_i128)storage_of(&src, q) + storage_of(&dst, q);
        if (elements <= SIM_ELEMENTS && storage <= SIM_STORAGE && w.es >= 4) /* room for an id */
            exchange(&w);
    }
    for (int q = 0; q < w.nranks; q++) {
        if (w.built[q]) {
            redist__side_free(&w.send[q]);
            redist__side_free(&w.recv[q]);
            if (w.has_self[q])
                redist__msg_free(&w.self[q]);
        }
        if (perm != NULL && w.view[q] != NULL)
            redist_layout_free(&w.view[q]);
    }
    free_side(&dst, w.nranks);
    free_side(&src, w.nranks);
    return 0;
}
