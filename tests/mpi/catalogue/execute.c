/* The bad-input catalogue (tests/mpi/test_catalogue.c): executing a plan: execute, start + wait,
 * start + test, the plan states, batch execution. */
#include "catalogue.h"

/* ---- execute, start + wait, start + test ------------------------------------------------ */

enum {
    EX_OK,
    EX_NULL_PLAN,
    EX_NULL_SRC,
    EX_NULL_SRC_LAST,
    EX_NULL_DST_LAST,
    EX_IN_PLACE_SRC,
    EX_IN_PLACE_DST_LAST,
    EX_OVERLAP,
    EX_OVERLAP_LAST,
    EX_NOCHECK,
    EX_BMMC_NULL,
    EX_BMMC_IN_PLACE_LAST
};
enum { VIA_EXECUTE = 0, VIA_WAIT = 100, VIA_TEST = 200 };

static int run_execute(int v)
{
    int via = v / 100 * 100, what = v % 100, L = rank == last;
    redist_plan p = P;
    const void *s = S;
    void *d = D;
    switch (what) {
    case EX_NULL_PLAN:
        p = NULL;
        break;
    case EX_NULL_SRC:
        s = NULL;
        break;
    case EX_NULL_SRC_LAST:
        s = L ? NULL : s;
        break;
    case EX_NULL_DST_LAST:
        d = L ? NULL : d;
        break;
    case EX_IN_PLACE_SRC:
        s = MPI_IN_PLACE;
        break;
    case EX_IN_PLACE_DST_LAST:
        d = L ? MPI_IN_PLACE : d;
        break;
    case EX_OVERLAP:
        d = S;
        break;
    case EX_OVERLAP_LAST:
        d = L ? S : d;
        break;
    case EX_NOCHECK: /* check_arguments = 0: bad on every rank, so no rank waits */
        p = P_nocheck;
        s = NULL;
        break;
    case EX_BMMC_NULL:
        p = PBM;
        s = NULL;
        d = bmd;
        break;
    case EX_BMMC_IN_PLACE_LAST:
        p = PBM;
        s = bms;
        d = L ? MPI_IN_PLACE : bmd;
        break;
    }
    int rc;
    if (via == VIA_EXECUTE) {
        rc = redist_execute(p, s, d);
    } else {
        rc = redist_start(p, s, d);
        if (!all_ranks(rc == REDIST_SUCCESS) && !all_ranks(rc != REDIST_SUCCESS)) {
            fail("redist_start returned %s here, not the same on every rank",
                 redist_error_name(rc));
            if (rc == REDIST_SUCCESS) /* the others are not in the exchange: it cannot end */
                return rc;
        }
        if (rc == REDIST_SUCCESS && via == VIA_WAIT) {
            rc = redist_wait(p);
        } else if (rc == REDIST_SUCCESS) {
            int done = 0;
            while (rc == REDIST_SUCCESS && !done)
                rc = redist_test(p, &done);
        }
    }
    if (p != NULL)
        expect_idle(p);
    return rc;
}

/* ---- plan state: busy, idle, freed -------------------------------------------------------- */

enum {
    ST_START_TWICE,
    ST_EXECUTE_WHILE_BUSY,
    ST_START_BATCH_TWICE,
    ST_TEST_NULL_DONE,
    ST_TEST_NULL_DONE_BUSY,
    ST_TEST_NULL_PLAN,
    ST_WAIT_NULL_PLAN,
    ST_TEST_IDLE,
    ST_WAIT_IDLE,
    ST_WAIT_TWICE,
    ST_FREE_ACTIVE,
    ST_USE_AFTER_FREE,
    ST_START_ON_BATCH,
    ST_EXECUTE_ON_BATCH,
    ST_START_BATCH_ON_PLAIN,
    ST_EXECUTE_BATCH_ON_PLAIN,
    ST_STATS_NULL_PLAN,
    ST_STATS_NULL_OUT,
    ST_ALGORITHM_NULL,
    ST_FREE_NULL,
    ST_FREE_NULL_HANDLE
};

