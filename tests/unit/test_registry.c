/* link: redist */
/* Serial test of the registry and of every algorithm's rules on the papers' cases, no MPI.
 *
 * - The registry: every algorithm has its rules (applicable, steps, predict, transports) and
 *   its run functions; names are unique and the public list is "auto" then the table.
 * - Each algorithm's prediction equals the formula its file states, recomputed here from the
 *   case's traffic and an explicit machine (so a changed formula must change its comment and
 *   this test together): [LBP96]'s direct, indirect, hybrid, multiphase, alltoall-padded,
 *   direct-async; [TCR96]'s general, ky-to-y, x-to-kx, gcd, lcm; [Cor97]'s bmmc; the
 *   alltoallv and alltoallw baselines.
 * - Step counts on the papers' examples ([LBP96] Fig. 2 and Table 1: R_x(3, 4), R_x(6, 9),
 *   the lcm route, multiphase through the prime factors) and applicability where each
 *   algorithm's case holds and only there.
 * - auto's choice is the applicable algorithm with the smallest prediction.
 */
#include "algo/algo.h"
#include "bmmc/factor.h"
#include "index/rowsched.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "support/check.h"

/* Not the defaults: the formulas are checked for any parameters. */
static const redist__machine machine = {.startup = 40e-6,
                                        .per_message = 3e-6,
                                        .per_byte = 35e-9,
                                        .copy_per_byte = 1e-9,
                                        .copy_per_run = 2e-9,
                                        .per_piece = 20e-9,
                                        .window_per_byte = 3e-9,
                                        .per_index = 7e-9,
                                        .shared_node = 0};

static int close_to(double a, double b)
{
    return fabs(a - b) <= 1e-12 + 1e-9 * fabs(b);
}

static const redist__algorithm *algo(const char *name)
{
    const redist__algorithm *a = redist__algorithm_by_name(name);
    CHECK(a != NULL, "no algorithm '%s'", name);
    return a;
}

static redist_layout line(int64_t n, int64_t block, int P)
{
    redist_layout l = NULL;
    CHECK(redist_layout_create(1, &n, &block, &P, NULL, NULL, REDIST_ROW_MAJOR, &l) == 0,
          "layout n=%lld block=%lld P=%d", (long long)n, (long long)block, P);
    return l;
}

/* The case of a 1-D pair on P ranks, doubles. */
static redist__case case_of(int64_t n, int64_t x, int64_t y, int P, redist_layout ls[2])
{
    redist__case c;
    ls[0] = line(n, x, P);
    ls[1] = line(n, y, P);
    memset(&c, 0, sizeof c);
    CHECK(redist__pair_case(ls[0], ls[1], P, 8, &c, NULL, NULL) == 0, "pair case");
    return c;
}

static void free_pair(redist_layout ls[2])
{
    redist_layout_free(&ls[0]);
    redist_layout_free(&ls[1]);
}

static void check_registry(void)
{
    const redist__algorithm *const *table;
    int n = redist__algorithms(&table);
    CHECK(n >= 14, "%d algorithms registered", n);
    CHECK(redist_algorithm_count() == n + 1, "public count %d, registry %d",
          redist_algorithm_count(), n);
    CHECK(strcmp(redist_algorithm_name(0), "auto") == 0, "the public list starts with auto");
    CHECK(redist_algorithm_name(n + 1) == NULL && redist_algorithm_name(-1) == NULL,
          "names out of range");
    for (int i = 0; i < n; i++) {
        const redist__algorithm *a = table[i];
        CHECK(a->name != NULL && a->name[0] != '\0', "algorithm %d has no name", i);
        if (a->name == NULL)
            continue;
        CHECK(strcmp(redist_algorithm_name(i + 1), a->name) == 0, "public name %d", i + 1);
        CHECK(redist__algorithm_by_name(a->name) == a, "%s: lookup by name", a->name);
        CHECK(a->applicable != NULL, "%s has no applicable", a->name);
        CHECK(a->applicable == redist__always_applicable ||
                  (a->why_not != NULL && strncmp(a->why_not, "needs ", 6) == 0),
              "%s: no why_not saying what applicable needs", a->name);
        CHECK(a->steps != NULL, "%s has no steps", a->name);
        CHECK(a->predict != NULL, "%s has no predict", a->name);
        CHECK(a->transports != 0 &&
                  (a->transports & ~(unsigned)(REDIST__T_PACK | REDIST__T_DATATYPE)) == 0,
              "%s: transports %#x", a->name, a->transports);
        CHECK(a->setup && a->start && a->progress && a->destroy, "%s lacks a run function",
              a->name);
        CHECK((a->check_options == NULL) == (a->fingerprint_options == NULL),
              "%s: an option checked but not agreed (or the reverse)", a->name);
        for (int j = 0; j < i; j++)
            CHECK(strcmp(table[j]->name, a->name) != 0, "%s registered twice", a->name);
    }
    CHECK(redist__algorithm_by_name("auto") == NULL, "auto is not an algorithm");
}

