/* [LBP96]'s distribution and schedule tables, laid out and printed (see tables.h). The
   numbers all come from src/index/circulant.c. */
#include "tables.h"

#include <stdlib.h>
#include <string.h>

/* Tables larger than this are not computed: they are for reading, not for machines. */
#define TABLES_MAX_CELLS (1 << 20)
/* Larger tables are summarised instead of printed as text. */
#define TABLES_MAX_PRINT_COLS 32
#define TABLES_MAX_PRINT_ROWS 64

/* Whether the pair has tables to show: 0 with K and x, or -1 with the reason in why. */
static int check_pair(const tool_spec *from, const tool_spec *to, int64_t *K, int64_t *x, char *why,
                      size_t whylen)
{
    if (from->ndims != 1 || to->ndims != 1) {
        snprintf(why, whylen, "tables need 1-D layouts (cyclic(x) -> cyclic(Kx))");
        return -1;
    }
    if (spec_is_boxes(from) || spec_is_boxes(to) || spec_has_replicated(from) ||
        spec_has_replicated(to)) {
        snprintf(why, whylen,
                 "tables need block-cyclic layouts (not boxes or replicated "
                 "dimensions)");
        return -1;
    }
    if (from->extent[0] != to->extent[0]) {
        snprintf(why, whylen, "--from and --to have different n");
        return -1;
    }
    if (from->nprocs != to->nprocs) {
        snprintf(why, whylen, "tables need the same number of processors on both sides (%d, %d)",
                 from->nprocs, to->nprocs);
        return -1;
    }
    if (from->first[0] != to->first[0]) {
        snprintf(why, whylen, "tables need the same first coordinate on both sides (%d, %d)",
                 from->first[0], to->first[0]);
        return -1;
    }
    int64_t bs = from->block[0], bd = to->block[0];
    int64_t small = bs < bd ? bs : bd, big = bs < bd ? bd : bs;
    if (big % small != 0) {
        snprintf(why, whylen,
                 "tables need one block size to be a multiple of the other (%lld, %lld)",
                 (long long)bs, (long long)bd);
        return -1;
    }
    *K = big / small;
    *x = small;
    if (*K * from->nprocs > TABLES_MAX_CELLS) {
        snprintf(why, whylen, "tables of K x P = %lld x %lld are too large", (long long)*K,
                 (long long)from->nprocs);
        return -1;
    }
    return 0;
}

/* S, R and P always; the schedule tables only where they exist (K <= P). */
static int alloc_tables(tool_tables *t, char *why, size_t whylen)
{
    size_t bytes = (size_t)t->K * (size_t)t->P * sizeof(int64_t);
    int64_t **all[] = {&t->S, &t->R, &t->Pt, &t->Ps, &t->Ds, &t->Pr, &t->Dr, &t->Sp, &t->Rp};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) {
        if (k >= 3 && !t->have_ps)
            break;
        if ((*all[k] = malloc(bytes)) == NULL) {
            tables_free(t);
            snprintf(why, whylen, "out of memory");
            return -1;
        }
    }
    return 0;
}

static void fill_tables(tool_tables *t)
{
    int64_t K = t->K, P = t->P;
    /* R_x(K, P)'s S and R (§3.1: row-major and column-major) are the pair's S and R, or for
       the dual its R and S. */
    int64_t *rxS = t->dual ? t->R : t->S, *rxR = t->dual ? t->S : t->R;
    redist__rx_tables(&t->rx, rxS, rxR, t->dual ? NULL : t->Pt, t->Ps, t->Ds, t->Pr, t->Dr);
    /* The dual's P: block b of cyclic(Kx) goes to b mod P under cyclic(x) (§3.3: P is S
       with every block replaced by its destination). */
    if (t->dual)
        for (int64_t c = 0; c < K * P; c++)
            t->Pt[c] = t->S[c] % P;
    if (t->have_ps)
        for (int64_t i = 0; i < K; i++)
            for (int64_t j = 0; j < P; j++) {
                t->Sp[i * P + j] = rxS[t->Ds[i * P + j] * P + j];
                t->Rp[i * P + j] = rxR[t->Dr[i * P + j] * P + j];
            }
}

