/* The bad-input catalogue (tests/mpi/test_catalogue.c): the HPF index functions. */
#include "catalogue.h"

/* ---- HPF index functions (local) ---------------------------------------------------------- */

enum {
    H_CHECK_NULL,
    H_KIND,
    H_N_NEG,
    H_P0,
    H_M_NEG,
    H_CYCLIC_M2,
    H_CYCLICM_M0,
    H_BLOCK_SMALL,
    H_HUGE_N,
    H_OWNER_NEG,
    H_OWNER_N,
    H_OWNER_BAD_D,
    H_LOCAL_NEG,
    H_LOCAL_N,
    H_LOCAL_NULL,
    H_GLOBAL_P_NEG,
    H_GLOBAL_P_BIG,
    H_GLOBAL_L_NEG,
    H_GLOBAL_L_BIG,
    H_COUNT_P_NEG,
    H_COUNT_P_BIG,
    H_COUNT_NULL,
    H_LAYOUT_NULL_OUT,
    H_LAYOUT_BAD_D,
    H_LAYOUT_RANKS_DUP,
    H_LAYOUT_HUGE
};

static int code64(int64_t r)
{
    return r < 0 ? (int)r : REDIST_SUCCESS;
}

static int run_hpf(int v)
{
    redist_hpf_dist d = {REDIST_HPF_CYCLIC_M, 20, 3, 4}, *pd_ = &d;
    int ranks[4] = {0, 1, 2, 3};
    redist_layout l = garbage(), *pl = &l;
    switch (v) {
    case H_CHECK_NULL:
        return redist_hpf_check(NULL);
    case H_KIND:
        d.kind = 7;
        return redist_hpf_check(&d);
    case H_N_NEG:
        d.n = -1;
        return redist_hpf_check(&d);
    case H_P0:
        d.P = 0;
        return redist_hpf_check(&d);
    case H_M_NEG:
        d.m = -3;
        return redist_hpf_check(&d);
    case H_CYCLIC_M2:
        d.kind = REDIST_HPF_CYCLIC;
        d.m = 2;
        return redist_hpf_check(&d);
    case H_CYCLICM_M0:
        d.m = 0;
        return redist_hpf_check(&d);
    case H_BLOCK_SMALL: /* BLOCK(4) over 4 processors cannot hold 20 */
        d.kind = REDIST_HPF_BLOCK;
        d.m = 4;
        return redist_hpf_check(&d);
    case H_HUGE_N: { /* legal: index math near INT64_MAX must not overflow */
        redist_hpf_dist h = {REDIST_HPF_BLOCK, INT64_MAX, 0, 3};
        int64_t g = INT64_MAX - 1, m = INT64_MAX / 3 + 1;
        int rc = redist_hpf_check(&h);
        if (rc == REDIST_SUCCESS &&
            (redist_hpf_owner(&h, g) != (int)(g / m) || redist_hpf_local(&h, g) != g % m ||
             redist_hpf_global(&h, 2, g % m) != g))
            return NOT_AS_DOCUMENTED;
        return rc;
    }
    case H_OWNER_NEG:
        return redist_hpf_owner(&d, -1);
    case H_OWNER_N:
        return redist_hpf_owner(&d, 20);
    case H_OWNER_BAD_D:
        d.P = -4;
        return redist_hpf_owner(&d, 0);
    case H_LOCAL_NEG:
        return code64(redist_hpf_local(&d, INT64_MIN));
    case H_LOCAL_N:
        return code64(redist_hpf_local(&d, INT64_MAX));
    case H_LOCAL_NULL:
        return code64(redist_hpf_local(NULL, 0));
    case H_GLOBAL_P_NEG:
        return code64(redist_hpf_global(&d, -1, 0));
    case H_GLOBAL_P_BIG:
        return code64(redist_hpf_global(&d, 4, 0));
    case H_GLOBAL_L_NEG:
        return code64(redist_hpf_global(&d, 0, -1));
    case H_GLOBAL_L_BIG: /* processor 0 holds 6 of 20 */
        return code64(redist_hpf_global(&d, 0, 6));
    case H_COUNT_P_NEG:
        return code64(redist_hpf_local_count(&d, INT_MIN));
    case H_COUNT_P_BIG:
        return code64(redist_hpf_local_count(&d, INT_MAX));
    case H_COUNT_NULL:
        return code64(redist_hpf_local_count(NULL, 0));
    case H_LAYOUT_NULL_OUT:
        pl = NULL;
        break;
    case H_LAYOUT_BAD_D:
        pd_ = NULL;
        break;
    case H_LAYOUT_RANKS_DUP:
        ranks[3] = 0;
        break;
    case H_LAYOUT_HUGE: /* a legal distribution, too large for a layout (2^62) */
        d.n = INT64_MAX;
        break;
    }
    return layout_done(redist_hpf_layout(pd_, ranks, pl), pl);
}

