/* redist_explain: what a plan would do, in JSON, without MPI (redist.h). The arguments are
 * checked here as redist_plan_create's phase 1 checks them (api/plan.c), the report is
 * algo/explain_report.c's; `redist explain` prints the same report. */
#include "api/api.h"

#include "algo/explain.h"

#include <string.h>

/* What redist_plan_create checks that needs neither MPI nor the arrays. */
static int check_arguments(redist_layout src, redist_layout dst, int comm_size, int64_t elsize,
                           const redist_options *opt)
{
    if (src == NULL || dst == NULL)
        return redist__fail(REDIST_ERR_ARG, "%s layout is NULL", src == NULL ? "src" : "dst");
    if (comm_size < 1)
        return redist__fail(REDIST_ERR_ARG, "comm_size = %d: a communicator has 1 rank or more",
                            comm_size);
    if (elsize < 1)
        return redist__fail(REDIST_ERR_ARG, "elsize = %lld: an element has 1 byte or more",
                            (long long)elsize);
    int err = redist__check_pair(src, dst, comm_size, opt);
    if (err != REDIST_SUCCESS)
        return err;
    return redist__check_array_bytes(src, (size_t)elsize);
}

int redist__explain_checked(redist_layout src, redist_layout dst, int comm_size, int64_t elsize,
                            const redist_options *opt, int cores, redist__explain_report *r)
{
    memset(r, 0, sizeof *r);
    redist__clear_error();
    int err = check_arguments(src, dst, comm_size, elsize, opt);
    return err != REDIST_SUCCESS
               ? err
               : redist__explain_report_make(src, dst, comm_size, elsize, opt, cores, r);
}

/* text into buf as MPI_Info_get_string does: as much as fits, always NUL-terminated. */
static void copy_out(const char *text, size_t bytes, char *buf, size_t len, size_t *needed)
{
    if (needed != NULL)
        *needed = bytes + 1;
    if (buf == NULL || len == 0)
        return;
    size_t n = bytes < len - 1 ? bytes : len - 1;
    memcpy(buf, text, n);
    buf[n] = '\0';
}

int redist_explain(redist_layout src, redist_layout dst, int comm_size, size_t elsize,
                   const redist_options *opt, char *buf, size_t len, size_t *needed)
{
    if (buf == NULL && len > 0)
        return redist__fail(REDIST_ERR_ARG, "buf is NULL but len = %zu", len);
    copy_out("", 0, buf, len, needed);
    if (elsize > (size_t)INT64_MAX)
        return redist__fail(REDIST_ERR_ARG, "elsize = %zu is too large", elsize);
    redist__explain_report r;
    int err = redist__explain_checked(src, dst, comm_size, (int64_t)elsize, opt, 0, &r);
    redist__text t = {0};
    if (err == REDIST_SUCCESS)
        redist__explain_report_json(&r, &t);
    redist__explain_report_free(&r);
    if (err == REDIST_SUCCESS && t.failed)
        err = redist__fail(REDIST_ERR_NOMEM, "explain: the JSON text");
    if (err == REDIST_SUCCESS)
        copy_out(t.s, t.len, buf, len, needed);
    redist__text_free(&t);
    return err;
}