/* The transports' moves (model.h, redist__cost_moves), restated. */
static double moves(const redist__case *c, int transport)
{
    const redist__traffic *t = &c->t;
    double copy = machine.copy_per_byte * (double)t->max_copy_bytes +
                  machine.copy_per_run * (double)t->max_self_runs,
           B = (double)t->max_bytes;
    if (transport == REDIST_TRANSPORT_DATATYPE)
        return copy + machine.per_byte * B + machine.per_piece * (double)t->max_pieces;
    double fresh =
        machine.per_byte > machine.window_per_byte ? machine.per_byte : machine.window_per_byte;
    return copy + 2 * machine.copy_per_byte * B + machine.copy_per_run * (double)t->max_runs +
           fresh * B;
}

/* [LBP96] Corollary 2 for a relay schedule (relay.h), restated. */
static double relay(const redist__case *c, int steps, int shifts)
{
    double D = (double)c->t.max_local_bytes, c1 = machine.copy_per_byte;
    return steps * machine.startup + (shifts * D / 2 + D) * (machine.per_byte + 2 * c1) +
           2 * D * c1;
}

static double predicted(const char *name, const redist__case *c, const redist_options *opt,
                        int transport)
{
    return algo(name)->predict(c, &machine, opt, transport);
}

static int steps_of(const char *name, const redist__case *c, const redist_options *opt)
{
    return algo(name)->steps(c, &machine, opt);
}

/* [TCR96]'s index work (tcr96.h): per_index per block of min(x, y) on each side, 1-D; the
   pattern's pieces in N-D. */
static double block_work(const redist__case *c)
{
    double local = (double)c->t.max_local_bytes / (double)c->t.elsize;
    int64_t b = c->s.x > 0 && c->s.y > 0 ? (c->s.x < c->s.y ? c->s.x : c->s.y) : 0;
    return machine.per_index * (b > 0 ? 2 * local / (double)b : (double)c->t.max_runs);
}

/* gcd's and lcm's (tcr96.h): each phase through cyclic(m) moves blocks of min(x, m) and then
   min(m, y), m = gcd(x, y) or lcm(x, y); in N-D twice block_work. */
static double phases_work(const redist__case *c, int lcm)
{
    int64_t x = c->s.x, y = c->s.y;
    if (x <= 0 || y <= 0)
        return 2 * block_work(c);
    int64_t g = redist__gcd64(x, y), m = lcm ? x / g * y : g;
    double local = (double)c->t.max_local_bytes / (double)c->t.elsize;
    double b1 = (double)(x < m ? x : m), b2 = (double)(m < y ? m : y);
    return machine.per_index * 2 * local * (1 / b1 + 1 / b2);
}

