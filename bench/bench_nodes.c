/* bench_nodes: node-aware against flat schedules on several nodes (docs/performance.md, "Many
 * nodes").
 *
 * Two cases, at message sizes of 64 B to 1 MiB per pair of ranks that exchange one:
 *   1-D   cyclic(1) -> cyclic(3) of N = 3 P e doubles: each rank sends to 3 ranks, e doubles
 *         each (e = size / 8);
 *   2-D   row blocks -> column blocks of a P a x P b matrix (grid P x 1 -> 1 x P, row-major,
 *         b = 2 a, a b = e): every rank sends to every rank a block of a x b doubles.
 * Each size times, in the same run and round-robin (the order turns each trial), node-aware,
 * direct-async (the flat schedule), direct, the library's alltoallv (MPI_Alltoallv of the
 * packed messages), a hand-made MPI_Alltoallv of the same messages (packed through index
 * lists made beforehand, unpacked alike) and auto (the algorithm it picks named). A trial is
 * a batch of executes long enough to time, its time the slowest rank's average; the median
 * of the trials is reported. Every method's result is checked element by element once,
 * before timing. The table gives the
 * medians, node-aware over direct-async and over the hand-made MPI_Alltoallv, the cost
 * model's predictions (redist_plan_stats' predicted_seconds) of node-aware and direct-async
 * over the measured times, and the crossover: the first size from which node-aware stops
 * winning (measured and predicted).
 *
 * Nodes are those plans see: MPI_COMM_TYPE_SHARED, or REDIST_RANKS_PER_NODE=k's virtual
 * nodes of k ranks. The model's network parameters come from the machine file
 * (REDIST_MACHINE_FILE): calibrate on the same nodes first (bench/run_nodes.sh does both).
 *
 *   mpiexec -n 8 build/bench_nodes [--case 1d|2d|both] [--min BYTES] [--max BYTES]
 *                                  [--reps R] [--batch SECONDS] [--check 0|1] [--csv FILE]
 *
 * --check 0 makes the library's plans skip the argument agreement of each execute
 * (redist_options.check_arguments = 0: no MPI_Iallreduce), which the hand-made exchange has
 * not either.
 */
#include "bench_common.h"

#include <string.h>

#include "model/model.h"

enum { CASE_1D, CASE_2D };

/* One case at one size: the layouts' index maps (global index g of a rank's local element l,
   and the owner of g), as the layouts below store them. Both sides list a rank's elements in
   increasing global order, so the elements one rank sends another lie in the same order on
   both sides. */
typedef struct shape {
    int kind, P;
    int64_t e;    /* doubles per message */
    int64_t a, b; /* 2-D: the a x b block of a pair; the matrix is P a x P b */
    int64_t n;    /* elements in all */
} shape;

static int64_t src_local_count(const shape *s)
{
    return s->n / s->P;
}

static int64_t dst_local_count(const shape *s)
{
    return s->n / s->P;
}

static int64_t src_global(const shape *s, int r, int64_t l)
{
    if (s->kind == CASE_1D) /* cyclic(1) */
        return l * s->P + r;
    int64_t cols = s->P * s->b; /* row block r: rows r a .. r a + a - 1, all columns */
    return (r * s->a + l / cols) * cols + l % cols;
}

static int64_t dst_global(const shape *s, int r, int64_t l)
{
    if (s->kind == CASE_1D) /* cyclic(3) */
        return (l / 3) * 3 * s->P + 3 * (int64_t)r + l % 3;
    int64_t cols = s->P * s->b; /* column block r: all rows, columns r b .. r b + b - 1 */
    return (l / s->b) * cols + r * s->b + l % s->b;
}

static int src_owner(const shape *s, int64_t g)
{
    return s->kind == CASE_1D ? (int)(g % s->P) : (int)(g / (s->P * s->b) / s->a);
}

static int dst_owner(const shape *s, int64_t g)
{
    return s->kind == CASE_1D ? (int)(g / 3 % s->P) : (int)(g % (s->P * s->b) / s->b);
}

static double value_of(int64_t g)
{
    return (double)g + 0.5;
}

