/* Error codes, their texts, and the per-thread detail of the most recent failure. */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local char last_detail[512];

const char *redist_strerror(int err)
{
    if (err == REDIST_SUCCESS)
        return "success";
#define REDIST_STRERROR_CASE(name, code, text)                                                     \
    if (err == (code))                                                                             \
        return text;
    REDIST_ERRNO_MAP(REDIST_STRERROR_CASE)
#undef REDIST_STRERROR_CASE
    return "unknown error code";
}

const char *redist_error_name(int err)
{
    if (err == REDIST_SUCCESS)
        return "REDIST_SUCCESS";
#define REDIST_ERRNAME_CASE(name, code, text)                                                      \
    if (err == (code))                                                                             \
        return "REDIST_ERR_" #name;
    REDIST_ERRNO_MAP(REDIST_ERRNAME_CASE)
#undef REDIST_ERRNAME_CASE
    return "REDIST_ERR_UNKNOWN";
}

const char *redist_last_error_detail(void)
{
    return last_detail;
}

void redist__clear_error(void)
{
    last_detail[0] = '\0';
}

int redist__fail(int err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_detail, sizeof last_detail, fmt, ap);
    va_end(ap);
    return err;
}

void *redist__memdup(const void *p, size_t n)
{
    if (p == NULL || n == 0)
        return NULL;
    void *q = malloc(n);
    if (q != NULL)
        memcpy(q, p, n);
    return q;
}

int64_t redist__chunks(int64_t bytes)
{
    return bytes <= 0 ? 1 : (bytes + REDIST__CHUNK_BYTES - 1) / REDIST__CHUNK_BYTES;
}