/* Formulas that hold on any case (each file's comment). */
static void check_formulas(const redist__case *c, const char *what)
{
    redist_options opt;
    redist_options_init(&opt);
    const redist__traffic *t = &c->t;
    double M = (double)t->max_messages, P = t->comm_size, W = block_work(c);
    for (int tr = REDIST_TRANSPORT_PACK; tr <= REDIST_TRANSPORT_DATATYPE; tr++) {
        double want = moves(c, tr) + (M > 0 ? machine.startup + machine.per_message * (M - 1) : 0);
        CHECK(close_to(predicted("direct-async", c, &opt, tr), want), "%s: direct-async", what);
        CHECK(close_to(predicted("ky-to-y", c, &opt, tr), want + W), "%s: ky-to-y", what);
        want = moves(c, tr) + machine.startup * steps_of("direct", c, &opt);
        CHECK(close_to(predicted("direct", c, &opt, tr), want), "%s: direct", what);
    }
    /* One node: packed messages of direct and direct-async go through the shared-memory
       window (no MPI bytes, a notification and an acknowledgement each); ky-to-y still
       sends through MPI. */
    redist__machine one = machine;
    one.shared_node = 1;
    double B = (double)t->max_bytes, S = steps_of("direct", c, &opt);
    double in_memory = moves(c, REDIST_TRANSPORT_PACK) - machine.per_byte * B -
                       machine.copy_per_byte * B + machine.window_per_byte * B;
    /* (the test machine's per_byte is above its window_per_byte: MPI moves packed bytes at
       per_byte) */
    double lat = M > 0 ? machine.startup + machine.per_message * (M - 1) : 0;
    CHECK(close_to(algo("direct-async")->predict(c, &one, &opt, REDIST_TRANSPORT_PACK),
                   in_memory + 2 * lat),
          "%s: direct-async through the window", what);
    CHECK(close_to(algo("direct")->predict(c, &one, &opt, REDIST_TRANSPORT_PACK),
                   in_memory + 2 * machine.startup * S),
          "%s: direct through the window", what);
    CHECK(close_to(algo("ky-to-y")->predict(c, &one, &opt, REDIST_TRANSPORT_PACK),
                   moves(c, REDIST_TRANSPORT_PACK) + lat + W),
          "%s: ky-to-y through MPI on one node", what);
    opt.shared_memory = 0; /* the window switched off: through MPI */
    CHECK(close_to(algo("direct-async")->predict(c, &one, &opt, REDIST_TRANSPORT_PACK),
                   moves(c, REDIST_TRANSPORT_PACK) + lat),
          "%s: direct-async without the window", what);
    opt.shared_memory = 1;
    double pack = moves(c, REDIST_TRANSPORT_PACK);
    CHECK(close_to(predicted("alltoallv", c, &opt, REDIST_TRANSPORT_PACK),
                   pack + machine.startup + machine.per_message * (P - 1)),
          "%s: alltoallv", what);
    CHECK(close_to(predicted("alltoallw", c, &opt, REDIST_TRANSPORT_DATATYPE),
                   moves(c, REDIST_TRANSPORT_DATATYPE) + machine.startup +
                       machine.per_message * (P - 1)),
          "%s: alltoallw", what);
    CHECK(close_to(predicted("general", c, &opt, REDIST_TRANSPORT_PACK),
                   pack + machine.startup + machine.per_message * M +
                       2 * machine.per_index * (double)t->max_local_bytes / (double)t->elsize),
          "%s: general", what);
    double phase = pack + machine.startup + machine.per_message * M;
    CHECK(close_to(predicted("gcd", c, &opt, REDIST_TRANSPORT_PACK), 2 * phase + phases_work(c, 0)),
          "%s: gcd", what);
    CHECK(close_to(predicted("lcm", c, &opt, REDIST_TRANSPORT_PACK), 2 * phase + phases_work(c, 1)),
          "%s: lcm", what);
    double slot = (double)t->max_count * (double)t->elsize;
    CHECK(close_to(predicted("alltoall-padded", c, &opt, REDIST_TRANSPORT_PACK),
                   machine.copy_per_byte * ((double)t->max_copy_bytes + 2 * (double)t->max_bytes) +
                       machine.copy_per_run * (double)(t->max_self_runs + t->max_runs) +
                       machine.startup + machine.per_message * (P - 1) +
                       machine.per_byte * slot * (P - 1)),
          "%s: alltoall-padded over MPI_Ialltoall", what);
    CHECK(steps_of("alltoall-padded", c, &opt) == (t->max_messages > 0),
          "%s: alltoall-padded is one collective step", what);
}

/* auto = the applicable algorithm with the smallest prediction, ties to the first. */
static void check_auto(const redist__case *c, const char *what)
{
    redist_options opt;
    redist_options_init(&opt);
    const redist__algorithm *const *table;
    int n = redist__algorithms(&table);
    const redist__algorithm *best = NULL;
    double best_t = 0;
    for (int i = 0; i < n; i++) {
        if (table[i]->applicable(c) != REDIST_SUCCESS)
            continue;
        double t = redist__predict(table[i], c, &machine, &opt);
        CHECK(isfinite(t) && t >= 0, "%s: %s predicts %g", what, table[i]->name, t);
        if (best == NULL || t < best_t) {
            best = table[i];
            best_t = t;
        }
    }
    CHECK(best != NULL && redist__choose(c, &machine, &opt) == best, "%s: auto chose %s, not %s",
          what,
          redist__choose(c, &machine, &opt) ? redist__choose(c, &machine, &opt)->name : "none",
          best ? best->name : "none");
}

