/* Execution: execute = start + wait; start/test/wait drive the chosen algorithm.
 *
 * Bad buffer arguments are local knowledge, but every rank must return the same code and
 * none may hang. So a rank that finds its buffers bad still takes part in the exchange
 * "dry" (posting every message, touching no user memory), and the ranks agree on the
 * outcome with a nonblocking MPI_Iallreduce that overlaps the exchange (option
 * check_arguments, on by default). */
#include "exec/exec.h"
#include "exec/shared.h"

#include "device/device.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* The Fortran module passes this address for a non-contiguous buffer, so that the rank still
   makes the collective call and every rank returns REDIST_ERR_ARG, instead of returning alone
   while the others wait for it. It lives here, with the check, so that the execution layer
   calls nothing above it (api/fortran.c is the module's C side). */
static const char not_contiguous[1];
const void *redist_f_not_contiguous(void)
{
    return not_contiguous;
}

/* A language binding's refused argument (redist_bad_buffer): the address, and why, per
   thread (the calling thread passes it to its own execute). */
static const char bad_buffer[1];
static _Thread_local char bad_buffer_why[256];
const void *redist_bad_buffer(const char *why)
{
    snprintf(bad_buffer_why, sizeof bad_buffer_why, "%s", why != NULL ? why : "refused");
    return bad_buffer;
}

/* Whether bytes [a_lo, a_hi) past a and [b_lo, b_hi) past b overlap. */
static int ranges_overlap(const void *a, int64_t a_lo, int64_t a_hi, const void *b, int64_t b_lo,
                          int64_t b_hi)
{
    uintptr_t x = (uintptr_t)a + (uintptr_t)a_lo, y = (uintptr_t)b + (uintptr_t)b_lo;
    int64_t na = a_hi - a_lo, nb = b_hi - b_lo;
    return na > 0 && nb > 0 && x < y + (uintptr_t)nb && y < x + (uintptr_t)na;
}

/* MPI_IN_PLACE is not an array ((void *)1 in Open MPI): writing through it would crash. In-place
   redistribution is not supported (the self part and early receives would overwrite source elements
   not yet sent). */
static int check_sentinel(const void *buf, const char *name)
{
    if (buf == MPI_IN_PLACE)
        return redist__fail(
            REDIST_ERR_ARG,
            "%s is MPI_IN_PLACE: redistribution needs separate source and destination arrays",
            name);
    if (buf == redist_f_not_contiguous())
        return redist__fail(REDIST_ERR_ARG,
                            "%s is a non-contiguous Fortran array: pass a contiguous one (a "
                            "compiler's copy would not stay in place until the execution ends)",
                            name);
    if (buf == bad_buffer)
        return redist__fail(REDIST_ERR_ARG, "%s: %s", name, bad_buffer_why);
    return REDIST_SUCCESS;
}

/* inner: the pointers are already at the base (a child plan's). */
static int check_buffers(redist_plan p, const void *src, void *dst, int inner)
{
    int64_t es = (int64_t)p->elsize, sb = inner ? p->src_base : 0, db = inner ? p->dst_base : 0;
    int err = check_sentinel(src, "src");
    if (err == REDIST_SUCCESS)
        err = check_sentinel(dst, "dst");
    if (err != REDIST_SUCCESS)
        return err;
    if (src == NULL && p->src_count > 0)
        return redist__fail(REDIST_ERR_ARG, "src is NULL but this rank holds %lld source elements",
                            (long long)p->src_count);
    if (dst == NULL && p->dst_count > 0)
        return redist__fail(REDIST_ERR_ARG,
                            "dst is NULL but this rank holds %lld destination elements",
                            (long long)p->dst_count);
    /* The elements each side touches (a window's bounding box in its local array). */
    if (ranges_overlap(src, (p->src_lo - sb) * es, (p->src_hi - sb) * es, dst,
                       (p->dst_lo - db) * es, (p->dst_hi - db) * es))
        return redist__fail(REDIST_ERR_ARG, "src and dst overlap");
    /* device plans: where the arrays are, from the first element each side touches */
    return redist__staging_check(
        p, src == NULL ? NULL : (const char *)src + (p->src_lo - sb) * es, p->src_hi - p->src_lo,
        dst == NULL ? NULL : (const char *)dst + (p->dst_lo - db) * es, p->dst_hi - p->dst_lo);
}

/* A dry execution that hands the user's arrays to MPI (datatypes) must still move the right
   amount of data: it reads and writes scratch arrays instead (an error path, so allocating
   here is fine). */
static int scratch_buffers(redist_plan p)
{
    redist__free(p->dry_src);
    redist__free(p->dry_dst);
    p->dry_src = redist__calloc((size_t)p->src_hi + 1, p->elsize);
    p->dry_dst = redist__malloc(((size_t)p->dst_hi + 1) * p->elsize);
    if (p->dry_src == NULL || p->dry_dst == NULL)
        return redist__fail(REDIST_ERR_NOMEM, "scratch buffers for a failed execute");
    p->cur_src = p->dry_src;
    p->cur_dst = p->dry_dst;
    return REDIST_SUCCESS;
}

/* The user's pointer moved to local index 0 of a window (window.c); NULL stays NULL. */
static const char *at_base(const void *buf, int64_t base, size_t elsize)
{
    return buf == NULL ? NULL : (const char *)buf + base * (int64_t)elsize;
}

/* Starts an execution; force_dry: run dry whatever the buffers (an inner plan of a dry
   outer execution); inner: a child plan, whose buffers its parent has already moved to the
   base. */
int redist__check_execute_buffers(redist_plan p, const void *src, void *dst)
{
    return check_buffers(p, src, dst, 0);
}

static int begin(redist_plan p, const void *src, void *dst, int force_dry, int inner)
{
    if (p == NULL)
        return redist__fail(REDIST_ERR_ARG, "plan is NULL");
    if (redist__check_mpi() != REDIST_SUCCESS)
        return REDIST_ERR_MPI;
    if (p->algo->is_batch)
        return redist__fail(REDIST_ERR_ARG, "a batch plan runs with redist_start_batch");
    if (p->active)
        return redist__fail(REDIST_ERR_BUSY, "start: an execution is already in progress");
    p->local_error = force_dry ? REDIST_SUCCESS : check_buffers(p, src, dst, inner);
    if (p->local_error != REDIST_SUCCESS && !p->check_arguments)
        return p->local_error;
    p->dry = force_dry || p->local_error != REDIST_SUCCESS;
    p->cur_src = src;
    p->cur_dst = dst;
    if (p->dry && (p->transport == REDIST_TRANSPORT_DATATYPE || p->algo->dry_needs_buffers)) {
        int err = scratch_buffers(p);
        if (err != REDIST_SUCCESS)
            return err;
    }
    if (!inner) {
        p->cur_src = at_base(p->cur_src, p->src_base, p->elsize);
        p->cur_dst = (char *)at_base(p->cur_dst, p->dst_base, p->elsize);
    }
    if (!inner && !p->dry) {
        /* redist_alloc's allocations holding the arrays stay until this execute completes
           (finish); known before the algorithm starts, whose sends may read src in place
           (onecopy.c) */
        p->held[0] = redist__shared_hold(src);
        p->held[1] = redist__shared_hold(dst);
        if (p->device != NULL) { /* and redist_device_alloc's */
            p->held_dev[0] = redist__given_hold(src);
            p->held_dev[1] = redist__given_hold(dst);
        }
    }
    return redist__begin_checked(p, p->local_error);
}

/* The allocations the execute holds (exec.h's held and held_more), released. */
static void release_held(redist_plan p)
{
    for (int i = 0; i < 2; i++) {
        redist__shared_release(p->held[i]);
        redist__given_release(p->held_dev[i]);
        p->held[i] = NULL;
        p->held_dev[i] = NULL;
    }
    for (int i = 0; i < p->nheld_more; i++) {
        redist__shared_release(p->held_more[i]);
        p->held_more[i] = NULL;
    }
}

static int begin_holding(redist_plan p, int local_err);

int redist__begin_checked(redist_plan p, int local_err)
{
    int err = begin_holding(p, local_err);
    if (!p->active) /* refused before it started: nothing in flight */
        release_held(p);
    return err;
}

/* redist__begin_checked, the allocations held by the caller. */
static int begin_holding(redist_plan p, int local_err)
{
    if (p->broken)
        return redist__fail(REDIST_ERR_STATE, "an MPI error broke this plan in an earlier "
                                              "execution: free it and create it again");
    p->local_error = local_err;
    if (local_err != REDIST_SUCCESS && !p->check_arguments)
        return local_err;
    p->dry = p->dry || local_err != REDIST_SUCCESS;
    p->global_error = REDIST_SUCCESS;
    p->check_req = MPI_REQUEST_NULL;
    if (p->check_arguments && MPI_Iallreduce(&p->local_error, &p->global_error, 1, MPI_INT, MPI_MIN,
                                             p->comm, &p->check_req) != MPI_SUCCESS)
        return redist__fail(REDIST_ERR_MPI, "MPI_Iallreduce failed");
    p->active = 1;
    p->algo_done = 0;
    p->executes++;
    int err = p->algo->start(p);
    if (err != REDIST_SUCCESS) { /* an MPI failure: its messages are not all posted, so
                                    waiting for them could wait forever */
        p->local_error = err;
        p->algo_done = 1;
        p->broken = 1;
    }
    return REDIST_SUCCESS;
}

int redist_start(redist_plan p, const void *src, void *dst)
{
    return begin(p, src, dst, 0, 0);
}

int redist__start_inner(redist_plan inner, const void *src, void *dst, int dry)
{
    return begin(inner, src, dst, dry, 1);
}

/* Whether the execute's device failures are agreed: device plans whose executes agree on
   their arguments (options.memory is the same on every rank once the plan exists). */
static int agrees_on_device(const struct redist_plan_s *p)
{
    return p->check_arguments && p->opt.memory != REDIST_MEMORY_HOST && p->size > 1;
}

/* Device plans: a failed kernel or copy, or a peer's src that this rank could not map, is
   known to one rank only; once the algorithm is done, the ranks agree on it (nonblocking, as
   on the arguments), so that every rank returns the same. *done: the agreement completed. */
static int agree_on_device(redist_plan p, int blocking, int *done)
{
    *done = 1;
    if (!agrees_on_device(p))
        return REDIST_SUCCESS;
    if (!p->device_agreeing) {
        p->device_error = redist__staging_error(p); /* the stream waited for, in any case */
        p->device_agreed = REDIST_SUCCESS;
        if (p->broken) /* an MPI failure: no collective is safe now (this rank's own error) */
            return REDIST_SUCCESS;
        if (p->local_error != REDIST_SUCCESS) /* bad arguments: that is the error agreed */
            p->device_error = REDIST_SUCCESS;
        p->device_agreeing = 1;
        if (MPI_Iallreduce(&p->device_error, &p->device_agreed, 1, MPI_INT, MPI_MIN, p->comm,
                           &p->device_req) != MPI_SUCCESS) {
            p->device_req = MPI_REQUEST_NULL;
            p->broken = 1;
            return redist__fail(REDIST_ERR_MPI, "MPI_Iallreduce (device failures) failed");
        }
    }
    int flag = 1, rc = blocking ? MPI_Wait(&p->device_req, MPI_STATUS_IGNORE)
                                : MPI_Test(&p->device_req, &flag, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) {
        p->broken = 1;
        p->device_agreed = redist__fail(REDIST_ERR_MPI, "MPI_Iallreduce (device failures) failed");
        flag = 1;
    }
    *done = flag;
    return REDIST_SUCCESS;
}

/* Completes the argument agreement and closes the execution. Bad arguments anywhere come
   first, then a device failure anywhere (agree_on_device). */
static int finish(redist_plan p)
{
    int err = p->local_error;
    if (!agrees_on_device(p) && err == REDIST_SUCCESS) /* a kernel or a copy that failed */
        err = redist__staging_error(p);
    if (p->check_arguments) {
        if (MPI_Wait(&p->check_req, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            err = redist__fail(REDIST_ERR_MPI, "MPI_Iallreduce completion failed");
        else if (p->global_error != REDIST_SUCCESS && err == REDIST_SUCCESS)
            err = redist__fail(p->global_error, "another rank passed bad arguments to execute");
    }
    if (agrees_on_device(p) && err == REDIST_SUCCESS) {
        err = p->device_error;
        if (err == REDIST_SUCCESS && p->device_agreed != REDIST_SUCCESS)
            err = p->device_agreed == REDIST_ERR_MPI
                      ? REDIST_ERR_MPI
                      : redist__fail(p->device_agreed,
                                     "another rank's device kernel or copy failed in this "
                                     "execute (its own error says which)");
    }
    p->device_agreeing = 0;
    p->active = 0;
    p->dry = 0;
    release_held(p);
    p->cur_src = NULL;
    p->cur_dst = NULL;
    return err;
}

static int drive(redist_plan p, int blocking, int *done)
{
    /* Once the algorithm has finished, it is not called again: a redist_test that still
       waits for the argument agreement must not repeat blocking exchanges (bmmc's rounds,
       [GGKK03]'s all-to-all) or unpack twice. */
    *done = p->algo_done;
    int was_done = p->algo_done;
    int err = p->algo_done ? REDIST_SUCCESS : p->algo->progress(p, blocking, done);
    if (err != REDIST_SUCCESS) { /* an MPI failure: nothing sensible remains to wait for */
        p->local_error = err;
        p->broken = 1;
        *done = 1;
    }
    p->algo_done = *done;
    if (*done && !was_done && !p->broken) /* device one copy: src kept until peers read it */
        redist__onecopy_end(p);
    if (!*done)
        return REDIST_SUCCESS;
    err = agree_on_device(p, blocking, done);
    if (!*done)
        return REDIST_SUCCESS;
    if (err != REDIST_SUCCESS) {
        p->local_error = err;
        return finish(p);
    }
    if (!blocking && p->check_arguments) {
        int flag = 0;
        if (MPI_Test(&p->check_req, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return finish(p); /* its MPI_Wait reports the failure */
        if (!flag) {
            *done = 0;
            return REDIST_SUCCESS;
        }
    }
    return finish(p);
}

int redist_test(redist_plan p, int *done)
{
    if (p == NULL || done == NULL)
        return redist__fail(REDIST_ERR_ARG, "test: NULL argument");
    if (!p->active) { /* like MPI_Test on an inactive persistent request */
        *done = 1;
        return REDIST_SUCCESS;
    }
    return drive(p, 0, done);
}

int redist_wait(redist_plan p)
{
    if (p == NULL)
        return redist__fail(REDIST_ERR_ARG, "wait: plan is NULL");
    if (!p->active) /* like MPI_Wait on an inactive persistent request */
        return REDIST_SUCCESS;
    int done = 0;
    return drive(p, 1, &done);
}

int redist_execute(redist_plan p, const void *src, void *dst)
{
    int err = redist_start(p, src, dst);
    return err != REDIST_SUCCESS ? err : redist_wait(p);
}
