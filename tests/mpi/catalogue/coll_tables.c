/* The bad-input catalogue (tests/mpi/test_catalogue.c): the basic operations' names and costs. */
#include "catalogue.h"

/* ---- the basic operations' tables (local) --------------------------------------------------- */

enum {
    CP_NAME_NULL_OP,
    CP_NAME_UNKNOWN_OP,
    CP_NAME_NEG,
    CP_NAME_PAST,
    CP_PRED_NULL_OP,
    CP_PRED_UNKNOWN_OP,
    CP_PRED_P0,
    CP_PRED_M_NEG,
    CP_PRED_TS_NAN,
    CP_PRED_TW_NEG,
    CP_PRED_NULL_SECONDS,
    CP_PRED_UNKNOWN_ALG,
    CP_PRED_HYPERCUBE_P3,
    CP_PRED_NULL_CHOSEN
};

static int run_coll_tables(int v)
{
    double sec = 0;
    const char *chosen = NULL;
    switch (v) {
    case CP_NAME_NULL_OP:
        return redist_coll_algorithm_name(NULL, 0) == NULL ? REDIST_SUCCESS : NOT_AS_DOCUMENTED;
    case CP_NAME_UNKNOWN_OP:
        return redist_coll_algorithm_name("bcastx", 0) == NULL ? REDIST_SUCCESS : NOT_AS_DOCUMENTED;
    case CP_NAME_NEG:
        return redist_coll_algorithm_name("bcast", -1) == NULL ? REDIST_SUCCESS : NOT_AS_DOCUMENTED;
    case CP_NAME_PAST:
        return redist_coll_algorithm_name("bcast", INT_MAX) == NULL ? REDIST_SUCCESS
                                                                    : NOT_AS_DOCUMENTED;
    case CP_PRED_NULL_OP:
        return redist_coll_predict(NULL, NULL, 4, 8, 1e-6, 1e-9, &sec, &chosen);
    case CP_PRED_UNKNOWN_OP:
        return redist_coll_predict("broadcast", NULL, 4, 8, 1e-6, 1e-9, &sec, &chosen);
    case CP_PRED_P0:
        return redist_coll_predict("bcast", NULL, 0, 8, 1e-6, 1e-9, &sec, &chosen);
    case CP_PRED_M_NEG:
        return redist_coll_predict("bcast", NULL, 4, -8, 1e-6, 1e-9, &sec, &chosen);
    case CP_PRED_TS_NAN:
        return redist_coll_predict("bcast", NULL, 4, 8, NAN, 1e-9, &sec, &chosen);
    case CP_PRED_TW_NEG:
        return redist_coll_predict("bcast", NULL, 4, 8, 1e-6, -1e-9, &sec, &chosen);
    case CP_PRED_NULL_SECONDS:
        return redist_coll_predict("bcast", NULL, 4, 8, 1e-6, 1e-9, NULL, &chosen);
    case CP_PRED_UNKNOWN_ALG:
        return redist_coll_predict("bcast", "binomial", 4, 8, 1e-6, 1e-9, &sec, &chosen);
    case CP_PRED_HYPERCUBE_P3:
        return redist_coll_predict("reduce_scatter", "hypercube", 3, 8, 1e-6, 1e-9, &sec, &chosen);
    case CP_PRED_NULL_CHOSEN:
        return redist_coll_predict("bcast", "auto", 4, 8, 1e-6, 1e-9, &sec, NULL);
    }
    return NOT_AS_DOCUMENTED;
}

/* The entries of this file, in the catalogue's order. */
void add_coll_table_entries(void)
{
    const char *cn = "redist_coll_algorithm_name", *cp = "redist_coll_predict";
    EF(cn, "operation NULL: NULL", run_coll_tables, CP_NAME_NULL_OP, OK, NULL, ANY, F_NO_DETAIL);
    EF(cn, "unknown operation: NULL", run_coll_tables, CP_NAME_UNKNOWN_OP, OK, NULL, ANY,
       F_NO_DETAIL);
    EF(cn, "i < 0: NULL", run_coll_tables, CP_NAME_NEG, OK, NULL, ANY, F_NO_DETAIL);
    EF(cn, "i INT_MAX: NULL", run_coll_tables, CP_NAME_PAST, OK, NULL, ANY, F_NO_DETAIL);
    E(cp, "operation NULL", run_coll_tables, CP_PRED_NULL_OP, ARG, "operation", ANY);
    E(cp, "unknown operation", run_coll_tables, CP_PRED_UNKNOWN_OP, ARG, "broadcast", ANY);
    E(cp, "p 0", run_coll_tables, CP_PRED_P0, ARG, "p >= 1", ANY);
    E(cp, "m < 0", run_coll_tables, CP_PRED_M_NEG, ARG, "p >= 1", ANY);
    E(cp, "ts NaN", run_coll_tables, CP_PRED_TS_NAN, ARG, "p >= 1", ANY);
    E(cp, "tw < 0", run_coll_tables, CP_PRED_TW_NEG, ARG, "p >= 1", ANY);
    E(cp, "seconds NULL", run_coll_tables, CP_PRED_NULL_SECONDS, ARG, "seconds", ANY);
    E(cp, "unknown algorithm", run_coll_tables, CP_PRED_UNKNOWN_ALG, UNK, "binomial", ANY);
    E(cp, "reduce_scatter hypercube for p 3", run_coll_tables, CP_PRED_HYPERCUBE_P3, NA,
      "power of two", ANY);
    E(cp, "chosen NULL (legal)", run_coll_tables, CP_PRED_NULL_CHOSEN, OK, NULL, ANY);
}
