/* [LBP96]'s direct, indirect and hybrid schedules for R_x(K, P) as row transformations of
 * P_s (pure code, no MPI).
 *
 * [LBP96] §3.4 and §4, Theorem 3. By Eq. (12),
 *     P_s(i, j) = {n (j1 - i1)} mod P' + P' {(i2 - j2) mod G},
 * with i = i1 G + i2 and j = j1 G + j2: the label of unit (i, j) depends on its row only
 * through j1 - i1 and i2 - j2. That is the generalized circulant form of Eq. (1): submatrix
 * row i1 is submatrix row 0 shifted right i1 times, and inside a G x G submatrix row i2 is
 * row 0 shifted right i2 times. Shifting row i left by i1 submatrix columns and then by i2
 * columns inside its group of G processors therefore makes the label a function of the
 * column alone (Fig. 5, 6): the diagonals become vertical. The binary digits of i1 and i2
 * give those shifts in ceil(log2 K') + ceil(log2 G) steps (Fig. 9), and a last permutation
 * of whole columns takes every column to the processor its label names.
 */
#include "index/rowsched.h"

#include "core/core.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static int64_t mod(int64_t a, int64_t m)
{
    int64_t r = a % m;
    return r < 0 ? r + m : r;
}

static int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

/* Theorem 3 is stated for K <= P (every row of P_s a permutation of the P processors). */
static int valid_rx(const redist__rx *rx)
{
    return rx != NULL && rx->K >= 1 && rx->K <= rx->P && rx->G >= 1 && rx->Kp * rx->G == rx->K &&
           rx->Pp * rx->G == rx->P && rx->P <= INT64_MAX / rx->K;
}

int redist__rowsched_max_degree(const redist__rx *rx)
{
    if (!valid_rx(rx))
        return REDIST_ERR_ARG;
    return redist__ceil_log2(rx->Kp) + redist__ceil_log2(rx->G);
}

void redist__rowsched_free(redist__row_schedule *s)
{
    if (s == NULL)
        return;
    for (int64_t k = 0; s->steps != NULL && k < s->nsteps; k++) {
        redist__free(s->steps[k].rows);
        redist__free(s->steps[k].to);
    }
    redist__free(s->steps);
    memset(s, 0, sizeof *s);
}

/* Room for cap steps; the builders know an upper bound on their step count in advance. */
static int sched_init(redist__row_schedule *s, const redist__rx *rx, int64_t cap)
{
    memset(s, 0, sizeof *s);
    s->K = rx->K;
    s->P = rx->P;
    s->steps = redist__calloc((size_t)(cap > 0 ? cap : 1), sizeof *s->steps);
    return s->steps == NULL ? REDIST_ERR_NOMEM : 0;
}

/* Appends a step with room for nrows rows and P targets; NULL when out of memory (the
   schedule stays freeable). */
static redist__row_step *add_step(redist__row_schedule *s, int64_t nrows)
{
    redist__row_step *st = &s->steps[s->nsteps];
    st->rows = redist__malloc((size_t)(nrows > 0 ? nrows : 1) * sizeof *st->rows);
    st->to = redist__malloc((size_t)s->P * sizeof *st->to);
    if (st->rows == NULL || st->to == NULL) {
        redist__free(st->rows);
        redist__free(st->to);
        memset(st, 0, sizeof *st);
        return NULL;
    }
    st->nrows = nrows;
    s->nsteps++;
    return st;
}

/* ---- direct (Theorem 3 (i), Fig. 8) --------------------------------------------------- */

