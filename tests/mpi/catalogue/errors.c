/* The bad-input catalogue (tests/mpi/test_catalogue.c): the error functions, algorithm names and
 * options. */
#include "catalogue.h"

/* ---- error functions, algorithm names, options ------------------------------------------ */

enum {
    ER_MESSAGES,
    ER_UNKNOWN_CODES,
    ER_NAMES,
    ER_DETAIL,
    AN_PAST,
    AN_NEG,
    AN_MIN,
    AN_MAX,
    AN_COUNT,
    OI_NULL
};

static int run_misc(int v)
{
    static const int codes[] = {REDIST_SUCCESS,
                                REDIST_ERR_ARG,
                                REDIST_ERR_NOMEM,
                                REDIST_ERR_MPI,
                                REDIST_ERR_NOT_APPLICABLE,
                                REDIST_ERR_UNKNOWN_ALGORITHM,
                                REDIST_ERR_MISMATCH,
                                REDIST_ERR_UNSUPPORTED,
                                REDIST_ERR_BUSY,
                                REDIST_ERR_STATE};
    static const char *names[] = {"REDIST_SUCCESS",
                                  "REDIST_ERR_ARG",
                                  "REDIST_ERR_NOMEM",
                                  "REDIST_ERR_MPI",
                                  "REDIST_ERR_NOT_APPLICABLE",
                                  "REDIST_ERR_UNKNOWN_ALGORITHM",
                                  "REDIST_ERR_MISMATCH",
                                  "REDIST_ERR_UNSUPPORTED",
                                  "REDIST_ERR_BUSY",
                                  "REDIST_ERR_STATE"};
    enum { NCODES = sizeof codes / sizeof codes[0] };
    int ok = 1, n = redist_algorithm_count();
    switch (v) {
    case ER_MESSAGES: /* one clear message per code: non-empty, and no two alike */
        for (int i = 0; i < NCODES; i++) {
            const char *m = redist_strerror(codes[i]);
            if (m == NULL || m[0] == '\0') {
                fail("redist_strerror(%d) is \"%s\"", codes[i], m ? m : "(NULL)");
                ok = 0;
                continue;
            }
            for (int j = 0; j < i; j++)
                if (strcmp(m, redist_strerror(codes[j])) == 0) {
                    fail("codes %d and %d share the message \"%s\"", codes[i], codes[j], m);
                    ok = 0;
                }
            if (strcmp(m, redist_strerror(-12345)) == 0) {
                fail("code %d has the unknown code's message", codes[i]);
                ok = 0;
            }
        }
        break;
    case ER_UNKNOWN_CODES: {
        const int bad[] = {1, 12345, -10, -12345, INT_MIN, INT_MAX};
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            const char *m = redist_strerror(bad[i]), *nm = redist_error_name(bad[i]);
            if (m == NULL || m[0] == '\0' || nm == NULL || strcmp(nm, "REDIST_ERR_UNKNOWN") != 0) {
                fail("code %d: message \"%s\", name \"%s\"", bad[i], m ? m : "(NULL)",
                     nm ? nm : "(NULL)");
                ok = 0;
            }
        }
        break;
    }
    case ER_NAMES:
        for (int i = 0; i < NCODES; i++) {
            const char *nm = redist_error_name(codes[i]);
            if (nm == NULL || strcmp(nm, names[i]) != 0) {
                fail("redist_error_name(%d) = \"%s\", expected %s", codes[i], nm ? nm : "(NULL)",
                     names[i]);
                ok = 0;
            }
        }
        break;
    case ER_DETAIL:
        ok = redist_last_error_detail() != NULL;
        break;
    case AN_PAST:
        ok = redist_algorithm_name(n) == NULL;
        break;
    case AN_NEG:
        ok = redist_algorithm_name(-1) == NULL;
        break;
    case AN_MIN:
        ok = redist_algorithm_name(INT_MIN) == NULL;
        break;
    case AN_MAX:
        ok = redist_algorithm_name(INT_MAX) == NULL;
        break;
    case AN_COUNT:
        for (int i = 0; i < n; i++) {
            const char *a = redist_algorithm_name(i);
            ok &= a != NULL && a[0] != '\0';
        }
        ok &= n >= 5;
        break;
    case OI_NULL:
        redist_options_init(NULL); /* must not crash */
        break;
    }
    return ok ? REDIST_SUCCESS : NOT_AS_DOCUMENTED;
}

/* The entries of this file, in the catalogue's order. */
void add_error_entries(void)
{
    EF("redist_strerror", "every code: a message of its own", run_misc, ER_MESSAGES, OK, NULL, ANY,
       F_NO_DETAIL);
    EF("redist_strerror, redist_error_name", "unknown codes (1, -10, INT_MIN, ...)", run_misc,
       ER_UNKNOWN_CODES, OK, NULL, ANY, F_NO_DETAIL);
    EF("redist_error_name", "every code's name", run_misc, ER_NAMES, OK, NULL, ANY, F_NO_DETAIL);
    EF("redist_last_error_detail", "never NULL", run_misc, ER_DETAIL, OK, NULL, ANY, F_NO_DETAIL);
    EF("redist_algorithm_name", "i == count: NULL", run_misc, AN_PAST, OK, NULL, ANY, F_NO_DETAIL);
    EF("redist_algorithm_name", "i = -1: NULL", run_misc, AN_NEG, OK, NULL, ANY, F_NO_DETAIL);
    EF("redist_algorithm_name", "i = INT_MIN: NULL", run_misc, AN_MIN, OK, NULL, ANY, F_NO_DETAIL);
    EF("redist_algorithm_name", "i = INT_MAX: NULL", run_misc, AN_MAX, OK, NULL, ANY, F_NO_DETAIL);
    EF("redist_algorithm_count", "every name non-empty", run_misc, AN_COUNT, OK, NULL, ANY,
       F_NO_DETAIL);
    EF("redist_options_init", "NULL (no crash)", run_misc, OI_NULL, OK, NULL, ANY, F_NO_DETAIL);
}
