/* link: redist */
/* Serial tests of the basic operations' cost interface ([GGKK03]), no MPI_Init:
 * redist_coll_algorithm_name lists each operation's algorithms (the names the operations
 * accept); redist_coll_predict gives the slides' formulas, checked against closed forms for
 * p in 1..64; "auto" names the cheapest applicable algorithm and its time is the minimum;
 * hypercube reduce_scatter is NOT_APPLICABLE exactly for p not a power of two;
 * bad arguments give the documented codes.
 */
#include "redist.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "support/check.h"

static const char *const ops[] = {"bcast",  "reduce",    "allreduce",      "scan",     "scatter",
                                  "gather", "allgather", "reduce_scatter", "alltoall", "shift"};
#define NOPS ((int)(sizeof ops / sizeof ops[0]))

static int log2ceil(int p)
{
    int l = 0;
    while ((1 << l) < p)
        l++;
    return l;
}

static int close_to(double a, double b)
{
    return fabs(a - b) <= 1e-12 * (fabs(a) + fabs(b)) + 1e-300;
}

/* Closed forms from the slides for some algorithms; -1 where this test has none. */
static double expected(const char *op, const char *alg, int p, double m, double ts, double tw)
{
    int lg = log2ceil(p);
    if (!strcmp(op, "alltoall") && !strcmp(alg, "pairwise"))
        return (ts + tw * m) * (p - 1);
    if (!strcmp(op, "alltoall") && !strcmp(alg, "ring"))
        return (ts + tw * m * p / 2.0) * (p - 1);
    if (!strcmp(op, "alltoall") && !strcmp(alg, "hypercube"))
        return (ts + tw * m * p / 2.0) * lg;
    if (!strcmp(op, "allgather") && !strcmp(alg, "ring"))
        return (ts + tw * m) * (p - 1);
    if (!strcmp(op, "allgather") && !strcmp(alg, "hypercube"))
        return ts * lg + tw * m * (p - 1);
    if (!strcmp(op, "shift") && !strcmp(alg, "ring"))
        return (ts + tw * m) * (p / 2);
    if (!strcmp(op, "scatter") && !strcmp(alg, "linear"))
        return (ts + tw * m) * (p - 1);
    return -1;
}

static int needs_power_of_two(const char *op, const char *alg)
{
    return !strcmp(alg, "hypercube") && !strcmp(op, "reduce_scatter");
}

static void test_operation(const char *op)
{
    int n = 0;
    while (redist_coll_algorithm_name(op, n) != NULL)
        n++;
    CHECK(n >= 2, "%s lists %d algorithms", op, n);
    const double ts = 6e-6, tw = 1.0 / 8e9, sizes[] = {0, 8, 8 * 65536.0};
    for (int p = 1; p <= 64; p++)
        for (int s = 0; s < 3; s++) {
            double m = sizes[s], best = -1, t_auto = -1;
            const char *chosen = NULL;
            for (int i = 0; i < n; i++) {
                const char *alg = redist_coll_algorithm_name(op, i);
                double t = -1;
                int rc = redist_coll_predict(op, alg, p, m, ts, tw, &t, NULL);
                int pow2 = (p & (p - 1)) == 0;
                if (needs_power_of_two(op, alg) && !pow2) {
                    CHECK(rc == REDIST_ERR_NOT_APPLICABLE, "%s %s p=%d: rc %d", op, alg, p, rc);
                    continue;
                }
                CHECK(rc == REDIST_SUCCESS && t >= 0, "%s %s p=%d: rc %d t %g", op, alg, p, rc, t);
                double want = expected(op, alg, p, m, ts, tw);
                CHECK(want < 0 || close_to(t, want), "%s %s p=%d m=%g: %g, slides say %g", op, alg,
                      p, m, t, want);
                if (best < 0 || t < best)
                    best = t;
            }
            int rc = redist_coll_predict(op, NULL, p, m, ts, tw, &t_auto, &chosen);
            CHECK(rc == REDIST_SUCCESS && close_to(t_auto, best), "%s auto p=%d: %g, best %g", op,
                  p, t_auto, best);
            double t_named = -1;
            rc = redist_coll_predict(op, chosen, p, m, ts, tw, &t_named, NULL);
            CHECK(chosen && rc == REDIST_SUCCESS && close_to(t_named, t_auto), "%s auto named %s",
                  op, chosen ? chosen : "(null)");
            rc = redist_coll_predict(op, "auto", p, m, ts, tw, &t_named, NULL);
            CHECK(rc == REDIST_SUCCESS && close_to(t_named, t_auto), "%s \"auto\"", op);
        }
    CHECK(redist_coll_algorithm_name(op, -1) == NULL, "%s index -1", op);
}

static void test_errors(void)
{
    double t = 0;
    CHECK(redist_coll_predict("bogus", NULL, 4, 8, 1, 1, &t, NULL) == REDIST_ERR_ARG, "bad op");
    CHECK(redist_coll_predict(NULL, NULL, 4, 8, 1, 1, &t, NULL) == REDIST_ERR_ARG, "NULL op");
    CHECK(redist_coll_predict("bcast", "bogus", 4, 8, 1, 1, &t, NULL) ==
              REDIST_ERR_UNKNOWN_ALGORITHM,
          "bad algorithm");
    CHECK(redist_coll_predict("bcast", NULL, 0, 8, 1, 1, &t, NULL) == REDIST_ERR_ARG, "p = 0");
    CHECK(redist_coll_predict("bcast", NULL, 4, -1, 1, 1, &t, NULL) == REDIST_ERR_ARG, "m < 0");
    CHECK(redist_coll_predict("bcast", NULL, 4, 8, -1, 1, &t, NULL) == REDIST_ERR_ARG, "ts < 0");
    CHECK(redist_coll_predict("bcast", NULL, 4, 8, 1, NAN, &t, NULL) == REDIST_ERR_ARG, "tw NaN");
    CHECK(redist_coll_predict("bcast", NULL, 4, 8, 1, 1, NULL, NULL) == REDIST_ERR_ARG, "NULL t");
    CHECK(redist_coll_algorithm_name(NULL, 0) == NULL, "NULL op name");
    CHECK(redist_coll_algorithm_name("bogus", 0) == NULL, "bad op name");
}

int main(void)
{
    for (int o = 0; o < NOPS; o++)
        test_operation(ops[o]);
    test_errors();
    if (failures) {
        fprintf(stderr, "test_coll_cost: %ld failures\n", failures);
        return 1;
    }
    printf("test_coll_cost: OK\n");
    return 0;
}
