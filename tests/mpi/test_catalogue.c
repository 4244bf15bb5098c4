/* The bad-input catalogue: every public function of redist.h against every class of
 * bad input, as one table. Each entry names the function, the class of bad input, a runner
 * and its variant (which argument the runner spoils), the code every rank must return and a
 * word its detail must contain. For each entry the driver checks, on every rank:
 *
 *   - the same code on every rank (MPI_Allreduce of min and max), and the expected one;
 *   - no hang: the entry runs under a watchdog (mtest_watchdog) that names it and exits;
 *   - no crash: a signal handler names the entry before the process dies (not under ASan,
 *     whose own report is better);
 *   - on failure a non-empty detail recorded by this call (a sentinel detail set before the
 *     entry must be gone), containing the expected word, and the same detail on every rank
 *     for the collective creators (agreement broadcasts the failing rank's detail);
 *   - a non-empty redist_strerror for the code, distinct for distinct codes (its own entry);
 *   - a failed create leaves its output handle NULL (handles start as garbage).
 *
 * It runs with MPI's default error handlers (MPI_ERRORS_ARE_FATAL on every communicator, the
 * intercommunicator included): an error that MPI raised on a handle the library did not
 * create would abort the job instead of coming back as a code.
 *
 * Arguments that differ between ranks (layouts, windows, irregular blocks, algorithms, types,
 * roots, counts, shifts, ops, options fields, permutations, alpha/beta, batch counts, BMMC
 * matrices, intercommunicator sides) are spoiled on the last rank only, so that rank 0's
 * value is the reference the MISMATCH detail compares with. Entries that need two ranks, a
 * power of two or not, are skipped otherwise (counted). The expected codes follow redist.h;
 * where it is silent, docs/errors.md records the choice made here.
 *
 * Not here (docs/errors.md, "The caller's responsibility"): what no library can detect
 * (buffers too small, dangling handles, different functions called on different ranks,
 * MPI_COMM_NULL or check_arguments = 0 with bad buffers on some ranks only). The ScaLAPACK
 * entry points' bad inputs are in test_scalapack.c; plans before MPI_Init in test_hostile.c.
 *
 * The entries live beside their runners in tests/mpi/catalogue/, one file per part of redist.h
 * (catalogue.h lists them; each adds its entries in the order below); this file holds the
 * table and the driver, and tests/mpi/catalogue/outside.c the calls outside MPI's lifetime.
 *
 * Options: -v names each entry on rank 0 before it runs; --list prints the table and exits.
 * Output: " No Errors" on success, else one line per failed check and " Found N errors".
 */
/* nprocs: 1 2 3 4 */
/* (one rank; two; three: not a power of two, a group of two ranks on one side of the
   intercommunicator; four: a power of two above two. Any count works when run by hand.) */
#include <signal.h>
#include <unistd.h>

#include "catalogue/catalogue.h"

static int case_seconds = 60; /* per entry (milliseconds each); env CATALOGUE_SECONDS */

int rank, size, last, errs;
char case_name[320];
static int verbose;

/* ---- the table ------------------------------------------------------------------------- */

typedef struct {
    const char *function; /* the public function(s) */
    const char *bad;      /* the class of bad input */
    runner run;
    int v;              /* the runner's variant */
    int want;           /* the code every rank must return */
    const char *detail; /* a word the detail must contain (NULL: any non-empty detail) */
    int when, flags;
} entry;

enum { MAX_ENTRIES = 1000 };
static entry table[MAX_ENTRIES];
static int nentries;

void add(const char *function, const char *bad, runner run, int v, int want, const char *detail,
         int when, int flags)
{
    if (nentries < MAX_ENTRIES)
        table[nentries++] = (entry){function, bad, run, v, want, detail, when, flags};
}

/* The entries, part by part. */
static void build_catalogue(void)
{
    add_error_entries();
    add_layout_entries();
    add_hpf_entries();
    add_bmmc_matrix_entries();
    add_coll_table_entries();
    add_plan_create_entries();
    add_inter_entries();
    add_batch_entries();
    add_bmmc_plan_entries();
    add_relabel_entries();
    add_execute_entries();
    add_coll_entries();
}

/* ---- the driver ---------------------------------------------------------------------------- */

static char sentinel[512];

/* A detail no entry produces, so that an error that records none is seen. */
static void set_sentinel(void)
{
    redist_bmmc_identity(-77, NULL);
}

static int applies(int when)
{
    int pow2 = (size & (size - 1)) == 0;
    return !((when & MULTI) && size < 2) && !((when & MULTI3) && size < 3) &&
           !((when & POW2) && !pow2) && !((when & NOT_POW2) && pow2);
}