int tables_compute(const tool_spec *from, const tool_spec *to, tool_tables *t, char *why,
                   size_t whylen)
{
    memset(t, 0, sizeof *t);
    int64_t K, x, P = from->nprocs;
    if (check_pair(from, to, &K, &x, why, whylen) != 0)
        return -1;
    if (redist__rx_init(K, P, &t->rx) != 0) {
        snprintf(why, whylen, "R_x(%lld, %lld): bad parameters", (long long)K, (long long)P);
        return -1;
    }
    t->P = (int)P;
    t->K = (int)K;
    t->x = x;
    t->dual = from->block[0] > to->block[0];
    t->first = from->first[0];
    t->nblocks = (from->extent[0] + x - 1) / x;
    for (int i = 0; i < from->nprocs; i++)
        if (from->ranks[i] != to->ranks[i])
            t->ranks_differ = 1;
    t->have_ps = K <= P;
    if (alloc_tables(t, why, whylen) != 0)
        return -1;
    fill_tables(t);
    return 0;
}

void tables_free(tool_tables *t)
{
    free(t->S);
    free(t->R);
    free(t->Pt);
    free(t->Ps);
    free(t->Ds);
    free(t->Pr);
    free(t->Dr);
    free(t->Sp);
    free(t->Rp);
    memset(t, 0, sizeof *t);
}

static int digits(int64_t v)
{
    int d = 1;
    while (v >= 10) {
        v /= 10;
        d++;
    }
    return d;
}

/* One K x P table. With block_at, entries whose block (in that table's position) lies beyond
   the array show '.'. */
static void print_table(FILE *f, const tool_tables *t, const char *indent, const char *title,
                        const int64_t *v, const int64_t *block_at)
{
    int K = t->K, P = t->P;
    int64_t max = P;
    for (int c = 0; c < K * P; c++)
        if (v[c] > max)
            max = v[c];
    int w = digits(max) + 1;
    if (w < 3)
        w = 3;
    int rw = digits(K - 1) + 1;
    fprintf(f, "%s%s\n", indent, title);
    fprintf(f, "%s%*s ", indent, rw, "");
    for (int j = 0; j < P; j++) {
        char h[16];
        snprintf(h, sizeof h, "p%d", j);
        fprintf(f, "%*s", w + 1, h);
    }
    fputc('\n', f);
    for (int i = 0; i < K; i++) {
        fprintf(f, "%s%*d ", indent, rw, i);
        for (int j = 0; j < P; j++) {
            if (block_at && block_at[i * P + j] >= t->nblocks)
                fprintf(f, "%*s", w + 1, ".");
            else
                fprintf(f, "%*lld", w + 1, (long long)v[i * P + j]);
        }
        fputc('\n', f);
    }
}

/* The titles of one side of R_x(K, P)'s schedule, forward or dual: the primed table (S' or
   R'), the processor table (P_s or P_r) and the data location table (D_s or D_r). The
   processor table that drives direct's steps names R_x's parameters between procs_head and
   procs_tail. */
typedef struct side_titles {
    const char *primed, *procs_head, *procs_tail, *location;
    int with_rx;
} side_titles;

static const side_titles send_titles[2] = {
    {"S': S with each column reordered by D_s, S'(i, j) = S(D_s(i, j), j): the blocks step i sends (Fig. 7, 11)",
     "P_s: P in generalized circulant form (Theorem 2, Eq. 12; ",
     "), P_s(i, j) = P(D_s(i, j), j); row i is step i of direct",
     "D_s: send data location table (Eq. 13): step i sends p_j's row D_s(i, j) of S", 1},
    {"S' of R_x: R with each column reordered by D_s, S'(i, j) = R(D_s(i, j), j): the blocks step i delivers",
     "P_s of R_x: source processor table, row i the inverse of row i of P_r (p_j receives its step i block from p_{P_s(i, j)})",
     "",
     "D_s of R_x: receive data location table (the row of R where each entry of S' lands: S'(i, j) = R(D_s(i, j), j))",
     0},
};