int redist__rowsched_direct(const redist__rx *rx, redist__row_schedule *out)
{
    if (out == NULL)
        return REDIST_ERR_ARG;
    memset(out, 0, sizeof *out);
    if (!valid_rx(rx))
        return REDIST_ERR_ARG;
    if (sched_init(out, rx, rx->K) != 0)
        return REDIST_ERR_NOMEM;
    /* Every row of P_s is a permutation (Theorem 1), so row i is one contention-free step. */
    for (int64_t i = 0; i < rx->K; i++) {
        redist__row_step *st = add_step(out, 1);
        if (st == NULL) {
            redist__rowsched_free(out);
            return REDIST_ERR_NOMEM;
        }
        st->rows[0] = i;
        for (int64_t c = 0; c < rx->P; c++)
            st->to[c] = redist__rx_Ps(rx, i, c);
    }
    return 0;
}

/* ---- shift steps (Fig. 6, Fig. 9 (a)-(d)) ------------------------------------------------ */

enum { SUBMATRIX_ROWS = 1, IN_GROUP = 2 };

/* The row index the level shifts by: i1 (submatrix row) or i2 (row inside the submatrix). */
static int64_t shift_digit(const redist__rx *rx, int level, int64_t i)
{
    return level == SUBMATRIX_ROWS ? i / rx->G : i % rx->G;
}

/* Step t of a level: the rows whose digit has bit t set shift left by 2^t, in units of G
   columns (whole submatrices, Fig. 9 (a)) or within each group of G processors (Fig. 9 (c),
   (d)). Left, because Eq. (12) depends on j1 - i1 and i2 - j2: moving unit (i, j) to
   submatrix column j1 - i1 and in-group column j2 - i2 removes i from its label. */
static int add_shift_step(redist__row_schedule *s, const redist__rx *rx, int level, int t)
{
    int64_t by = (int64_t)1 << t, G = rx->G, n = 0;
    for (int64_t i = 0; i < rx->K; i++)
        n += (shift_digit(rx, level, i) & by) != 0;
    redist__row_step *st = add_step(s, n);
    if (st == NULL)
        return REDIST_ERR_NOMEM;
    n = 0;
    for (int64_t i = 0; i < rx->K; i++)
        if (shift_digit(rx, level, i) & by)
            st->rows[n++] = i;
    for (int64_t c = 0; c < rx->P; c++)
        st->to[c] =
            level == SUBMATRIX_ROWS ? mod(c - by * G, rx->P) : c - c % G + mod(c % G - by, G);
    return 0;
}

/* ---- the direct phase: rows that have become identical move together (Fig. 10 (c)-(d)) -- */

