/* What the files of the bad-input catalogue share (tests/mpi/test_catalogue.c describes it):
 * the table every file adds its entries to, the fixtures the entries use, and the state of
 * the entry running. Each file of tests/mpi/catalogue/ holds one part of redist.h: its
 * runners (a runner performs variant v of a call, spoiling one argument, and returns the
 * call's code) and its entries, which the driver adds in the order of its parts. */
#ifndef REDIST_TEST_CATALOGUE_H
#define REDIST_TEST_CATALOGUE_H

#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redist.h"
#include "support/mtest.h"

#define NOT_AS_DOCUMENTED (-1000) /* a runner's verdict on a result that is not a code */

/* This process's rank, the communicator's size and its last rank (where arguments that must
   agree are spoiled); the errors found; the entry running (for fail). */
extern int rank, size, last, errs;
extern char case_name[320];

#define fail(...) mtest_fail(&errs, rank, case_name, __VA_ARGS__)

/* ---- the table ------------------------------------------------------------------------- */

typedef int (*runner)(int v);

enum { ANY = 0, MULTI = 1, POW2 = 2, NOT_POW2 = 4, MULTI3 = 8 }; /* the sizes an entry needs */
enum {
    F_OWN_DETAIL = 1, /* ranks read their own details (execute: a rank's own buffer error,
                         "another rank passed bad arguments" elsewhere) */
    F_NO_DETAIL = 2   /* no detail to check (a result that is not an error code) */
};

/* One entry: the public function(s), the class of bad input, the runner and its variant, the
   code every rank must return, a word the detail must contain (NULL: any non-empty detail),
   the sizes it needs and its flags. */
void add(const char *function, const char *bad, runner run, int v, int want, const char *detail,
         int when, int flags);

#define E(fn, bad, run, v, want, detail, when) add(fn, bad, run, v, want, detail, when, 0)
#define EF(fn, bad, run, v, want, detail, when, flags)                                             \
    add(fn, bad, run, v, want, detail, when, flags)

/* The codes as the entries name them. */
enum {
    OK = REDIST_SUCCESS,
    ARG = REDIST_ERR_ARG,
    MIS = REDIST_ERR_MISMATCH,
    UNS = REDIST_ERR_UNSUPPORTED,
    UNK = REDIST_ERR_UNKNOWN_ALGORITHM,
    NA = REDIST_ERR_NOT_APPLICABLE,
    NOMEM = REDIST_ERR_NOMEM,
    BUSY = REDIST_ERR_BUSY
};

/* Each file's entries (in the catalogue's order). */
void add_error_entries(void);       /* errors.c: error functions, algorithm names, options */
void add_layout_entries(void);      /* layouts.c: layouts (local) */
void add_hpf_entries(void);         /* hpf.c: HPF index functions (local) */
void add_bmmc_matrix_entries(void); /* bmmc_matrices.c: BMMC matrices (local) */
void add_coll_table_entries(void);  /* coll_tables.c: the basic operations' tables (local) */
void add_plan_create_entries(void); /* plan_create.c: redist_plan_create */
void add_inter_entries(void);       /* inter.c: redist_plan_create_inter */
void add_batch_entries(void);       /* batch.c: redist_plan_create_batch */
void add_bmmc_plan_entries(void);   /* bmmc_plan.c: redist_plan_create_bmmc */
void add_relabel_entries(void);     /* relabel.c: redist_relabel */
void add_execute_entries(void);     /* execute.c: execute, start, plan states, batches */
void add_coll_entries(void);        /* coll.c: the basic operations */

/* ---- fixtures (fixtures.c) ------------------------------------------------------------- */

extern int64_t N1;           /* 10 size + 3 elements: every rank holds some of both */
extern redist_layout Ls, Ld; /* cyclic(2) over all ranks -> cyclic(3) over all, reversed */
extern redist_layout Ls_b5, Ls_rev, Ls_first, Ls_col, Ls_n1, Ld_n1, Ld_sub, L_beyond;
extern redist_layout L2s, L2d, L2t, Lsq_s, Lsq_d, L2s_ld, L2s_ld_small;
extern redist_layout Lgen, Lgen2, Lw1, Lw2, Lparent;
extern MPI_Datatype T_vec, T_resized, T_uncommitted;
extern MPI_Datatype T_mixed;    /* int, then float: contiguous, never committed */
extern MPI_Datatype T_pairs;    /* one MPI_2INT, never committed */
extern MPI_Datatype T_f90_real; /* MPI_Type_create_f90_real(6, 30): predefined, not freed */
extern MPI_Op op_noncommutative;

/* The intercommunicator (two ranks or more): ranks below `ps` are the source group. */
extern MPI_Comm inter;
extern int is_src, ps, pd;
extern redist_layout LIs, LId, LIs_b5, LIs_beyond;

/* Plans executed by the entries: P (Ls -> Ld, MPI_INT), P_nocheck (check_arguments = 0),
   PB (a batch of two arrays) and PBM (a BMMC identity, power-of-two sizes). */
extern redist_plan P, P_nocheck, PB, PBM;
extern int64_t ns, nd;          /* this rank's elements of Ls and Ld */
extern int *S, *D, *S2, *D2;    /* P's arrays (S holds max(ns, nd) for the overlap case) */
extern int *bs0, *bd0;          /* PB's arrays: array 0 (Ls -> Ld, int) */
extern double *bs1, *bd1;       /* array 1 (Ld -> Ls, double) */
extern double bms[64], bmd[64]; /* PBM's */
extern int bmmc_n;
extern char *cbuf_s, *cbuf_r; /* the basic operations' buffers: p blocks of up to 3 doubles */

/* Collective: all of the above (inter and PBM only where the size allows), and their release. */
void make_fixtures(void);
void free_fixtures(void);

void *garbage(void);     /* a handle no call may dereference (outputs start as garbage) */
int all_ranks(int cond); /* collective: 1 if cond holds on every rank */
/* After a create: a failed one leaves the handle NULL; a plan every rank has is freed. */
int plan_done(int rc, redist_plan *plan);
int layout_done(int rc, redist_layout *l);
void expect_idle(redist_plan p); /* the plan has nothing in flight */

/* ---- outside MPI's lifetime (outside.c) ------------------------------------------------- */

enum { NOUT = 12 }; /* the calls made */
/* Makes every call before MPI_Init or after MPI_Finalize: codes into rc, and whether a create
   set its handle. */
void outside_mpi(int rc[NOUT], int handles_set[NOUT]);
/* Prints each call that did not do as documented (with `when`) and returns their number. */
int report_outside(const char *when, const int rc[NOUT], const int handles_set[NOUT]);

#endif