static const side_titles receive_titles[2] = {
    {"R': R with each column reordered by D_r, R'(i, j) = R(D_r(i, j), j) = S'(i, P_r(i, j)): the blocks step i delivers",
     "P_r: source processor table, row i the inverse of row i of P_s (p_j receives its step i block from p_{P_r(i, j)})",
     "", "D_r: receive data location table (the row of R where each entry of R' lands)", 0},
    {"R' of R_x: S with each column reordered by D_r, R'(i, j) = S(D_r(i, j), j): the blocks step i sends",
     "P_r of R_x: the dual's destination processor table, P_r(i, j) = P(D_r(i, j), j) (",
     "); row i is step i of direct",
     "D_r of R_x: send data location table (the row of S each entry of R' comes from)", 1},
};

static void print_side(FILE *f, const tool_tables *t, const char *indent, int full,
                       const side_titles *titles, const int64_t *primed, const int64_t *procs,
                       const int64_t *location)
{
    char title[256];
    if (full)
        print_table(f, t, indent, titles->primed, primed, primed);
    if (titles->with_rx)
        snprintf(title, sizeof title, "%sG = %lld, K' = %lld, P' = %lld, n = %lld, m = %lld%s",
                 titles->procs_head, (long long)t->rx.G, (long long)t->rx.Kp, (long long)t->rx.Pp,
                 (long long)t->rx.n, (long long)t->rx.m, titles->procs_tail);
    else
        snprintf(title, sizeof title, "%s", titles->procs_head);
    print_table(f, t, indent, title, procs, NULL);
    print_table(f, t, indent, titles->location, location, NULL);
}

/* The send side of R_x(K, P): S', P_s, D_s (forward, the steps of direct). */
static void print_send_side(FILE *f, const tool_tables *t, const char *indent, int full)
{
    print_side(f, t, indent, full, &send_titles[t->dual], t->Sp, t->Ps, t->Ds);
}

/* The receive side of R_x(K, P): R', P_r, D_r (for the dual, the steps of direct). */
static void print_receive_side(FILE *f, const tool_tables *t, const char *indent, int full)
{
    print_side(f, t, indent, full, &receive_titles[t->dual], t->Rp, t->Pr, t->Dr);
}

/* What the tables are of, and how to read them. */
static void print_notes(FILE *f, const tool_tables *t, const char *indent, int full)
{
    long long x = (long long)t->x;
    fprintf(f,
            "%s%s: x = %lld, K = %d, P = %d; a superblock is P*K = %d blocks of %lld element%s.\n",
            indent, t->dual ? "cyclic(Kx) -> cyclic(x)" : "cyclic(x) -> cyclic(Kx)", x, t->K, t->P,
            t->P * t->K, x, x == 1 ? "" : "s");
    if (t->dual)
        fprintf(
            f,
            "%sThe dual of R_%lld(%d, %d): its tables with the roles of S and R swapped (S column-major, R row-major)%s\n",
            indent, x, t->K, t->P,
            t->have_ps
                ? ", the schedule run backwards: in step i, p_j sends its row D_r(i, j) to p_{P_r(i, j)}, which stores it at row D_s(i, P_r(i, j))."
                : ".");
    else if (t->have_ps)
        fprintf(f, "%sR_%lld(%d, %d): in step i of direct, p_j sends its row D_s(i, j) %s\n",
                indent, x, t->K, t->P,
                full ? "to p_{P_s(i, j)}, which stores it at row D_r(i, P_s(i, j))."
                     : "to p_{P_s(i, j)}.");
    if (t->first)
        fprintf(f, "%s(p_c is grid coordinate (c + %d) mod %d: first = %d on both sides)\n", indent,
                t->first, t->P, t->first);
    if (t->ranks_differ)
        fprintf(
            f, "%s(p_j is grid coordinate j; --from and --to map coordinates to different ranks)\n",
            indent);
}

