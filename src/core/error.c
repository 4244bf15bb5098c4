/* Error codes, their texts, and the per-thread detail of the most recent failure. */
#include "core/core.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local char last_detail[REDIST__DETAIL_LEN];

/* redist.h's #defines and its REDIST_ERRNO_MAP list must agree: one list, checked here. */
#define REDIST__CHECK_CODE(name, code, text)                                                       \
    _Static_assert(REDIST_ERR_##name == (code),                                                    \
                   "REDIST_ERR_" #name " differs from REDIST_ERRNO_MAP");
REDIST_ERRNO_MAP(REDIST__CHECK_CODE)
#undef REDIST__CHECK_CODE

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

void redist__detail_keep(redist__kept_detail *k)
{
    memcpy(k->text, last_detail, sizeof k->text);
}

void redist__detail_restore(const redist__kept_detail *k)
{
    memcpy(last_detail, k->text, sizeof last_detail);
}

int redist__fail(int err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_detail, sizeof last_detail, fmt, ap);
    va_end(ap);
    return err;
}

int redist__fail_context(int err, const char *fmt, ...)
{
    char inner[sizeof last_detail], outer[sizeof last_detail];
    strncpy(inner, last_detail, sizeof inner - 1);
    inner[sizeof inner - 1] = '\0';
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(outer, sizeof outer, fmt, ap);
    va_end(ap);
    /* outer, then ": " and as much of inner as fits */
    size_t n = strlen(outer);
    memcpy(last_detail, outer, n + 1);
    if (inner[0] != '\0' && n + 3 < sizeof last_detail) {
        size_t room = sizeof last_detail - n - 3, m = strlen(inner);
        m = m < room ? m : room;
        memcpy(last_detail + n, ": ", 2);
        memcpy(last_detail + n + 2, inner, m);
        last_detail[n + 2 + m] = '\0';
    }
    return err;
}