/* [LBP96]'s table case R_x(K, P): cyclic(x) -> cyclic(Kx) on P ranks (and its dual). */
static void check_table_case(int64_t K, int P, int64_t n, int dual)
{
    char what[96];
    snprintf(what, sizeof what, "R_x(%lld, %d)%s, n = %lld", (long long)K, P, dual ? " dual" : "",
             (long long)n);
    redist_layout ls[2];
    redist__case c = dual ? case_of(n, 2 * K, 2, P, ls) : case_of(n, 2, 2 * K, P, ls);
    redist__rx rx;
    redist__rx_init(K, P, &rx);
    redist_options opt;
    redist_options_init(&opt);
    CHECK(c.s.table && c.s.tc.rx.K == K, "%s: not seen as a table case", what);
    CHECK(steps_of("direct", &c, &opt) == (int)redist__rx_moving_rows(&rx), "%s: direct's steps",
          what);
    int L = redist__rowsched_max_degree(&rx), S = redist__rowsched_indirect_steps(&rx);
    CHECK(steps_of("indirect", &c, &opt) == S, "%s: indirect's steps", what);
    CHECK(close_to(predicted("indirect", &c, &opt, REDIST_TRANSPORT_PACK), relay(&c, S, L)),
          "%s: indirect's cost", what);
    for (int d = 0; d <= L; d++) { /* a given degree, and the model's choice among them */
        opt.hybrid_degree = d;
        int Sd = redist__rowsched_hybrid_steps(&rx, d);
        CHECK(steps_of("hybrid", &c, &opt) == Sd, "%s: hybrid d = %d steps", what, d);
        CHECK(close_to(predicted("hybrid", &c, &opt, REDIST_TRANSPORT_PACK), relay(&c, Sd, d)),
              "%s: hybrid d = %d cost", what, d);
    }
    opt.hybrid_degree = 0; /* direct's schedule, which also lists row 0 when it stays put */
    CHECK(steps_of("hybrid", &c, &opt) == (int)K, "%s: hybrid d = 0 has K steps", what);
    double best = INFINITY;
    for (int d = 0; d <= L; d++) {
        opt.hybrid_degree = d;
        double t = predicted("hybrid", &c, &opt, REDIST_TRANSPORT_PACK);
        best = t < best ? t : best;
    }
    opt.hybrid_degree = -1;
    CHECK(close_to(predicted("hybrid", &c, &opt, REDIST_TRANSPORT_PACK), best),
          "%s: the model's d is the best d", what);
    int ms = 0, phases = 0;
    redist__multiphase_counts(K, P, &ms, &phases);
    CHECK(steps_of("multiphase", &c, &opt) == ms, "%s: multiphase's steps", what);
    CHECK(close_to(predicted("multiphase", &c, &opt, REDIST_TRANSPORT_PACK),
                   (phases > 0 ? phases : 1) * moves(&c, REDIST_TRANSPORT_PACK) +
                       machine.startup * ms),
          "%s: multiphase's cost %g want %g", what,
          predicted("multiphase", &c, &opt, REDIST_TRANSPORT_PACK),
          (phases > 0 ? phases : 1) * moves(&c, REDIST_TRANSPORT_PACK) + machine.startup * ms);
    int same = K == 1; /* x = y: both ratio algorithms apply */
    CHECK(algo("ky-to-y")->applicable(&c) ==
              (dual || same ? REDIST_SUCCESS : REDIST_ERR_NOT_APPLICABLE),
          "%s: ky-to-y applies to the dual only", what);
    CHECK(algo("x-to-kx")->applicable(&c) ==
              (dual && !same ? REDIST_ERR_NOT_APPLICABLE : REDIST_SUCCESS),
          "%s: x-to-kx applies forward only", what);
    check_formulas(&c, what);
    check_auto(&c, what);
    free_pair(ls);
}