void tables_print(FILE *f, const tool_tables *t, const char *indent, int full)
{
    long long x = (long long)t->x, kx = (long long)(t->K * t->x);
    print_notes(f, t, indent, full);
    if (t->P > TABLES_MAX_PRINT_COLS || t->K > TABLES_MAX_PRINT_ROWS) {
        fprintf(f, "%s(tables of %d x %d are too large to print; --json gives them)\n", indent,
                t->K, t->P);
        return;
    }
    char title[160];
    snprintf(title, sizeof title,
             "S: initial distribution table, cyclic(%lld) (global block indices, %s order)",
             t->dual ? kx : x, t->dual ? "column-major" : "row-major");
    print_table(f, t, indent, title, t->S, t->S);
    snprintf(title, sizeof title, "R: final distribution table, cyclic(%lld) (%s order)",
             t->dual ? x : kx, t->dual ? "row-major" : "column-major");
    print_table(f, t, indent, title, t->R, t->R);
    print_table(f, t, indent,
                "P: destination processor table (the processor each block of S goes to)", t->Pt,
                t->S);
    if (!t->have_ps) {
        fprintf(f, "%s(K > P: all-to-all; P_s, D_s, P_r, D_r are for K <= P)\n", indent);
        return;
    }
    if (t->dual) {
        print_receive_side(f, t, indent, full);
        if (full)
            print_send_side(f, t, indent, full);
    } else {
        print_send_side(f, t, indent, full);
        if (full)
            print_receive_side(f, t, indent, full);
    }
}

static void json_table(FILE *f, const tool_tables *t, const int64_t *v, const int64_t *block_at)
{
    fputc('[', f);
    for (int i = 0; i < t->K; i++) {
        fprintf(f, "%s[", i ? "," : "");
        for (int j = 0; j < t->P; j++) {
            int c = i * t->P + j;
            if (block_at && block_at[c] >= t->nblocks)
                fprintf(f, "%snull", j ? "," : "");
            else
                fprintf(f, "%s%lld", j ? "," : "", (long long)v[c]);
        }
        fputc(']', f);
    }
    fputc(']', f);
}

static void json_named_table(FILE *f, const tool_tables *t, const char *key, const int64_t *v,
                             const int64_t *block_at)
{
    fprintf(f, ", \"%s\": ", key);
    json_table(f, t, v, block_at);
}

void tables_print_json(FILE *f, const tool_tables *t)
{
    fprintf(
        f,
        "{\"x\": %lld, \"K\": %d, \"procs\": %d, \"dual\": %s, \"first\": %d, \"G\": %lld, \"K_prime\": %lld, \"P_prime\": %lld, \"n\": %lld, \"m\": %lld, \"S\": ",
        (long long)t->x, t->K, t->P, t->dual ? "true" : "false", t->first, (long long)t->rx.G,
        (long long)t->rx.Kp, (long long)t->rx.Pp, (long long)t->rx.n, (long long)t->rx.m);
    json_table(f, t, t->S, t->S);
    json_named_table(f, t, "R", t->R, t->R);
    json_named_table(f, t, "P", t->Pt, t->S);
    const struct {
        const char *key;
        const int64_t *v, *block_at;
    } schedule[] = {{"S_prime", t->Sp, t->Sp}, {"P_s", t->Ps, NULL}, {"D_s", t->Ds, NULL},
                    {"R_prime", t->Rp, t->Rp}, {"P_r", t->Pr, NULL}, {"D_r", t->Dr, NULL}};
    for (size_t k = 0; t->have_ps && k < sizeof schedule / sizeof schedule[0]; k++)
        json_named_table(f, t, schedule[k].key, schedule[k].v, schedule[k].block_at);
    fputc('}', f);
}