static void make_layouts(const shape *s, redist_layout *src, redist_layout *dst)
{
    if (s->kind == CASE_1D) {
        int64_t one = 1, three = 3;
        redist_layout_create(1, &s->n, &one, &s->P, NULL, NULL, REDIST_ROW_MAJOR, src);
        redist_layout_create(1, &s->n, &three, &s->P, NULL, NULL, REDIST_ROW_MAJOR, dst);
        return;
    }
    int64_t ext[2] = {s->P * s->a, s->P * s->b};
    int64_t rows[2] = {s->a, ext[1]}, cols[2] = {ext[0], s->b};
    int grid_rows[2] = {s->P, 1}, grid_cols[2] = {1, s->P};
    redist_layout_create(2, ext, rows, grid_rows, NULL, NULL, REDIST_ROW_MAJOR, src);
    redist_layout_create(2, ext, cols, grid_cols, NULL, NULL, REDIST_ROW_MAJOR, dst);
}

/* The hand-made exchange: where each rank's elements go (sidx: local src indices grouped by
   destination rank), where they land (ridx: local dst indices grouped by source rank). */
typedef struct handmade {
    int *scount, *sdispl, *rcount, *rdispl;
    int64_t *sidx, *ridx;
    double *sbuf, *rbuf;
    int64_t ns, nd;
} handmade;

static void group_by(const shape *s, int rank, int is_src, int *count, int *displ, int64_t **idx)
{
    int64_t nl = is_src ? src_local_count(s) : dst_local_count(s);
    memset(count, 0, sizeof(int) * (size_t)s->P);
    for (int64_t l = 0; l < nl; l++) {
        int64_t g = is_src ? src_global(s, rank, l) : dst_global(s, rank, l);
        count[is_src ? dst_owner(s, g) : src_owner(s, g)]++;
    }
    int *at = malloc(sizeof(int) * (size_t)s->P);
    for (int q = 0, d = 0; q < s->P; d += count[q++])
        displ[q] = at[q] = d;
    *idx = malloc(sizeof(int64_t) * (size_t)(nl > 0 ? nl : 1));
    for (int64_t l = 0; l < nl; l++) {
        int64_t g = is_src ? src_global(s, rank, l) : dst_global(s, rank, l);
        (*idx)[at[is_src ? dst_owner(s, g) : src_owner(s, g)]++] = l;
    }
    free(at);
}

static void handmade_init(handmade *h, const shape *s, int rank)
{
    size_t p = (size_t)s->P;
    h->scount = malloc(sizeof(int) * p), h->sdispl = malloc(sizeof(int) * p);
    h->rcount = malloc(sizeof(int) * p), h->rdispl = malloc(sizeof(int) * p);
    group_by(s, rank, 1, h->scount, h->sdispl, &h->sidx);
    group_by(s, rank, 0, h->rcount, h->rdispl, &h->ridx);
    h->ns = src_local_count(s), h->nd = dst_local_count(s);
    h->sbuf = malloc(sizeof(double) * (size_t)(h->ns > 0 ? h->ns : 1));
    h->rbuf = malloc(sizeof(double) * (size_t)(h->nd > 0 ? h->nd : 1));
}

static void handmade_run(const handmade *h, const double *a, double *b)
{
    for (int64_t i = 0; i < h->ns; i++)
        h->sbuf[i] = a[h->sidx[i]];
    MPI_Alltoallv(h->sbuf, h->scount, h->sdispl, MPI_DOUBLE, h->rbuf, h->rcount, h->rdispl,
                  MPI_DOUBLE, MPI_COMM_WORLD);
    for (int64_t i = 0; i < h->nd; i++)
        b[h->ridx[i]] = h->rbuf[i];
}

static void handmade_free(handmade *h)
{
    free(h->scount), free(h->sdispl), free(h->rcount), free(h->rdispl);
    free(h->sidx), free(h->ridx), free(h->sbuf), free(h->rbuf);
}

/* ---- methods -------------------------------------------------------------------------------- */

enum { NODE_AWARE, DIRECT_ASYNC, DIRECT, ALLTOALLV, HANDMADE, AUTO, NMETHODS };
static const char *const method_name[NMETHODS] = {"node-aware", "direct-async",  "direct",
                                                  "alltoallv",  "MPI_Alltoallv", "auto"};