static void check_papers_examples(void)
{
    redist__rx rx;
    redist__rx_init(6, 9, &rx); /* [LBP96] Fig. 4-10: 6 direct, 4 indirect steps */
    CHECK(redist__rx_moving_rows(&rx) == 6 && redist__rowsched_indirect_steps(&rx) == 4,
          "R_x(6, 9): %lld direct, %d indirect steps", (long long)redist__rx_moving_rows(&rx),
          redist__rowsched_indirect_steps(&rx));
    int ms = 0, phases = 0;
    redist__multiphase_counts(12, 16, &ms, &phases); /* 12 = 2 x 2 x 3 */
    CHECK(phases == 3, "multiphase through 12's factors: %d phases", phases);
}

/* cyclic(4) -> cyclic(6) on 8 ranks: indirect and hybrid through cyclic(12), two tables. */
static void check_lcm_route(void)
{
    redist_layout ls[2];
    redist__case c = case_of(960, 4, 6, 8, ls);
    redist_options opt;
    redist_options_init(&opt);
    CHECK(!c.s.table && c.s.lcm == 12, "cyclic(4) -> cyclic(6): lcm %lld", (long long)c.s.lcm);
    redist__rx a, b;
    redist__rx_init(3, 8, &a);
    redist__rx_init(2, 8, &b);
    int S = redist__rowsched_indirect_steps(&a) + redist__rowsched_indirect_steps(&b);
    int L = redist__rowsched_max_degree(&a) + redist__rowsched_max_degree(&b);
    CHECK(steps_of("indirect", &c, &opt) == S, "lcm route: indirect steps");
    CHECK(close_to(predicted("indirect", &c, &opt, REDIST_TRANSPORT_PACK), relay(&c, S, L)),
          "lcm route: indirect cost");
    CHECK(algo("multiphase")->applicable(&c) == REDIST_ERR_NOT_APPLICABLE,
          "multiphase needs one block a multiple of the other");
    CHECK(algo("gcd")->applicable(&c) == REDIST_SUCCESS, "gcd applies on one line");
    check_formulas(&c, "cyclic(4) -> cyclic(6)");
    check_auto(&c, "cyclic(4) -> cyclic(6)");
    free_pair(ls);
}

/* cyclic(4) -> cyclic(16) over 2^10 elements on 4 ranks is a bit permutation ([Cor97]). */
static void check_bmmc(void)
{
    redist_layout ls[2];
    redist__case c = case_of(1024, 4, 16, 4, ls);
    redist_options opt;
    redist_options_init(&opt);
    int rounds = redist__bpc_rounds(ls[0], ls[1]);
    CHECK(c.s.bpc && rounds > 0, "cyclic(4) -> cyclic(16): not a bit permutation");
    CHECK(steps_of("bmmc", &c, &opt) == rounds, "bmmc: %d steps, %d rounds",
          steps_of("bmmc", &c, &opt), rounds);
    const redist__traffic *t = &c.t;
    double want =
        machine.copy_per_byte * ((double)t->max_copy_bytes + 3.0 * (double)t->max_local_bytes) +
        machine.per_byte * (double)t->max_bytes + machine.startup * rounds;
    CHECK(close_to(predicted("bmmc", &c, &opt, REDIST_TRANSPORT_PACK), want), "bmmc: cost");
    check_auto(&c, "bit permutation");
    free_pair(ls);
    redist__case d = case_of(1000, 4, 16, 4, ls); /* 1000 is not a power of two */
    CHECK(algo("bmmc")->applicable(&d) == REDIST_ERR_NOT_APPLICABLE, "bmmc on n = 1000");
    free_pair(ls);
}

/* cyclic(5) on ranks 0, 1 -> cyclic(3) on ranks 2, 3, 4 of 5, 777 doubles. */
static redist__case other_sets_case(redist_layout ls[2])
{
    int64_t n = 777, x = 5, y = 3;
    int g1 = 2, g2 = 3, r1[2] = {0, 1}, r2[3] = {2, 3, 4};
    redist_layout_create(1, &n, &x, &g1, NULL, r1, REDIST_ROW_MAJOR, &ls[0]);
    redist_layout_create(1, &n, &y, &g2, NULL, r2, REDIST_ROW_MAJOR, &ls[1]);
    redist__case c;
    CHECK(redist__pair_case(ls[0], ls[1], 5, 8, &c, NULL, NULL) == 0, "pair case");
    return c;
}

/* A pair on different process sets: the general-purpose algorithms (general among them) apply,
   the same-set ones do not. */