static uint64_t hash_string(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; s != NULL && *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static volatile sig_atomic_t in_case; /* for the crash handler */
static char crash_line[400];
static size_t crash_len;

static void on_crash(int sig)
{
    if (in_case) {
        ssize_t ignored = write(STDOUT_FILENO, crash_line, crash_len);
        (void)ignored;
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install_crash_handlers(void)
{
#if defined(__SANITIZE_ADDRESS__)
    return; /* ASan's report names the place */
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    return;
#endif
#endif
    signal(SIGSEGV, on_crash);
    signal(SIGBUS, on_crash);
    signal(SIGFPE, on_crash);
    signal(SIGABRT, on_crash);
    signal(SIGILL, on_crash);
}

static int ran, skipped;

static void run_entry(const entry *e)
{
    if (!applies(e->when)) {
        skipped++;
        return;
    }
    ran++;
    snprintf(case_name, sizeof case_name, "%s: %s", e->function, e->bad);
    int n = snprintf(crash_line, sizeof crash_line, "[rank %d] crashed in: %s\n", rank, case_name);
    crash_len = n < 0 ? 0 : (size_t)n < sizeof crash_line ? (size_t)n : sizeof crash_line - 1;
    if (verbose && rank == 0) {
        printf("%s", case_name);
        fflush(stdout);
    }
    double t0 = MPI_Wtime();
    set_sentinel();
    mtest_watchdog(case_seconds, rank, "%s", case_name);
    in_case = 1;
    int rc = e->run(e->v);
    in_case = 0;
    mtest_watchdog(0, rank, "%s", "");
    if (verbose && rank == 0)
        printf(" (%.3f s)\n", MPI_Wtime() - t0);

    int mn, mx;
    MPI_Allreduce(&rc, &mn, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&rc, &mx, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    const char *d = redist_last_error_detail();
    if (mn != mx)
        fail("different codes on different ranks: %s (%d) here, min %d, max %d; detail \"%s\"",
             redist_error_name(rc), rc, mn, mx, d ? d : "(NULL)");
    if (rc != e->want) {
        if (rc == NOT_AS_DOCUMENTED)
            fail("the result is not the documented one");
        else
            fail("returned %s, expected %s; detail \"%s\"", redist_error_name(rc),
                 redist_error_name(e->want), d ? d : "(NULL)");
    }
    const char *msg = redist_strerror(rc);
    if (msg == NULL || msg[0] == '\0')
        fail("redist_strerror(%d) is empty", rc);
    int check_detail = rc < 0 && rc != NOT_AS_DOCUMENTED && !(e->flags & F_NO_DETAIL);
    if (check_detail) {
        if (d == NULL || d[0] == '\0')
            fail("%s without a detail", redist_error_name(rc));
        else if (strcmp(d, sentinel) == 0)
            fail("%s without a detail of its own (the previous one is still there)",
                 redist_error_name(rc));
        else if (e->detail != NULL && rc == e->want && strstr(d, e->detail) == NULL)
            fail("the detail \"%s\" does not mention \"%s\"", d, e->detail);
    }
    /* Collective calls: every rank reads the failing rank's detail. */
    uint64_t h = check_detail && !(e->flags & F_OWN_DETAIL) ? hash_string(d) : 0, hmin, hmax;
    MPI_Allreduce(&h, &hmin, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&h, &hmax, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    if (mn == mx && hmin != hmax)
        fail("the ranks read different details; here \"%s\"", d ? d : "(NULL)");
}

int main(int argc, char **argv)
{
    int before[NOUT], before_set[NOUT], after[NOUT], after_set[NOUT];
    outside_mpi(before, before_set); /* no MPI call may come before this */
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* MPI's default error handlers stay: see the top of the file. */
    last = size - 1;
    int list = 0;
    for (int i = 1; i < argc; i++) {
        verbose |= strcmp(argv[i], "-v") == 0;
        list |= strcmp(argv[i], "--list") == 0;
    }
    const char *secs = getenv("CATALOGUE_SECONDS");
    if (secs != NULL && atoi(secs) > 0)
        case_seconds = atoi(secs);
    install_crash_handlers();
    set_sentinel();
    snprintf(sentinel, sizeof sentinel, "%s", redist_last_error_detail());

    build_catalogue();
    if (list) {
        if (rank == 0)
            for (int i = 0; i < nentries; i++)
                printf("%-34s %-70s %s\n", table[i].function, table[i].bad,
                       redist_error_name(table[i].want));
        MPI_Finalize();
        return 0;
    }
    make_fixtures();
    double t0 = MPI_Wtime();
    for (int i = 0; i < nentries; i++)
        run_entry(&table[i]);
    double t = MPI_Wtime() - t0;
    free_fixtures();
    errs += report_outside("before MPI_Init", before, before_set);
    if (rank == 0)
        printf("test_catalogue: %d entries and %d calls outside MPI's lifetime, %d run, %d "
               "skipped at %d ranks, %.2f s\n",
               nentries, 2 * NOUT, ran, skipped, size, t);
    int status = mtest_finalize(errs);
    outside_mpi(after, after_set);
    int bad = report_outside("after MPI_Finalize", after, after_set);
    return status != 0 || bad != 0;
}