typedef struct method_state {
    redist_plan plan; /* NULL: the hand-made exchange, or not applicable */
    int applicable, wrong;
    int reps_per_trial;
    double predicted, median;
    int64_t off_node_messages; /* the most any rank sends off its node */
    double *t;                 /* [trials] */
} method_state;

static int run_once(method_state *m, const handmade *h, const double *a, double *b)
{
    if (m->plan == NULL) {
        handmade_run(h, a, b);
        return REDIST_SUCCESS;
    }
    return redist_execute(m->plan, a, b);
}

/* The slowest rank's average over reps executes. */
static double batch(method_state *m, const handmade *h, const double *a, double *b, int reps)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < reps; i++)
        run_once(m, h, a, b);
    double mine = (MPI_Wtime() - t0) / reps, slowest;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return slowest;
}

static int64_t count_wrong(const shape *s, int rank, const double *b)
{
    int64_t bad = 0, nd = dst_local_count(s);
    for (int64_t l = 0; l < nd; l++)
        bad += b[l] != value_of(dst_global(s, rank, l));
    return bad;
}

/* ---- one size ------------------------------------------------------------------------------- */

typedef struct row {
    int64_t bytes; /* per message */
    double median[NMETHODS], predicted[NMETHODS];
    int ok[NMETHODS];
    char auto_pick[32];
} row;

typedef struct run_opts {
    int reps, check; /* check: redist_options.check_arguments of the library's plans */
    double batch_seconds;
} run_opts;

static int run_size(const shape *s, int rank, const run_opts *o, row *out, int64_t off_node[])
{
    redist_layout src = NULL, dst = NULL;
    make_layouts(s, &src, &dst);
    int64_t ns = src_local_count(s), nd = dst_local_count(s);
    double *a = bench_doubles(0, ns), *b = bench_doubles(0, nd);
    for (int64_t l = 0; l < ns; l++)
        a[l] = value_of(src_global(s, rank, l));
    handmade h;
    handmade_init(&h, s, rank);
    method_state m[NMETHODS];
    int failed = 0;
    snprintf(out->auto_pick, sizeof out->auto_pick, "?");
    memset(m, 0, sizeof m);
    for (int k = 0; k < NMETHODS; k++) {
        m[k].t = calloc((size_t)o->reps, sizeof(double));
        if (k != HANDMADE) {
            redist_options opt;
            redist_options_init(&opt);
            opt.algorithm = method_name[k];
            opt.check_arguments = o->check;
            int rc = redist_plan_create(src, dst, MPI_DOUBLE, MPI_COMM_WORLD, &opt, &m[k].plan);
            if (rc != REDIST_SUCCESS) {
                if (rc != REDIST_ERR_NOT_APPLICABLE && rank == 0)
                    printf("  %s: plan failed: %s\n", method_name[k], redist_last_error_detail());
                failed |= rc != REDIST_ERR_NOT_APPLICABLE;
                m[k].plan = NULL;
                continue;
            }
            redist_stats st;
            redist_plan_stats(m[k].plan, &st);
            m[k].predicted = st.predicted_seconds;
            if (k == AUTO)
                snprintf(out->auto_pick, sizeof out->auto_pick, "%s",
                         redist_plan_algorithm(m[k].plan));
            MPI_Allreduce(&st.messages_off_node, &m[k].off_node_messages, 1, MPI_INT64_T, MPI_MAX,
                          MPI_COMM_WORLD);
        }
        m[k].applicable = 1;
        /* checked element by element once (this execute also warms the method up) */
        for (int64_t l = 0; l < nd; l++)
            b[l] = -1.0;
        int64_t bad =
            run_once(&m[k], &h, a, b) == REDIST_SUCCESS ? count_wrong(s, rank, b) : nd + 1;
        MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
        m[k].wrong = bad != 0;
        failed |= m[k].wrong;
        if (m[k].wrong && rank == 0)
            printf("  %s: %lld wrong elements\n", method_name[k], (long long)bad);
    }
    /* executes per trial: enough for batch_seconds (the same on every rank) */
    for (int k = 0; k < NMETHODS; k++) {
        if (!m[k].applicable || m[k].wrong)
            continue;
        double once = batch(&m[k], &h, a, b, 1);
        int reps = once > 0 ? (int)(o->batch_seconds / once) : 100;
        m[k].reps_per_trial = reps < 1 ? 1 : reps > 200 ? 200 : reps;
    }
    for (int t = 0; t < o->reps; t++)
        for (int i = 0; i < NMETHODS; i++) {
            int k = (i + t) % NMETHODS; /* round-robin: each method first in turn */
            if (m[k].applicable && !m[k].wrong)
                m[k].t[t] = batch(&m[k], &h, a, b, m[k].reps_per_trial);
        }
    for (int k = 0; k < NMETHODS; k++) {
        out->ok[k] = m[k].applicable && !m[k].wrong;
        out->median[k] = out->ok[k] ? bench_median(m[k].t, o->reps) : 0;
        out->predicted[k] = m[k].predicted;
        off_node[k] = m[k].off_node_messages;
        if (m[k].plan != NULL)
            redist_plan_free(&m[k].plan);
        free(m[k].t);
    }
    handmade_free(&h);
    free(a), free(b);
    redist_layout_free(&src), redist_layout_free(&dst);
    return failed;
}