static int run_state(int v)
{
    const void *bsrc[2] = {bs0, bs1};
    void *bdst[2] = {bd0, bd1};
    int rc = REDIST_SUCCESS, done = 0;
    redist_plan q = NULL;
    redist_stats st;
    switch (v) {
    case ST_START_TWICE:
    case ST_EXECUTE_WHILE_BUSY:
    case ST_TEST_NULL_DONE_BUSY:
        if (redist_start(P, S, D) != REDIST_SUCCESS) {
            fail("redist_start failed: %s", redist_last_error_detail());
            return NOT_AS_DOCUMENTED;
        }
        rc = v == ST_START_TWICE          ? redist_start(P, S2, D2)
             : v == ST_EXECUTE_WHILE_BUSY ? redist_execute(P, S2, D2)
                                          : redist_test(P, NULL);
        if (redist_wait(P) != REDIST_SUCCESS)
            fail("the first execution did not complete: %s", redist_last_error_detail());
        expect_idle(P);
        return rc;
    case ST_START_BATCH_TWICE:
        if (redist_start_batch(PB, bsrc, bdst) != REDIST_SUCCESS) {
            fail("redist_start_batch failed: %s", redist_last_error_detail());
            return NOT_AS_DOCUMENTED;
        }
        rc = redist_start_batch(PB, bsrc, bdst);
        if (redist_wait(PB) != REDIST_SUCCESS)
            fail("the first execution did not complete: %s", redist_last_error_detail());
        expect_idle(PB);
        return rc;
    case ST_TEST_NULL_DONE:
        return redist_test(P, NULL);
    case ST_TEST_NULL_PLAN:
        return redist_test(NULL, &done);
    case ST_WAIT_NULL_PLAN:
        return redist_wait(NULL);
    case ST_TEST_IDLE: /* MPI's inactive persistent request */
        rc = redist_test(P, &done);
        return rc == REDIST_SUCCESS && done != 1 ? NOT_AS_DOCUMENTED : rc;
    case ST_WAIT_IDLE:
        return redist_wait(P);
    case ST_WAIT_TWICE:
        rc = redist_start(P, S, D);
        if (rc == REDIST_SUCCESS)
            rc = redist_wait(P);
        return rc == REDIST_SUCCESS ? redist_wait(P) : rc;
    case ST_FREE_ACTIVE: /* free waits for the execution in flight */
        rc = redist_plan_create(Ls, Ld, MPI_INT, MPI_COMM_WORLD, NULL, &q);
        if (!all_ranks(rc == REDIST_SUCCESS))
            return plan_done(rc, &q);
        rc = redist_start(q, S, D);
        if (rc != REDIST_SUCCESS)
            fail("redist_start failed: %s", redist_last_error_detail());
        rc = redist_plan_free(&q);
        if (q != NULL)
            fail("redist_plan_free did not set the handle to NULL");
        return rc;
    case ST_USE_AFTER_FREE: /* the handle redist_plan_free leaves behind is NULL */
        rc = redist_plan_create(Ls, Ld, MPI_INT, MPI_COMM_WORLD, NULL, &q);
        if (!all_ranks(rc == REDIST_SUCCESS))
            return plan_done(rc, &q);
        redist_plan_free(&q);
        return redist_execute(q, S, D);
    case ST_START_ON_BATCH:
        return redist_start(PB, S, D);
    case ST_EXECUTE_ON_BATCH:
        return redist_execute(PB, S, D);
    case ST_START_BATCH_ON_PLAIN:
        return redist_start_batch(P, bsrc, bdst);
    case ST_EXECUTE_BATCH_ON_PLAIN:
        return redist_execute_batch(P, bsrc, bdst);
    case ST_STATS_NULL_PLAN:
        return redist_plan_stats(NULL, &st);
    case ST_STATS_NULL_OUT:
        return redist_plan_stats(P, NULL);
    case ST_ALGORITHM_NULL:
        return redist_plan_algorithm(NULL) == NULL ? REDIST_SUCCESS : NOT_AS_DOCUMENTED;
    case ST_FREE_NULL:
        return redist_plan_free(NULL);
    case ST_FREE_NULL_HANDLE:
        return redist_plan_free(&q);
    }
    return NOT_AS_DOCUMENTED;
}

