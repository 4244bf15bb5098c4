/* Serial test of the device backend's inter-process memory and pull kernel
 * (device/device.h: redist__device_ipc_get, _open, _close, redist__device_pull), on the
 * emulated device, between this process and a child of it (fork: two processes of one
 * machine, as two ranks of a node):
 *
 * - random 1-D to 3-D layout pairs over 1-6 ranks: for a message from rank q to rank r, the
 *   parent holds q's local source, padded by an ld that r does not know (so that r's own
 *   message cannot place the source elements in 2-D and 3-D), in device memory (at an offset inside
 * a larger allocation, whose handle and offset it passes on); the child opens the handle and pulls
 * the message into its own device array in chunks of random size, with q's send message for the
 * source offsets and r's receive message for the destination offsets, and with alpha = 2 on every
 *   third (real doubles). Every element of the child's array is held to what the host's walk
 *   gives (pack q's message from q's source, unpack it as r's message: index/copy.c), and the
 *   elements the message does not cover must keep their value;
 * - the handle's offset and length; a handle of host memory is REDIST_ERR_ARG; opening a
 *   handle of this process's own memory is REDIST_ERR_ARG;
 * - a handle whose allocation its owner has freed (and whose memory file number a newer
 *   allocation may have taken) does not open: REDIST_ERR_ARG, not another allocation's memory.
 */
#include "device/decode.h"
#include "device/device.h"
#include "index/index.h"
#include "index/scale.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support/check.h"

static unsigned long long rng = 0x2545f4914f6cdd1dull;
static int rnd(int n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (int)(rng % (unsigned long long)n);
}

static redist_layout random_layout(int ndims, const int64_t extent[], int nranks)
{
    int64_t block[3];
    int grid[3], np = 1;
    for (int k = 0; k < ndims; k++) {
        block[k] = 1 + rnd(rnd(4) == 0 ? 30 : 6);
        grid[k] = 1 + rnd(3);
        while (np * grid[k] > nranks)
            grid[k]--;
        np *= grid[k];
    }
    redist_layout l = NULL;
    CHECK(redist_layout_create(ndims, extent, block, grid, NULL, NULL, rnd(2), &l) == 0,
          "random layout");
    return l;
}

/* The elements [0, span) a message's side reaches in its array. */
static int64_t span_of(const redist__msg *m, int dst)
{
    int64_t nruns = redist__decode_runs(m), span = 0;
    rd_level *lv = malloc((size_t)(m->nlevels + 1) * sizeof *lv);
    rd_run *runs = malloc((size_t)(nruns + 1) * sizeof *runs);
    redist__decode_build(m, lv, runs);
    for (int64_t e = 0; e < m->nelems; e++) {
        int64_t off = rd_offset(lv, m->nlevels, runs, e, dst);
        span = off + 1 > span ? off + 1 : span;
    }
    free(lv);
    free(runs);
    return span;
}

/* What the parent tells the child through a pipe. */
typedef struct offer {
    redist__ipc_handle handle;
    size_t offset, length;
} offer;

static long pulled, cases;
/* One case's host arrays. File-scope, so that a forked child, which inherits them and exits
   without freeing them, still reaches them (valgrind's leak check: reachable, not lost). */
static double *host_src, *host_packed, *host_want;

/* The child: opens the parent's source, pulls the message, checks every element, and tries
   the stale handle once the parent has freed it. Returns its failures. */