/* ---- the report ----------------------------------------------------------------------------- */

static void fmt_bytes(char *buf, size_t len, int64_t b)
{
    if (b >= (1 << 20) && b % (1 << 20) == 0)
        snprintf(buf, len, "%lld MiB", (long long)(b >> 20));
    else if (b >= 1024 && b % 1024 == 0)
        snprintf(buf, len, "%lld KiB", (long long)(b >> 10));
    else
        snprintf(buf, len, "%lld B", (long long)b);
}

/* The first size from which node-aware stops beating `against` (measured or predicted): the
   size after the last one where it wins. */
static void crossover(const char *what, const row *rows, int nrows, int predicted, int against)
{
    int last_win = -1, first_loss = -1, compared = 0;
    for (int i = 0; i < nrows; i++) {
        const row *r = &rows[i];
        if (!r->ok[NODE_AWARE] || !r->ok[against])
            continue;
        double na = predicted ? r->predicted[NODE_AWARE] : r->median[NODE_AWARE],
               fl = predicted ? r->predicted[against] : r->median[against];
        compared++;
        if (na < fl)
            last_win = i;
        else if (first_loss < 0)
            first_loss = i;
    }
    char s1[32], s2[32];
    printf("  %-24s against %-14s ", what, method_name[against]);
    if (compared == 0)
        printf("nothing to compare\n");
    else if (last_win < 0)
        printf("node-aware never wins\n");
    else if (first_loss < 0)
        printf("node-aware wins at every size\n");
    else {
        fmt_bytes(s1, sizeof s1, rows[last_win].bytes);
        if (last_win + 1 < nrows) {
            fmt_bytes(s2, sizeof s2, rows[last_win + 1].bytes);
            printf("node-aware wins up to %s, loses from %s", s1, s2);
        } else {
            printf("node-aware wins at %s, the largest size", s1);
        }
        if (first_loss < last_win) {
            fmt_bytes(s1, sizeof s1, rows[first_loss].bytes);
            printf(" (but lost at %s)", s1);
        }
        printf("\n");
    }
}