/* ---- batch execution ---------------------------------------------------------------------- */

enum {
    BE_OK,
    BE_NULL_PLAN,
    BE_NULL_SRC_LIST,
    BE_NULL_DST_LIST_LAST,
    BE_NULL_ELEM_LAST,
    BE_IN_PLACE_LAST,
    BE_START_OK
};

static int run_batch_execute(int v)
{
    const void *bsrc[2] = {bs0, bs1};
    void *bdst[2] = {bd0, bd1};
    const void *const *ps_ = bsrc;
    void *const *pd_ = bdst;
    redist_plan p = PB;
    int L = rank == last, rc;
    switch (v) {
    case BE_NULL_PLAN:
        p = NULL;
        break;
    case BE_NULL_SRC_LIST:
        ps_ = NULL;
        break;
    case BE_NULL_DST_LIST_LAST:
        pd_ = L ? NULL : pd_;
        break;
    case BE_NULL_ELEM_LAST: /* the last rank holds array 1's source elements */
        bsrc[1] = L ? NULL : bsrc[1];
        break;
    case BE_IN_PLACE_LAST:
        bdst[0] = L ? MPI_IN_PLACE : bdst[0];
        break;
    }
    if (v == BE_START_OK) {
        rc = redist_start_batch(p, ps_, pd_);
        if (rc == REDIST_SUCCESS)
            rc = redist_wait(p);
    } else {
        rc = redist_execute_batch(p, ps_, pd_);
    }
    if (p != NULL)
        expect_idle(p);
    return rc;
}

