/* Paper 000's distribution tables S, R, P and P_s, D_s (see tables.h). */
#include "tables.h"

#include <stdlib.h>
#include <string.h>

/* Tables larger than this are not computed: they are for reading, not for machines. */
#define TABLES_MAX_CELLS (1 << 20)
/* Larger tables are summarised instead of printed as text. */
#define TABLES_MAX_PRINT_COLS 32
#define TABLES_MAX_PRINT_ROWS 64

static int64_t mod(int64_t a, int64_t m)
{
    int64_t r = a % m;
    return r < 0 ? r + m : r;
}

static int64_t gcd(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Theorem 2: P_s and D_s from Eq. 12 and 13, kept only if they are what Theorem 1 promises
   for this pair: S'(i,j) = S(D_s(i,j), j) with each column of D_s a permutation of the rows,
   P_s(i,j) = P(D_s(i,j), j), and each row of P_s a permutation of the processors. */
static void compute_ps(tool_tables *t)
{
    int K = t->K, P = t->P, G = t->G, Kp = t->Kp, Pp = t->Pp;
    /* n*K' = 1 (mod P'), then m = (n*K' - 1) / P'. */
    int64_t n = 1;
    while (Pp > 1 && mod(n * Kp, Pp) != 1)
        n++;
    t->n = n;
    t->m = (n * Kp - 1) / Pp;
    t->Ps = malloc((size_t)K * P * sizeof *t->Ps);
    t->Ds = malloc((size_t)K * P * sizeof *t->Ds);
    unsigned char *seen = calloc((size_t)(K > P ? K : P), 1);
    if (!t->Ps || !t->Ds || !seen) {
        free(seen);
        return;
    }
    for (int i = 0; i < K; i++) {
        for (int j = 0; j < P; j++) {
            int64_t i1 = i / G, i2 = i % G, j1 = j / G, j2 = j % G;
            t->Ps[i * P + j] = mod(t->n * (j1 - i1), Pp) + (int64_t)Pp * mod(i2 - j2, G);
            t->Ds[i * P + j] = mod(t->m * (j1 - i1), Kp) + (int64_t)Kp * mod(i2 - j2, G);
        }
    }
    int ok = 1;
    for (int i = 0; i < K && ok; i++) {
        memset(seen, 0, (size_t)P);
        for (int j = 0; j < P && ok; j++) {
            int64_t d = t->Ds[i * P + j], p = t->Ps[i * P + j];
            ok = d >= 0 && d < K && p >= 0 && p < P && !seen[p] && t->Pt[d * P + j] == p;
            if (ok)
                seen[p] = 1;
        }
    }
    for (int j = 0; j < P && ok; j++) {
        for (int i = 0; i < K; i++)
            seen[i] = 0;
        for (int i = 0; i < K && ok; i++) {
            int64_t d = t->Ds[i * P + j];
            ok = !seen[d];
            seen[d] = 1;
        }
    }
    free(seen);
    t->have_ps = ok;
}

int tables_compute(const tool_spec *from, const tool_spec *to, tool_tables *t, char *why,
                   size_t whylen)
{
    memset(t, 0, sizeof *t);
    if (from->ndims != 1 || to->ndims != 1) {
        snprintf(why, whylen, "tables need 1-D layouts (cyclic(x) -> cyclic(Kx))");
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
    int64_t bs = from->block[0], bd = to->block[0];
    int64_t x = bs < bd ? bs : bd, big = bs < bd ? bd : bs;
    if (big % x != 0) {
        snprintf(why, whylen,
                 "tables need one block size to be a multiple of the other (%lld, %lld)",
                 (long long)bs, (long long)bd);
        return -1;
    }
    int64_t K = big / x, P = from->nprocs;
    if (K * P > TABLES_MAX_CELLS) {
        snprintf(why, whylen, "tables of K x P = %lld x %lld are too large", (long long)K,
                 (long long)P);
        return -1;
    }
    t->P = (int)P;
    t->K = (int)K;
    t->x = x;
    t->dual = bs > bd;
    t->nblocks = (from->extent[0] + x - 1) / x;
    for (int i = 0; i < from->nprocs; i++)
        if (from->ranks[i] != to->ranks[i])
            t->ranks_differ = 1;
    t->G = (int)gcd(K, P);
    t->Kp = t->K / t->G;
    t->Pp = t->P / t->G;
    size_t cells = (size_t)(K * P);
    t->S = malloc(cells * sizeof *t->S);
    t->R = malloc(cells * sizeof *t->R);
    t->Pt = malloc(cells * sizeof *t->Pt);
    if (!t->S || !t->R || !t->Pt) {
        tables_free(t);
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    /* One superblock: blocks 0 .. P*K-1 of x elements. A block's column is its owner's grid
       coordinate and its row its local block index, by each side's layout formula. */
    for (int64_t b = 0; b < K * P; b++) {
        int64_t g = b * x;
        int64_t si = spec_local_index_of(from, 0, g) / x, sj = spec_coord_of(from, 0, g);
        int64_t ri = spec_local_index_of(to, 0, g) / x, rj = spec_coord_of(to, 0, g);
        t->S[si * P + sj] = b;
        t->R[ri * P + rj] = b;
        t->Pt[si * P + sj] = rj;
    }
    if (!t->dual && from->first[0] == 0 && to->first[0] == 0)
        compute_ps(t);
    return 0;
}

void tables_free(tool_tables *t)
{
    free(t->S);
    free(t->R);
    free(t->Pt);
    free(t->Ps);
    free(t->Ds);
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

/* One K x P table; entries whose block (in S's position) lies beyond the array show '.'. */
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
            if (block_at[i * P + j] >= t->nblocks)
                fprintf(f, "%*s", w + 1, ".");
            else
                fprintf(f, "%*lld", w + 1, (long long)v[i * P + j]);
        }
        fputc('\n', f);
    }
}

void tables_print(FILE *f, const tool_tables *t, const char *indent)
{
    long long x = (long long)t->x, kx = (long long)(t->K * t->x);
    fprintf(f,
            "%s%s: x = %lld, K = %d, P = %d; a superblock is P*K = %d blocks of %lld "
            "element%s.\n",
            indent, t->dual ? "cyclic(Kx) -> cyclic(x)" : "cyclic(x) -> cyclic(Kx)", x, t->K, t->P,
            t->P * t->K, x, x == 1 ? "" : "s");
    if (t->ranks_differ)
        fprintf(f,
                "%s(p_j is grid coordinate j; --from and --to map coordinates to different "
                "ranks)\n",
                indent);
    if (t->P > TABLES_MAX_PRINT_COLS || t->K > TABLES_MAX_PRINT_ROWS) {
        fprintf(f, "%s(tables of %d x %d are too large to print; --json gives them)\n", indent,
                t->K, t->P);
        return;
    }
    char title[160];
    snprintf(title, sizeof title,
             "S: initial distribution table, cyclic(%lld) (global block "
             "indices, %s order)",
             t->dual ? kx : x, t->dual ? "column-major" : "row-major");
    print_table(f, t, indent, title, t->S, t->S);
    snprintf(title, sizeof title, "R: final distribution table, cyclic(%lld) (%s order)",
             t->dual ? x : kx, t->dual ? "row-major" : "column-major");
    print_table(f, t, indent, title, t->R, t->R);
    print_table(f, t, indent,
                "P: destination processor table (the processor each block of S "
                "goes to)",
                t->Pt, t->S);
    if (t->have_ps) {
        snprintf(title, sizeof title,
                 "P_s: P in generalized circulant form (Theorem 2; G = %d, "
                 "n = %lld, m = %lld); row i is step i of direct",
                 t->G, (long long)t->n, (long long)t->m);
        print_table(f, t, indent, title, t->Ps, t->Ps); /* P_s never marks blocks */
        print_table(f, t, indent,
                    "D_s: send data location table (the row of S each entry of "
                    "P_s comes from)",
                    t->Ds, t->Ds);
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

void tables_print_json(FILE *f, const tool_tables *t)
{
    fprintf(f, "{\"x\": %lld, \"K\": %d, \"procs\": %d, \"dual\": %s, \"S\": ", (long long)t->x,
            t->K, t->P, t->dual ? "true" : "false");
    json_table(f, t, t->S, t->S);
    fputs(", \"R\": ", f);
    json_table(f, t, t->R, t->R);
    fputs(", \"P\": ", f);
    json_table(f, t, t->Pt, t->S);
    if (t->have_ps) {
        fputs(", \"P_s\": ", f);
        json_table(f, t, t->Ps, NULL);
        fputs(", \"D_s\": ", f);
        json_table(f, t, t->Ds, NULL);
    }
    fputc('}', f);
}