static void print_rows(const char *title, const row *rows, int nrows, FILE *csv, const char *tag,
                       int P)
{
    printf("\n%s\n", title);
    printf("%9s %11s %12s %11s %11s %13s %11s %8s %8s %11s %11s %8s %8s  %s\n", "message",
           "node-aware", "direct-async", "direct", "alltoallv", "MPI_Alltoallv", "auto", "NA/flat",
           "NA/a2av", "pred NA", "pred flat", "NA p/m", "flat p/m", "auto picks");
    for (int i = 0; i < nrows; i++) {
        const row *r = &rows[i];
        char size[32], cell[NMETHODS][24];
        fmt_bytes(size, sizeof size, r->bytes);
        for (int k = 0; k < NMETHODS; k++) {
            if (r->ok[k])
                snprintf(cell[k], sizeof cell[k], "%.1f", r->median[k] * 1e6);
            else
                snprintf(cell[k], sizeof cell[k], "n/a");
        }
        int na = r->ok[NODE_AWARE], fl = r->ok[DIRECT_ASYNC], hm = r->ok[HANDMADE];
        printf("%9s %11s %12s %11s %11s %13s %11s", size, cell[0], cell[1], cell[2], cell[3],
               cell[4], cell[5]);
        if (na && fl)
            printf(" %8.2f", r->median[NODE_AWARE] / r->median[DIRECT_ASYNC]);
        else
            printf(" %8s", "-");
        if (na && hm)
            printf(" %8.2f", r->median[NODE_AWARE] / r->median[HANDMADE]);
        else
            printf(" %8s", "-");
        printf(" %11.1f %11.1f", na ? r->predicted[NODE_AWARE] * 1e6 : 0.0,
               fl ? r->predicted[DIRECT_ASYNC] * 1e6 : 0.0);
        if (na)
            printf(" %8.2f", r->predicted[NODE_AWARE] / r->median[NODE_AWARE]);
        else
            printf(" %8s", "-");
        if (fl)
            printf(" %8.2f", r->predicted[DIRECT_ASYNC] / r->median[DIRECT_ASYNC]);
        else
            printf(" %8s", "-");
        printf("  %s\n", r->auto_pick);
        if (csv != NULL)
            for (int k = 0; k < NMETHODS; k++)
                fprintf(csv, "%s,%d,%lld,%s,%d,%.9g,%.9g,%s\n", tag, P, (long long)r->bytes,
                        method_name[k], r->ok[k], r->median[k], k == HANDMADE ? 0 : r->predicted[k],
                        r->auto_pick);
    }
    printf("  (times: medians in us; NA/flat = node-aware / direct-async, NA/a2av = node-aware / "
           "MPI_Alltoallv; pred: the model's us; p/m: predicted / measured)\n");
    crossover("crossover (measured)", rows, nrows, 0, DIRECT_ASYNC);
    crossover("crossover (measured)", rows, nrows, 0, HANDMADE);
    crossover("crossover (model)", rows, nrows, 1, DIRECT_ASYNC);
}