static void check_other_sets(void)
{
    redist_layout ls[2] = {NULL, NULL};
    redist__case c = other_sets_case(ls);
    static const char *const only_same_set[] = {"ky-to-y", "x-to-kx",    "gcd",
                                                "lcm",     "multiphase", "bmmc"};
    for (size_t i = 0; i < sizeof only_same_set / sizeof *only_same_set; i++)
        CHECK(algo(only_same_set[i])->applicable(&c) == REDIST_ERR_NOT_APPLICABLE,
              "%s applies to disjoint sets", only_same_set[i]);
    CHECK(algo("general")->applicable(&c) == REDIST_SUCCESS, "general refuses disjoint sets");
    check_formulas(&c, "2 ranks -> 3 other ranks");
    check_auto(&c, "2 ranks -> 3 other ranks");
    free_pair(ls);
}

/* The rule of use (redist__algo_usable): the reason of each refusal, the same answer for a
   forced algorithm (its detail), auto and the memory fallback. */
static void check_rule_of_use(void)
{
    redist_layout ls[2] = {NULL, NULL};
    redist__case c = other_sets_case(ls);
    redist_options opt;
    redist_options_init(&opt);
    const char *why = "unset";
    CHECK(redist__algo_usable(algo("gcd"), &c, &opt, &why) == REDIST_ERR_NOT_APPLICABLE &&
              why == algo("gcd")->why_not,
          "gcd on disjoint sets: its own reason, not '%s'", why ? why : "(null)");
    CHECK(redist__admit_forced(algo("gcd"), &c, &opt, NULL) == REDIST_ERR_NOT_APPLICABLE &&
              strncmp(redist_last_error_detail(), "algorithm 'gcd' needs ", 22) == 0,
          "forced gcd's detail: '%s'", redist_last_error_detail());
    const redist__algorithm *a = NULL;
    why = NULL;
    CHECK(redist__choose_algorithm(redist__registry(), "gcd", &c, &machine, &opt, &a, &why) ==
                  REDIST_ERR_NOT_APPLICABLE &&
              a == NULL && why == algo("gcd")->why_not,
          "forced gcd's reason for explain: '%s'", why ? why : "(null)");
    CHECK(redist__algo_usable(algo("general"), &c, &opt, &why) == REDIST_SUCCESS && why == NULL,
          "general on disjoint sets");
    opt.alpha[0] = 2.0; /* scaling: unpacking scales, MPI's datatype engine cannot */
    CHECK(redist__algo_usable(algo("alltoallw"), &c, &opt, &why) == REDIST_ERR_NOT_APPLICABLE &&
              strstr(why, "cannot scale") && strstr(why, "datatype transport"),
          "alltoallw with scaling: '%s'", why ? why : "(null)");
    CHECK(redist__algo_usable(algo("direct-async"), &c, &opt, NULL) == REDIST_SUCCESS,
          "direct-async scales");
    redist_options_init(&opt);
    opt.max_buffer_bytes = 1024;
    CHECK(redist__algo_usable(algo("alltoallv"), &c, &opt, &why) == REDIST_ERR_NOT_APPLICABLE &&
              strstr(why, "cannot bound its buffers"),
          "alltoallv bounded: '%s'", why ? why : "(null)");
    a = redist__choose(&c, &machine, &opt);
    CHECK(a != NULL && redist__algo_usable(a, &c, &opt, NULL) == REDIST_SUCCESS,
          "auto bounded chose %s, which cannot run bounded", a ? a->name : "none");
    /* The memory fallback: auto's choice is replaced by one that runs bounded, a forced one
       is kept (the plan then takes the datatype transport or fails). */
    redist_options_init(&opt);
    int bounded = -1;
    a = redist__choose_bounded(redist__registry(), algo("alltoallv"), 1, &c, &machine, &opt, 1024,
                               &bounded);
    CHECK(bounded == 1 && a != algo("alltoallv") && a->bounded, "fallback for auto: %s, %d",
          a->name, bounded);
    a = redist__choose_bounded(redist__registry(), algo("alltoallv"), 0, &c, &machine, &opt, 1024,
                               &bounded);
    CHECK(bounded == 0 && a == algo("alltoallv"), "fallback for forced alltoallv: %s, %d", a->name,
          bounded);
    a = redist__choose_bounded(redist__registry(), algo("direct-async"), 0, &c, &machine, &opt,
                               1024, &bounded);
    CHECK(bounded == 1 && a == algo("direct-async"), "fallback for forced direct-async: %s, %d",
          a->name, bounded);
    CHECK(redist__choose_algorithm(redist__registry(), "no-such", &c, &machine, &opt, &a, NULL) ==
                  REDIST_ERR_UNKNOWN_ALGORITHM &&
              a == NULL,
          "an unknown name");
    why = "unset";
    CHECK(redist__choose_algorithm(redist__registry(), NULL, &c, &machine, &opt, &a, &why) ==
                  REDIST_SUCCESS &&
              a == redist__choose(&c, &machine, &opt) && why == NULL,
          "NULL is auto");
    /* A table where nothing applies: auto's reason. */
    const redist__algorithm *const only_gcd[] = {algo("gcd")};
    const redist__algorithm_table gcd_table = {only_gcd, 1};
    CHECK(redist__choose_algorithm(&gcd_table, "auto", &c, &machine, &opt, &a, &why) ==
                  REDIST_ERR_NOT_APPLICABLE &&
              a == NULL && why != NULL && strcmp(why, "no algorithm applies") == 0 &&
              strcmp(redist_last_error_detail(), why) == 0,
          "auto with nothing usable: '%s'", why ? why : "(null)");
    free_pair(ls);
}