static int step_has_row(const redist__row_step *st, int64_t i)
{
    int64_t lo = 0, hi = st->nrows;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (st->rows[mid] < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < st->nrows && st->rows[lo] == i;
}

/* Row i of P_s by Eq. (12), walking the row: each step right lowers (i2 - j2) mod G by one
   and, entering a new submatrix column, raises n (j1 - i1) mod P' by n. No division per
   entry (rx_Ps has four); redist__rowsched_check still uses redist__rx_Ps itself. */
static void ps_row(const redist__rx *rx, int64_t i, int64_t *out)
{
    int64_t G = rx->G, a = mod(-rx->n * (i / G), rx->Pp), b = i % G, step = rx->n % rx->Pp;
    for (int64_t j = 0; j < rx->P; j++) {
        out[j] = a + rx->Pp * b;
        b = b == 0 ? G - 1 : b - 1;
        if ((j + 1) % G == 0)
            a = a + step >= rx->Pp ? a + step - rx->Pp : a + step;
    }
}

/* Row i's remaining moves after the steps of s so far: map[c] is the destination of the unit
   now in column c (at[], ps[] are scratch). Replays the steps rather than trusting the shift
   arithmetic, so the grouping below stays right for any prefix. */
static void row_map(const redist__rx *rx, const redist__row_schedule *s, int64_t i, int64_t *at,
                    int64_t *ps, int64_t *map)
{
    for (int64_t j = 0; j < rx->P; j++)
        at[j] = j;
    for (int64_t k = 0; k < s->nsteps; k++) {
        if (!step_has_row(&s->steps[k], i))
            continue;
        const int64_t *to = s->steps[k].to;
        for (int64_t j = 0; j < rx->P; j++)
            at[j] = to[at[j]];
    }
    ps_row(rx, i, ps);
    for (int64_t j = 0; j < rx->P; j++)
        map[at[j]] = ps[j];
}

typedef struct keyed_row {
    uint64_t hash;
    int64_t row;
} keyed_row;

static int cmp_keyed(const void *a, const void *b)
{
    const keyed_row *x = a, *y = b;
    if (x->hash != y->hash)
        return x->hash < y->hash ? -1 : 1;
    return (x->row > y->row) - (x->row < y->row);
}

/* FNV-1a over the entries: only a sort key, equal maps are confirmed entry by entry. */
static uint64_t hash_map(const int64_t *map, int64_t P)
{
    uint64_t h = 14695981039346656037u;
    for (int64_t c = 0; c < P; c++) {
        h ^= (uint64_t)map[c];
        h *= 1099511628211u;
    }
    return h;
}

typedef struct phase_scratch {
    keyed_row *key;                 /* [K] */
    int64_t *group;                 /* [K] group of each row, numbered by smallest row */
    int64_t *order;                 /* [K] rows sorted by group, ascending inside a group */
    int64_t *start;                 /* [K + 1] first position of each group in order[] */
    int64_t *cursor;                /* [K] */
    int64_t *at, *ps, *map, *other; /* [P] */
} phase_scratch;

static void scratch_free(phase_scratch *w)
{
    redist__free(w->key);
    redist__free(w->group);
    redist__free(w->order);
    redist__free(w->start);
    redist__free(w->cursor);
    redist__free(w->at);
    redist__free(w->ps);
    redist__free(w->map);
    redist__free(w->other);
}

static int scratch_alloc(phase_scratch *w, int64_t K, int64_t P)
{
    w->key = redist__malloc((size_t)K * sizeof *w->key);
    w->group = redist__malloc((size_t)K * sizeof *w->group);
    w->order = redist__malloc((size_t)K * sizeof *w->order);
    w->start = redist__calloc((size_t)K + 1, sizeof *w->start);
    w->cursor = redist__malloc((size_t)K * sizeof *w->cursor);
    w->at = redist__malloc((size_t)P * sizeof *w->at);
    w->ps = redist__malloc((size_t)P * sizeof *w->ps);
    w->map = redist__malloc((size_t)P * sizeof *w->map);
    w->other = redist__malloc((size_t)P * sizeof *w->other);
    if (w->key && w->group && w->order && w->start && w->cursor && w->at && w->ps && w->map &&
        w->other)
        return 0;
    scratch_free(w);
    return REDIST_ERR_NOMEM;
}

/* Sorts rows by the hash of their map, then splits each run of equal hashes into rows with
   identical maps (compared in full). Groups get temporary ids; returns their number. */
static int64_t group_rows(const redist__rx *rx, const redist__row_schedule *s, phase_scratch *w)
{
    int64_t K = rx->K, P = rx->P, ngroups = 0;
    for (int64_t i = 0; i < K; i++) {
        row_map(rx, s, i, w->at, w->ps, w->map);
        w->key[i] = (keyed_row){hash_map(w->map, P), i};
        w->group[i] = -1;
    }
    qsort(w->key, (size_t)K, sizeof *w->key, cmp_keyed);
    for (int64_t a = 0, b; a < K; a = b) {
        for (b = a + 1; b < K && w->key[b].hash == w->key[a].hash;)
            b++;
        for (int64_t x = a; x < b; x++) {
            if (w->group[w->key[x].row] >= 0)
                continue;
            w->group[w->key[x].row] = ngroups;
            if (x + 1 < b) /* a run of one row needs no comparison */
                row_map(rx, s, w->key[x].row, w->at, w->ps, w->map);
            for (int64_t y = x + 1; y < b; y++) {
                if (w->group[w->key[y].row] >= 0)
                    continue;
                row_map(rx, s, w->key[y].row, w->at, w->ps, w->other);
                if (memcmp(w->map, w->other, (size_t)P * sizeof *w->map) == 0)
                    w->group[w->key[y].row] = ngroups;
            }
            ngroups++;
        }
    }
    return ngroups;
}

/* Renumbers the groups by their smallest row (a deterministic step order) and lists their
   rows, ascending, in order[start[g] .. start[g + 1]). */
static void order_groups(int64_t K, int64_t ngroups, phase_scratch *w)
{
    int64_t *renum = w->cursor, next = 0;
    for (int64_t g = 0; g < ngroups; g++)
        renum[g] = -1;
    for (int64_t i = 0; i < K; i++) {
        if (renum[w->group[i]] < 0)
            renum[w->group[i]] = next++;
        w->group[i] = renum[w->group[i]];
    }
    memset(w->start, 0, (size_t)(K + 1) * sizeof *w->start);
    for (int64_t i = 0; i < K; i++)
        w->start[w->group[i] + 1]++;
    for (int64_t g = 0; g < ngroups; g++) {
        w->start[g + 1] += w->start[g];
        w->cursor[g] = w->start[g];
    }
    for (int64_t i = 0; i < K; i++)
        w->order[w->cursor[w->group[i]]++] = i;
}

static int is_identity(const int64_t *map, int64_t P)
{
    for (int64_t c = 0; c < P; c++)
        if (map[c] != c)
            return 0;
    return 1;
}

/* One step per group of identical rows, with their common map; a group whose units are all
   in place already needs no step. After every shift step this is the single final column
   permutation of the indirect schedule (Theorem 3 (ii), "entire columns are permuted"). */
static int add_direct_phase(redist__row_schedule *s, const redist__rx *rx)
{
    phase_scratch w;
    if (scratch_alloc(&w, rx->K, rx->P) != 0)
        return REDIST_ERR_NOMEM;
    int64_t ngroups = group_rows(rx, s, &w);
    order_groups(rx->K, ngroups, &w);
    int rc = 0;
    for (int64_t g = 0; g < ngroups && rc == 0; g++) {
        const int64_t *rows = w.order + w.start[g];
        int64_t n = w.start[g + 1] - w.start[g];
        row_map(rx, s, rows[0], w.at, w.ps, w.map);
        if (is_identity(w.map, rx->P))
            continue;
        redist__row_step *st = add_step(s, n);
        if (st == NULL) {
            rc = REDIST_ERR_NOMEM;
            break;
        }
        memcpy(st->rows, rows, (size_t)n * sizeof *rows);
        memcpy(st->to, w.map, (size_t)rx->P * sizeof *w.map);
    }
    scratch_free(&w);
    return rc;
}

/* ---- indirect and hybrid (Theorem 3 (ii), (iii)) ------------------------------------------ */

/* d1 submatrix-row shifts (low bits of i1 first), d2 in-group shifts, then the direct phase.
   At most d1 + d2 + K steps. */
static int build_shifted(const redist__rx *rx, int d1, int d2, redist__row_schedule *out)
{
    if (sched_init(out, rx, d1 + d2 + rx->K) != 0)
        return REDIST_ERR_NOMEM;
    int rc = 0;
    for (int t = 0; t < d1 && rc == 0; t++)
        rc = add_shift_step(out, rx, SUBMATRIX_ROWS, t);
    for (int t = 0; t < d2 && rc == 0; t++)
        rc = add_shift_step(out, rx, IN_GROUP, t);
    if (rc == 0)
        rc = add_direct_phase(out, rx);
    if (rc != 0)
        redist__rowsched_free(out);
    return rc;
}

int redist__rowsched_indirect(const redist__rx *rx, redist__row_schedule *out)
{
    if (out == NULL)
        return REDIST_ERR_ARG;
    memset(out, 0, sizeof *out);
    if (!valid_rx(rx))
        return REDIST_ERR_ARG;
    return build_shifted(rx, redist__ceil_log2(rx->Kp), redist__ceil_log2(rx->G), out);
}

/* Distinct rows left after shifting the low d1 bits of i1 and the low d2 bits of i2: rows
   whose i1 and i2 agree above those bits have identical maps (Eq. 12), the paper's "sets of
   2^d rows". */
static int64_t rows_left(const redist__rx *rx, int d1, int d2)
{
    return ceil_div(rx->Kp, (int64_t)1 << d1) * ceil_div(rx->G, (int64_t)1 << d2);
}

/* Hybrid d >= 1: clamps *d to the shift steps there are and returns d1, the submatrix-row
   shifts among them (the other *d - d1 shift inside the groups). The shift steps commute, so
   any d of them are "the first d steps" of an indirect schedule. Paper order (submatrix rows
   first, Fig. 10) unless shifting in-group bits first leaves fewer distinct rows: for K = 6,
   P = 8 (K' = 3, G = 2), d = 1 gives 3 rows instead of 4. */
static int hybrid_split(const redist__rx *rx, int *d)
{
    int L1 = redist__ceil_log2(rx->Kp), L2 = redist__ceil_log2(rx->G);
    if (*d > L1 + L2)
        *d = L1 + L2;
    int best = *d < L1 ? *d : L1;
    for (int d1 = best - 1; d1 >= 0 && *d - d1 <= L2; d1--)
        if (rows_left(rx, d1, *d - d1) < rows_left(rx, best, *d - best))
            best = d1;
    return best;
}

int redist__rowsched_hybrid(const redist__rx *rx, int d, redist__row_schedule *out)
{
    if (out == NULL)
        return REDIST_ERR_ARG;
    memset(out, 0, sizeof *out);
    if (!valid_rx(rx) || d < 0)
        return REDIST_ERR_ARG;
    if (d == 0)
        return redist__rowsched_direct(rx, out);
    int d1 = hybrid_split(rx, &d);
    return build_shifted(rx, d1, d - d1, out);
}

/* ---- checking by simulation ------------------------------------------------------------------ */

/* A step's rows are distinct and in range (stamp[] remembers the last step that named a row),
   and its to[] is a permutation of 0..P-1 (seen[] is scratch). */
static int step_ok(const redist__row_step *st, int64_t K, int64_t P, int64_t k, int64_t *stamp,
                   char *seen)
{
    if (st->nrows < 0 || st->nrows > K || (st->nrows > 0 && st->rows == NULL) || st->to == NULL)
        return 0;
    for (int64_t r = 0; r < st->nrows; r++) {
        int64_t i = st->rows[r];
        if (i < 0 || i >= K || stamp[i] == k)
            return 0;
        stamp[i] = k;
    }
    memset(seen, 0, (size_t)P);
    for (int64_t c = 0; c < P; c++) {
        if (st->to[c] < 0 || st->to[c] >= P || seen[st->to[c]])
            return 0;
        seen[st->to[c]] = 1;
    }
    return 1;
}

/* Applies a valid step to the table cell[i * P + c] = origin column of the unit there,
   counting moves per unit (moves[i * P + origin], saturating at 2: only "relayed" matters).
   tmp[] is scratch [P]. */
static void apply_step(const redist__row_step *st, int64_t P, int64_t *cell, unsigned char *moves,
                       int64_t *tmp, redist__rowsched_stats *sts)
{
    int64_t senders = 0;
    for (int64_t c = 0; c < P; c++)
        senders += st->to[c] != c;
    if (st->nrows > 0) {
        sts->messages += senders;
        if (senders > 0 && st->nrows > sts->max_units_per_message)
            sts->max_units_per_message = st->nrows;
    }
    for (int64_t r = 0; r < st->nrows; r++) {
        int64_t *row = cell + st->rows[r] * P;
        for (int64_t c = 0; c < P; c++) {
            tmp[st->to[c]] = row[c];
            if (st->to[c] != c) {
                unsigned char *m = &moves[st->rows[r] * P + row[c]];
                *m += *m < 2;
                sts->unit_moves++;
            }
        }
        memcpy(row, tmp, (size_t)P * sizeof *row);
    }
}

/* Every unit (i, j) in column P_s(i, j); counts the units moved more than once. */
static int final_ok(const redist__rx *rx, const int64_t *cell, const unsigned char *moves,
                    redist__rowsched_stats *st)
{
    int64_t K = rx->K, P = rx->P;
    for (int64_t i = 0; i < K; i++)
        for (int64_t c = 0; c < P; c++) {
            if (redist__rx_Ps(rx, i, cell[i * P + c]) != c)
                return REDIST_ERR_MISMATCH;
            st->relayed_units += moves[i * P + c] > 1;
        }
    return 0;
}

int redist__rowsched_check(const redist__rx *rx, const redist__row_schedule *s,
                           redist__rowsched_stats *st)
{
    if (st == NULL)
        return REDIST_ERR_ARG;
    memset(st, 0, sizeof *st);
    if (!valid_rx(rx) || s == NULL || s->K != rx->K || s->P != rx->P || s->nsteps < 0 ||
        (s->nsteps > 0 && s->steps == NULL))
        return REDIST_ERR_ARG;
    st->steps = s->nsteps;
    int64_t K = rx->K, P = rx->P;
    int64_t *cell = redist__malloc((size_t)(K * P) * sizeof *cell);
    unsigned char *moves = redist__calloc((size_t)(K * P), 1);
    int64_t *tmp = redist__malloc((size_t)P * sizeof *tmp),
            *stamp = redist__malloc((size_t)K * sizeof *stamp);
    char *seen = redist__malloc((size_t)P);
    int rc = cell && moves && tmp && stamp && seen ? 0 : REDIST_ERR_NOMEM;
    for (int64_t i = 0; rc == 0 && i < K; i++) {
        stamp[i] = -1;
        for (int64_t c = 0; c < P; c++)
            cell[i * P + c] = c;
    }
    for (int64_t k = 0; rc == 0 && k < s->nsteps; k++) {
        if (!step_ok(&s->steps[k], K, P, k, stamp, seen))
            rc = REDIST_ERR_ARG;
        else
            apply_step(&s->steps[k], P, cell, moves, tmp, st);
    }
    if (rc == 0)
        rc = final_ok(rx, cell, moves, st);
    redist__free(cell);
    redist__free(moves);
    redist__free(tmp);
    redist__free(stamp);
    redist__free(seen);
    return rc;
}

/* ---- the shift table: any exchange on P ranks (Bruck et al.'s log-step all-to-all) -------
 *
 * Row r (1 <= r < P) holds, at column j, the message from rank j to rank (j + r) mod P: the
 * shift table is a circulant, the all-to-all case of [LBP96]'s generalized circulant
 * (K >= P). Step k moves the rows with bit k of r set by 2^k columns, so after
 * ceil(log2 P) steps every unit has moved by r. The hybrid stops after d bit-steps and
 * moves the rows with equal r >> d together by (r >> d) << d: d + ceil(P / 2^d) - 1 steps. */

static int bruck_init(redist__row_schedule *s, int64_t P, int64_t cap)
{
    redist__rx shape = {.K = P, .P = P};
    return sched_init(s, &shape, cap);
}

static int shift_step(redist__row_schedule *s, int64_t P, int64_t by, int64_t mask, int64_t value,
                      int by_high_bits)
{
    int64_t n = 0;
    for (int64_t r = 1; r < P; r++)
        n += by_high_bits ? (r & mask) == value : (r & mask) != 0;
    if (n == 0)
        return 0;
    redist__row_step *st = add_step(s, n);
    if (st == NULL)
        return REDIST_ERR_NOMEM;
    n = 0;
    for (int64_t r = 1; r < P; r++)
        if (by_high_bits ? (r & mask) == value : (r & mask) != 0)
            st->rows[n++] = r;
    for (int64_t c = 0; c < P; c++)
        st->to[c] = (c + by) % P;
    return 0;
}

int redist__rowsched_bruck(int64_t P, int d, redist__row_schedule *out)
{
    if (out == NULL)
        return REDIST_ERR_ARG;
    memset(out, 0, sizeof *out);
    if (P < 1)
        return REDIST_ERR_ARG;
    int L = redist__ceil_log2(P), bits = d < 0 || d > L ? L : d;
    int64_t groups = (P - 1) >> bits;
    if (bruck_init(out, P, bits + groups + 1) != 0)
        return REDIST_ERR_NOMEM;
    int err = 0;
    for (int k = 0; err == 0 && k < bits; k++)
        err = shift_step(out, P, (int64_t)1 << k, (int64_t)1 << k, 0, 0);
    int64_t high = ~(((int64_t)1 << bits) - 1);
    for (int64_t g = 1; err == 0 && g <= groups; g++)
        err = shift_step(out, P, g << bits, high, g << bits, 1);
    if (err != 0)
        redist__rowsched_free(out);
    return err;
}

int redist__rowsched_bruck_steps(int64_t P, int d)
{
    int L = redist__ceil_log2(P), bits = d < 0 || d > L ? L : d;
    int n = 0;
    for (int k = 0; k < bits; k++) /* a bit-step exists if some r < P has bit k set */
        n += ((int64_t)1 << k) < P;
    return n + (int)((P - 1) >> bits);
}

/* ---- step counts in closed form (the cost model, the simulator) ---------------------------
 *
 * The builders' nsteps without building anything: O(log K) time, no memory, so any P. After
 * d1 submatrix-row shifts and d2 in-group shifts, row i = i1 G + i2 has moved by the low d1
 * bits a1 of i1 and the low d2 bits a2 of i2, so by Eq. (12) its remaining map takes column
 * ((j1 - a1) mod P') G + (j2 - a2) mod G to n (j1 - h1) mod P' + P' ((h2 - j2) mod G), with
 * h1 = i1 - a1, h2 = i2 - a2. The image of column 0 determines (h1, h2) (n K' = 1 mod P', so
 * n is invertible mod P'; h1 < K' <= P', h2 < G): the direct phase has exactly rows_left(d1,
 * d2) groups. Only the group of row 0 (h1 = h2 = 0, map P_s(0, .)) can be in place, and it is
 * iff P_s(0, j) = j for all j: with G = 1 that needs n = 1 mod P, i.e. K = 1; with G > 1,
 * j = 1 needs P' (G - 1) = 1, i.e. K = P = 2. */
static int row0_in_place(const redist__rx *rx)
{
    return redist__rx_moving_rows(rx) < rx->K;
}

int redist__rowsched_indirect_steps(const redist__rx *rx)
{
    if (!valid_rx(rx) || rx->K > INT_MAX)
        return -1;
    return redist__rowsched_max_degree(rx) + !row0_in_place(rx);
}

int redist__rowsched_hybrid_steps(const redist__rx *rx, int d)
{
    if (!valid_rx(rx) || rx->K > INT_MAX || d < 0)
        return -1;
    if (d == 0)
        return (int)rx->K; /* direct: every row a step */
    int d1 = hybrid_split(rx, &d);
    return d + (int)(rows_left(rx, d1, d - d1) - row0_in_place(rx));
}

void redist__multiphase_counts(int64_t K, int64_t P, int *steps, int *phases)
{
    int64_t f[REDIST__MAX_PRIME_FACTORS];
    *phases = K >= 1 ? redist__prime_factors(K, f) : 0;
    *steps = 0;
    for (int i = 0; i < *phases; i++) {
        redist__rx phase;
        if (f[i] <= P && redist__rx_init(f[i], P, &phase) == 0)
            *steps += (int)redist__rx_moving_rows(&phase);
        else
            *steps += (int)(P - 1); /* an all-to-all phase: P - 1 shift steps */
    }
}