static void usage(void)
{
    fprintf(stderr, "usage: mpiexec -n P bench_nodes [--case 1d|2d|both] [--min BYTES] "
                    "[--max BYTES] [--reps R] [--batch SECONDS] [--check 0|1] [--csv FILE]\n");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    int64_t min_bytes = 64, max_bytes = 1 << 20;
    int cases = 3; /* bit 0: 1-D, bit 1: 2-D */
    run_opts o = {7, 1, 0.02};
    const char *csv_path = NULL;
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (v == NULL) {
            if (rank == 0)
                usage();
            MPI_Finalize();
            return 2;
        }
        if (!strcmp(argv[i], "--case"))
            cases = !strcmp(v, "1d") ? 1 : !strcmp(v, "2d") ? 2 : !strcmp(v, "both") ? 3 : 0;
        else if (!strcmp(argv[i], "--min"))
            min_bytes = atoll(v);
        else if (!strcmp(argv[i], "--max"))
            max_bytes = atoll(v);
        else if (!strcmp(argv[i], "--reps"))
            o.reps = atoi(v);
        else if (!strcmp(argv[i], "--batch"))
            o.batch_seconds = atof(v);
        else if (!strcmp(argv[i], "--check"))
            o.check = !strcmp(v, "0") ? 0 : !strcmp(v, "1") ? 1 : -1;
        else if (!strcmp(argv[i], "--csv"))
            csv_path = v;
        else
            cases = 0;
        i++;
        if (cases == 0 || o.reps < 1 || o.check < 0 || min_bytes < 64 || max_bytes < min_bytes) {
            if (rank == 0)
                usage();
            MPI_Finalize();
            return 2;
        }
    }
    /* the nodes plans see (one plan's stats) and the model's parameters */
    redist_stats st;
    memset(&st, 0, sizeof st);
    {
        int64_t n = P, one = 1;
        redist_layout l = NULL;
        redist_plan plan = NULL;
        redist_layout_create(1, &n, &one, &P, NULL, NULL, REDIST_ROW_MAJOR, &l);
        if (redist_plan_create(l, l, MPI_DOUBLE, MPI_COMM_WORLD, NULL, &plan) == REDIST_SUCCESS)
            redist_plan_stats(plan, &st);
        redist_plan_free(&plan);
        redist_layout_free(&l);
    }
    if (rank == 0) {
        redist__machine m;
        char source[512];
        redist__machine_current(&m, source, sizeof source);
        const char *rpn = getenv("REDIST_RANKS_PER_NODE");
        printf("bench_nodes: %d ranks on %d nodes of up to %d ranks (%s)\n", P, st.nodes,
               st.ranks_per_node,
               rpn != NULL && rpn[0] ? "REDIST_RANKS_PER_NODE's virtual nodes"
                                     : "MPI_COMM_TYPE_SHARED");
        printf("model: %s\n  remote_startup %.3g us, remote_per_byte %.3g ns/B (%.3g GB/s), "
               "startup %.3g us, per_byte %.3g ns/B, per_message %.3g us, copy_per_byte %.3g "
               "ns/B\n",
               source, m.remote_startup * 1e6, m.remote_per_byte * 1e9,
               m.remote_per_byte > 0 ? 1e-9 / m.remote_per_byte : 0.0, m.startup * 1e6,
               m.per_byte * 1e9, m.per_message * 1e6, m.copy_per_byte * 1e9);
        printf("medians of %d trials of executes lasting about %.3g s each, round-robin; "
               "every result checked once; the library's executes %s their arguments\n",
               o.reps, o.batch_seconds,
               o.check ? "agree on" : "do not agree on (check_arguments = 0)");
    }
    FILE *csv = rank == 0 && csv_path ? fopen(csv_path, "w") : NULL;
    if (csv != NULL)
        fprintf(csv, "case,P,message_bytes,method,ok,median_s,predicted_s,auto\n");
    int failed = 0, nsizes = 0;
    for (int64_t bytes = min_bytes; bytes <= max_bytes; bytes *= 4)
        nsizes++;
    row *rows = calloc((size_t)nsizes, sizeof *rows);
    for (int kind = CASE_1D; kind <= CASE_2D; kind++) {
        if (!(cases & (1 << kind)))
            continue;
        int64_t off[NMETHODS], first_off[NMETHODS] = {0};
        int i = 0;
        for (int64_t bytes = min_bytes; bytes <= max_bytes; bytes *= 4, i++) {
            shape s = {kind, P, bytes / 8, 0, 0, 0};
            if (kind == CASE_1D) {
                s.n = 3 * (int64_t)P * s.e;
            } else { /* a x 2a = e, rounded to a power of two */
                int64_t a = 1;
                while (2 * (2 * a) * (2 * a) <= s.e)
                    a *= 2;
                s.a = a, s.b = 2 * a, s.e = s.a * s.b;
                s.n = (int64_t)P * s.a * P * s.b;
            }
            rows[i].bytes = 8 * s.e;
            failed |= run_size(&s, rank, &o, &rows[i], off);
            if (i == 0)
                memcpy(first_off, off, sizeof off);
        }
        if (rank == 0) {
            char title[256];
            snprintf(title, sizeof title,
                     "%s on %d ranks: off-node messages per rank at most %lld (node-aware), "
                     "%lld (direct-async)",
                     kind == CASE_1D ? "1-D cyclic(1) -> cyclic(3)"
                                     : "2-D row blocks -> column blocks (every rank to every rank)",
                     P, (long long)first_off[NODE_AWARE], (long long)first_off[DIRECT_ASYNC]);
            print_rows(title, rows, i, csv, kind == CASE_1D ? "1d" : "2d", P);
        }
    }
    if (rank == 0 && failed)
        printf("bench_nodes: FAILED (wrong elements or errors above)\n");
    if (csv != NULL)
        fclose(csv);
    free(rows);
    MPI_Finalize();
    return failed;
}