/* Options: every algorithm's checks run, each field is fingerprinted once. */
static void check_options(void)
{
    redist_options opt;
    redist_options_init(&opt);
    CHECK(redist__check_algorithm_options(&opt, 4) == REDIST_SUCCESS, "defaults rejected");
    CHECK(redist__check_algorithm_options(NULL, 4) == REDIST_SUCCESS, "NULL options rejected");
    opt.hybrid_degree = -2;
    CHECK(redist__check_algorithm_options(&opt, 4) == REDIST_ERR_ARG, "hybrid_degree -2");
    redist_options_init(&opt);
    opt.bmmc_method = 3;
    CHECK(redist__check_algorithm_options(&opt, 4) == REDIST_ERR_ARG, "bmmc_method 3");
    redist_options_init(&opt);
    opt.synchronous_receive = 2;
    CHECK(redist__check_algorithm_options(&opt, 4) == REDIST_ERR_ARG, "synchronous_receive 2");
    redist_options_init(&opt);
    opt.alltoall_algorithm = "no-such-exchange";
    CHECK(redist__check_algorithm_options(&opt, 4) == REDIST_ERR_UNKNOWN_ALGORITHM,
          "an unknown alltoall_algorithm");
    redist__fingerprints fp = {0};
    redist_options_init(&opt);
    redist__fingerprint_algorithm_options(&fp, &opt);
    for (int i = 0; i < fp.n; i++)
        for (int j = 0; j < i; j++)
            CHECK(strcmp(fp.f[i].name, fp.f[j].name) != 0, "%s fingerprinted twice", fp.f[i].name);
    static const char *const fields[] = {"options.hybrid_degree", "options.alltoall_algorithm",
                                         "options.synchronous_receive", "options.bmmc_method"};
    for (size_t k = 0; k < sizeof fields / sizeof *fields; k++) {
        int found = 0;
        for (int i = 0; i < fp.n; i++)
            found += strcmp(fp.f[i].name, fields[k]) == 0;
        CHECK(found == 1, "%s fingerprinted %d times", fields[k], found);
    }
}

int main(void)
{
    check_registry();
    check_papers_examples();
    static const int64_t Ks[] = {1, 2, 3, 4, 6, 7, 8};
    static const int Ps[] = {2, 4, 8, 9, 12, 16};
    for (size_t i = 0; i < sizeof Ks / sizeof *Ks; i++)
        for (size_t j = 0; j < sizeof Ps / sizeof *Ps; j++)
            if (Ks[i] <= Ps[j]) {
                check_table_case(Ks[i], Ps[j], 2 * Ks[i] * Ps[j] * 10 + 3, 0);
                check_table_case(Ks[i], Ps[j], 2 * Ks[i] * Ps[j] * 10 + 3, 1);
            }
    check_lcm_route();
    check_bmmc();
    check_other_sets();
    check_rule_of_use();
    check_options();
    if (failures) {
        printf(" Found %ld errors\n", failures);
        return 1;
    }
    printf(" No Errors\n");
    return 0;
}