static int child(redist__device *dev, const redist__msg *from, const redist__msg *to,
                 const double *want, int64_t dst_span, int scaled, int in, int out)
{
    offer o;
    if (read(in, &o, sizeof o) != (ssize_t)sizeof o)
        return 1;
    void *base = NULL;
    int rc = redist__device_ipc_open(dev, &o.handle, &base);
    CHECK(rc == REDIST_SUCCESS && base != NULL, "the child opens the parent's handle: %d", rc);
    if (rc != REDIST_SUCCESS)
        return (int)failures;
    size_t bytes = (size_t)dst_span * sizeof(double) + 1;
    double *host = malloc(bytes), *dst = NULL;
    for (int64_t i = 0; i < dst_span; i++)
        host[i] = -1.0 - (double)i; /* what the message does not cover keeps this */
    redist__device_msg *df = NULL, *dt = NULL;
    CHECK(redist__device_alloc(dev, bytes, (void **)&dst) == REDIST_SUCCESS &&
              redist__device_from_host(dev, dst, host, bytes, NULL) == REDIST_SUCCESS &&
              redist__device_upload(dev, from, &df) == REDIST_SUCCESS &&
              redist__device_upload(dev, to, &dt) == REDIST_SUCCESS,
          "the child's array and lists");
    redist__scale sc = {REDIST__REAL8, 0, 1, 0, {2.0, 0.0}, {0.0, 0.0}};
    const char *src = (const char *)base + o.offset;
    for (int64_t lo = 0, step = 1 + rnd(1 + (int)to->nelems); lo < to->nelems; lo += step) {
        int64_t hi = lo + step < to->nelems ? lo + step : to->nelems;
        CHECK(redist__device_pull(dev, df, dt, src, (char *)dst, sizeof(double),
                                  scaled ? &sc : NULL, lo, hi, NULL) == REDIST_SUCCESS,
              "pull [%lld, %lld)", (long long)lo, (long long)hi);
    }
    CHECK(redist__device_to_host(dev, host, dst, bytes, NULL) == REDIST_SUCCESS &&
              redist__device_sync(dev, NULL) == REDIST_SUCCESS,
          "the child's array back");
    for (int64_t i = 0; i < dst_span; i++)
        CHECK(host[i] == want[i], "element %lld of %lld: %g, want %g (%s)", (long long)i,
              (long long)dst_span, host[i], want[i], scaled ? "alpha 2" : "a copy");
    redist__device_forget(dev, df);
    redist__device_forget(dev, dt);
    redist__device_free(dev, dst);
    redist__device_ipc_close(dev, base);
    free(host);
    char go = 1; /* the parent may free its allocation now */
    if (write(out, &go, 1) != 1 || read(in, &go, 1) != 1)
        return (int)failures + 1;
    base = NULL;
    rc = redist__device_ipc_open(dev, &o.handle, &base);
    CHECK(rc == REDIST_ERR_ARG && base == NULL, "a freed allocation's handle opened: %d", rc);
    return (int)failures;
}

/* The parent: q's source in device memory, at an offset in a larger allocation. */
static void one_case(redist__device *dev, const redist__msg *from, const redist__msg *to)
{
    int64_t src_span = span_of(from, 0), dst_span = span_of(to, 1), lead = 1 + rnd(40);
    int scaled = rnd(3) == 0;
    double *src = host_src = malloc((size_t)(src_span + 1) * sizeof *src),
           *packed = host_packed = malloc((size_t)(to->nelems + 1) * sizeof *packed),
           *want = host_want = malloc((size_t)(dst_span + 1) * sizeof *want);
    for (int64_t i = 0; i < src_span; i++)
        src[i] = 1.0 + (double)i;
    for (int64_t i = 0; i < dst_span; i++)
        want[i] = -1.0 - (double)i;
    redist__move_range(from, REDIST__PACK, (const char *)src, (char *)packed, sizeof *src, NULL, 0,
                       from->nelems);
    for (int64_t e = 0; scaled && e < to->nelems; e++)
        packed[e] *= 2.0;
    redist__move_range(to, REDIST__UNPACK, (const char *)packed, (char *)want, sizeof *src, NULL, 0,
                       to->nelems);
    int down[2], up[2];
    if (pipe(down) != 0 || pipe(up) != 0) {
        CHECK(0, "pipes");
        return;
    }
    pid_t pid = fork();
    if (pid == 0) {
        close(down[1]);
        close(up[0]);
        _exit(child(dev, from, to, want, dst_span, scaled, down[0], up[1]) != 0);
    }
    close(down[0]);
    close(up[1]);
    char *alloc = NULL;
    size_t bytes = (size_t)(lead + src_span) * sizeof(double);
    offer o;
    memset(&o, 0, sizeof o);
    CHECK(redist__device_alloc(dev, bytes, (void **)&alloc) == REDIST_SUCCESS &&
              redist__device_from_host(dev, alloc + lead * (int64_t)sizeof(double), src,
                                       (size_t)src_span * sizeof(double), NULL) == REDIST_SUCCESS &&
              redist__device_sync(dev, NULL) == REDIST_SUCCESS,
          "the parent's source");
    CHECK(redist__device_ipc_get(dev, alloc + lead * (int64_t)sizeof(double),
                                 (size_t)src_span * sizeof(double), &o.handle, &o.offset,
                                 &o.length) == REDIST_SUCCESS &&
              o.offset == (size_t)lead * sizeof(double) && o.length >= bytes,
          "the handle: offset %zu, length %zu", o.offset, o.length);
    void *own = NULL;
    CHECK(redist__device_ipc_open(dev, &o.handle, &own) == REDIST_ERR_ARG && own == NULL,
          "this process's own handle opened");
    char go = 0;
    if (write(down[1], &o, sizeof o) != (ssize_t)sizeof o || read(up[0], &go, 1) != 1)
        CHECK(0, "the child did not answer");
    redist__device_free(dev, alloc); /* and a newer allocation may take its file's number */
    void *newer = NULL;
    CHECK(redist__device_alloc(dev, bytes, &newer) == REDIST_SUCCESS, "a newer allocation");
    if (write(down[1], &go, 1) != 1)
        CHECK(0, "the child is gone");
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child found failures (%d)", status);
    redist__device_free(dev, newer);
    close(down[1]);
    close(up[0]);
    pulled += to->nelems;
    cases++;
    free(host_src); /* src, packed, want: freed through the globals that keep them */
    free(host_packed);
    free(host_want);
    host_src = host_packed = host_want = NULL;
}

