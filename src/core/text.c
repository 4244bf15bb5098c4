/* A growing text (core.h, "text"): what the library writes for its callers (redist_explain's
 * JSON) is built here, never printed. */
#include "core/core.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Room for `more` bytes and the NUL; a failed growth marks the text failed for good. */
static int reserve(redist__text *t, size_t more)
{
    if (t->failed)
        return 0;
    if (t->len + more + 1 <= t->cap)
        return 1;
    size_t cap = t->cap ? t->cap : 256;
    while (cap < t->len + more + 1)
        cap *= 2;
    char *grown = redist__realloc(t->s, cap);
    if (grown == NULL) {
        t->failed = 1;
        return 0;
    }
    t->s = grown;
    t->cap = cap;
    return 1;
}

void redist__text_printf(redist__text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !reserve(t, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(t->s + t->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

void redist__text_json_string(redist__text *t, const char *s)
{
    if (s == NULL) {
        redist__text_printf(t, "null");
        return;
    }
    redist__text_printf(t, "\"");
    while (*s) {
        size_t plain = 0; /* a run that needs no escape, appended at once */
        while (s[plain] && s[plain] != '"' && s[plain] != '\\' && (unsigned char)s[plain] >= 0x20)
            plain++;
        redist__text_printf(t, "%.*s", (int)plain, s);
        s += plain;
        if (*s == '"' || *s == '\\')
            redist__text_printf(t, "\\%c", *s++);
        else if (*s)
            redist__text_printf(t, "\\u%04x", (unsigned char)*s++);
    }
    redist__text_printf(t, "\"");
}

void redist__text_json_double(redist__text *t, double v)
{
    if (isfinite(v))
        redist__text_printf(t, "%.9g", v);
    else
        redist__text_printf(t, "null");
}

void redist__text_free(redist__text *t)
{
    redist__free(t->s);
    memset(t, 0, sizeof *t);
}