/* The entries of this file, in the catalogue's order. */
void add_execute_entries(void)
{
    /* Execution, three ways. */
    static const struct {
        const char *bad;
        int v, want, when, flags;
        const char *detail;
    } ex[] = {
        {"valid (sanity)", EX_OK, REDIST_SUCCESS, ANY, 0, NULL},
        {"plan NULL", EX_NULL_PLAN, REDIST_ERR_ARG, ANY, 0, "plan"},
        {"src NULL on every rank (all hold data)", EX_NULL_SRC, REDIST_ERR_ARG, ANY, F_OWN_DETAIL,
         "src"},
        {"src NULL on the last rank only", EX_NULL_SRC_LAST, REDIST_ERR_ARG, MULTI, F_OWN_DETAIL,
         NULL},
        {"dst NULL on the last rank only", EX_NULL_DST_LAST, REDIST_ERR_ARG, MULTI, F_OWN_DETAIL,
         NULL},
        {"src MPI_IN_PLACE", EX_IN_PLACE_SRC, REDIST_ERR_ARG, ANY, 0, "MPI_IN_PLACE"},
        {"dst MPI_IN_PLACE on the last rank only", EX_IN_PLACE_DST_LAST, REDIST_ERR_ARG, MULTI,
         F_OWN_DETAIL, NULL},
        {"src and dst overlap", EX_OVERLAP, REDIST_ERR_ARG, ANY, 0, "overlap"},
        {"src and dst overlap on the last rank only", EX_OVERLAP_LAST, REDIST_ERR_ARG, MULTI,
         F_OWN_DETAIL, NULL},
        {"check_arguments 0, src NULL on every rank", EX_NOCHECK, REDIST_ERR_ARG, ANY, F_OWN_DETAIL,
         "src"},
    };
    static const char *const via_fn[3] = {"redist_execute", "redist_start + redist_wait",
                                          "redist_start + redist_test"};
    for (int w = 0; w < 3; w++)
        for (size_t i = 0; i < sizeof ex / sizeof ex[0]; i++)
            add(via_fn[w], ex[i].bad, run_execute, w * 100 + ex[i].v, ex[i].want, ex[i].detail,
                ex[i].when, ex[i].flags);
    E("redist_execute", "a BMMC plan, src NULL", run_execute, EX_BMMC_NULL, ARG, "src", POW2);
    EF("redist_start + redist_wait", "a BMMC plan, dst MPI_IN_PLACE on the last rank only",
       run_execute, VIA_WAIT + EX_BMMC_IN_PLACE_LAST, ARG, NULL, POW2 | MULTI, F_OWN_DETAIL);

    /* Plan states. */
    E("redist_start", "started twice: BUSY", run_state, ST_START_TWICE, BUSY, "in progress", ANY);
    E("redist_execute", "while a start is in flight: BUSY", run_state, ST_EXECUTE_WHILE_BUSY, BUSY,
      "in progress", ANY);
    E("redist_start_batch", "started twice: BUSY", run_state, ST_START_BATCH_TWICE, BUSY,
      "in progress", ANY);
    E("redist_test", "done NULL", run_state, ST_TEST_NULL_DONE, ARG, "NULL", ANY);
    E("redist_test", "done NULL while busy", run_state, ST_TEST_NULL_DONE_BUSY, ARG, "NULL", ANY);
    E("redist_test", "plan NULL", run_state, ST_TEST_NULL_PLAN, ARG, "NULL", ANY);
    E("redist_wait", "plan NULL", run_state, ST_WAIT_NULL_PLAN, ARG, "NULL", ANY);
    E("redist_test", "an idle plan: done, SUCCESS (MPI's inactive request)", run_state,
      ST_TEST_IDLE, OK, NULL, ANY);
    E("redist_wait", "an idle plan: SUCCESS at once", run_state, ST_WAIT_IDLE, OK, NULL, ANY);
    E("redist_wait", "twice after one start", run_state, ST_WAIT_TWICE, OK, NULL, ANY);
    E("redist_plan_free", "while an execution is in flight (waits)", run_state, ST_FREE_ACTIVE, OK,
      NULL, ANY);
    E("redist_execute", "the handle left by redist_plan_free", run_state, ST_USE_AFTER_FREE, ARG,
      "NULL", ANY);
    E("redist_start", "a batch plan", run_state, ST_START_ON_BATCH, ARG, "batch", ANY);
    E("redist_execute", "a batch plan", run_state, ST_EXECUTE_ON_BATCH, ARG, "batch", ANY);
    E("redist_start_batch", "a plan that is not a batch", run_state, ST_START_BATCH_ON_PLAIN, ARG,
      "batch", ANY);
    E("redist_execute_batch", "a plan that is not a batch", run_state, ST_EXECUTE_BATCH_ON_PLAIN,
      ARG, "batch", ANY);
    E("redist_plan_stats", "plan NULL", run_state, ST_STATS_NULL_PLAN, ARG, "NULL", ANY);
    E("redist_plan_stats", "stats NULL", run_state, ST_STATS_NULL_OUT, ARG, "NULL", ANY);
    EF("redist_plan_algorithm", "plan NULL: NULL", run_state, ST_ALGORITHM_NULL, OK, NULL, ANY,
       F_NO_DETAIL);
    E("redist_plan_free", "NULL", run_state, ST_FREE_NULL, ARG, "NULL", ANY);
    E("redist_plan_free", "a NULL handle (legal)", run_state, ST_FREE_NULL_HANDLE, OK, NULL, ANY);

    /* Batch execution. */
    const char *eb = "redist_execute_batch";
    E(eb, "valid (sanity)", run_batch_execute, BE_OK, OK, NULL, ANY);
    E("redist_start_batch + redist_wait", "valid (sanity)", run_batch_execute, BE_START_OK, OK,
      NULL, ANY);
    E(eb, "plan NULL", run_batch_execute, BE_NULL_PLAN, ARG, "NULL", ANY);
    E(eb, "src list NULL", run_batch_execute, BE_NULL_SRC_LIST, ARG, "array list", ANY);
    EF(eb, "dst list NULL on the last rank only", run_batch_execute, BE_NULL_DST_LIST_LAST, ARG,
       NULL, MULTI, F_OWN_DETAIL);
    EF(eb, "src[1] NULL on the last rank only (holds data)", run_batch_execute, BE_NULL_ELEM_LAST,
       ARG, NULL, MULTI, F_OWN_DETAIL);
    EF(eb, "dst[0] MPI_IN_PLACE on the last rank only", run_batch_execute, BE_IN_PLACE_LAST, ARG,
       NULL, MULTI, F_OWN_DETAIL);
}