int main(void)
{
    setenv("REDIST_DEVICE_BACKEND", "emulated", 1);
    redist__device *dev = NULL;
    if (redist__device_get(&dev) != REDIST_SUCCESS) {
        printf("test_device_ipc: the emulated device did not load: %s\n",
               redist_last_error_detail());
        return 1;
    }
    double host[4] = {0};
    redist__ipc_handle h;
    size_t offset = 0, length = 0;
    CHECK(redist__device_ipc_get(dev, host, sizeof host, &h, &offset, &length) == REDIST_ERR_ARG,
          "a handle of host memory");
    for (int t = 0; t < 60; t++) {
        int ndims = 1 + rnd(3), nranks = 1 + rnd(6);
        int64_t extent[3];
        for (int k = 0; k < ndims; k++)
            extent[k] = 1 + rnd(ndims == 1 ? 300 : ndims == 2 ? 40 : 12);
        redist_layout a = random_layout(ndims, extent, nranks),
                      b = random_layout(ndims, extent, nranks);
        int q = rnd(nranks), r = rnd(nranks);
        /* q's source padded (its own ld, which r does not know): r's guess of q's storage is
           then wrong in 2-D and 3-D, and only q's message places the source elements */
        redist_layout aq = a != NULL ? redist__layout_copy(a) : NULL;
        for (int k = 0; aq != NULL && k < ndims; k++)
            aq->ld[k] = extent[k] + 1 + rnd(4);
        redist__side qs, qr, rs, rr;
        redist__msg qself, rself;
        int qhas = 0, rhas = 0;
        if (aq == NULL || b == NULL ||
            redist__sides_create(aq, b, q, &qs, &qr, &qself, &qhas) != 0 ||
            redist__sides_create(a, b, r, &rs, &rr, &rself, &rhas) != 0) {
            CHECK(0, "case %d: layouts and sides", t);
            continue;
        }
        const redist__msg *from = NULL, *to = NULL;
        for (int i = 0; i < qs.nmsgs; i++)
            from = qs.msgs[i].peer == r ? &qs.msgs[i] : from;
        for (int i = 0; i < rr.nmsgs; i++)
            to = rr.msgs[i].peer == q ? &rr.msgs[i] : to;
        if (q == r && qhas) /* a rank's own part: its self message is both */
            from = to = &qself;
        CHECK((from == NULL) == (to == NULL), "case %d: one side has the message", t);
        if (from != NULL && to != NULL) {
            CHECK(from->nelems == to->nelems, "case %d: %lld elements sent, %lld received", t,
                  (long long)from->nelems, (long long)to->nelems);
            if (from->nelems == to->nelems && from->nelems > 0)
                one_case(dev, from, to);
        }
        if (qhas)
            redist__msg_free(&qself);
        if (rhas)
            redist__msg_free(&rself);
        redist__side_free(&qs);
        redist__side_free(&qr);
        redist__side_free(&rs);
        redist__side_free(&rr);
        redist_layout_free(&a);
        redist_layout_free(&aq);
        redist_layout_free(&b);
    }
    printf("test_device_ipc: %ld messages (%ld elements) pulled across processes: %s\n", cases,
           pulled, failures ? "FAILED" : "every element as the host's walk puts it");
    CHECK(cases >= 20, "only %ld messages pulled", cases);
    return failures != 0;
}