/* The entries of this file, in the catalogue's order. */
void add_hpf_entries(void)
{
    E("redist_hpf_check", "d NULL", run_hpf, H_CHECK_NULL, ARG, "NULL", ANY);
    E("redist_hpf_check", "unknown kind", run_hpf, H_KIND, ARG, "kind", ANY);
    E("redist_hpf_check", "n < 0", run_hpf, H_N_NEG, ARG, "n =", ANY);
    E("redist_hpf_check", "P 0", run_hpf, H_P0, ARG, "P =", ANY);
    E("redist_hpf_check", "m < 0", run_hpf, H_M_NEG, ARG, "m =", ANY);
    E("redist_hpf_check", "CYCLIC with m 2", run_hpf, H_CYCLIC_M2, ARG, "CYCLIC", ANY);
    E("redist_hpf_check", "CYCLIC_M with m 0", run_hpf, H_CYCLICM_M0, ARG, "CYCLIC(m)", ANY);
    E("redist_hpf_check", "BLOCK(m) with m P < n", run_hpf, H_BLOCK_SMALL, ARG, "BLOCK", ANY);
    E("redist_hpf_check, _owner, _local, _global", "n = INT64_MAX (legal, no overflow)", run_hpf,
      H_HUGE_N, OK, NULL, ANY);
    E("redist_hpf_owner", "g < 0", run_hpf, H_OWNER_NEG, ARG, "global index", ANY);
    E("redist_hpf_owner", "g == n", run_hpf, H_OWNER_N, ARG, "global index", ANY);
    E("redist_hpf_owner", "a bad d", run_hpf, H_OWNER_BAD_D, ARG, "P =", ANY);
    E("redist_hpf_local", "g INT64_MIN", run_hpf, H_LOCAL_NEG, ARG, "global index", ANY);
    E("redist_hpf_local", "g INT64_MAX", run_hpf, H_LOCAL_N, ARG, "global index", ANY);
    E("redist_hpf_local", "d NULL", run_hpf, H_LOCAL_NULL, ARG, "NULL", ANY);
    E("redist_hpf_global", "p < 0", run_hpf, H_GLOBAL_P_NEG, ARG, "processor", ANY);
    E("redist_hpf_global", "p == P", run_hpf, H_GLOBAL_P_BIG, ARG, "processor", ANY);
    E("redist_hpf_global", "l < 0", run_hpf, H_GLOBAL_L_NEG, ARG, "local index", ANY);
    E("redist_hpf_global", "l == local count", run_hpf, H_GLOBAL_L_BIG, ARG, "local index", ANY);
    E("redist_hpf_local_count", "p INT_MIN", run_hpf, H_COUNT_P_NEG, ARG, "processor", ANY);
    E("redist_hpf_local_count", "p INT_MAX", run_hpf, H_COUNT_P_BIG, ARG, "processor", ANY);
    E("redist_hpf_local_count", "d NULL", run_hpf, H_COUNT_NULL, ARG, "NULL", ANY);
    E("redist_hpf_layout", "layout (output) NULL", run_hpf, H_LAYOUT_NULL_OUT, ARG, "NULL", ANY);
    E("redist_hpf_layout", "d NULL", run_hpf, H_LAYOUT_BAD_D, ARG, "NULL", ANY);
    E("redist_hpf_layout", "ranks repeated", run_hpf, H_LAYOUT_RANKS_DUP, ARG, "distinct", ANY);
    E("redist_hpf_layout", "n = INT64_MAX: too large for a layout", run_hpf, H_LAYOUT_HUGE, ARG,
      "extent", ANY);
}
