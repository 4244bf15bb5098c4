/* link: redist */
/* Serial test of redist_explain (redist.h; docs/api.md, "redist_explain"), without MPI_Init:
 *
 * - The text is one JSON object (braces and brackets balance outside strings, nothing after
 *   it) with the keys the API promises, and its figures are the library's own: the algorithm
 *   auto plans and its predicted time are redist__explain's, the element and byte counts
 *   the pair's; a forced algorithm is the one named; a permutation is reported.
 * - Buffers as MPI_Info_get_string: *needed is the text's length + 1 at any len, a short
 *   buffer gets the text cut and NUL-terminated, len = 0 writes nothing, buf NULL with
 *   len > 0 is REDIST_ERR_ARG.
 * - Errors, with buf set to "": NULL layouts, comm_size < 1, elsize 0, a rank past the
 *   communicator, extents that differ, a bad permutation, an option out of range (memory,
 *   threads, max_buffer_bytes), an unknown algorithm (REDIST_ERR_UNKNOWN_ALGORITHM), a
 *   forced algorithm that cannot do the pair (REDIST_ERR_NOT_APPLICABLE, the detail says
 *   why).
 * - Every allocation failing in turn: REDIST_ERR_NOMEM or success, never a crash, and
 *   nothing left allocated.
 */
#include "algo/explain.h"

#include <stdlib.h>
#include <string.h>

#include "support/check.h"

/* Braces and brackets balance outside strings, and the object is the whole text. */
static int one_json_object(const char *s)
{
    int depth = 0, in_string = 0;
    size_t n = strlen(s);
    if (n < 2 || s[0] != '{' || s[n - 1] != '}')
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (in_string) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_string = 0;
            continue;
        }
        if (c == '"')
            in_string = 1;
        else if (c == '{' || c == '[')
            depth++;
        else if ((c == '}' || c == ']') && --depth == 0 && i != n - 1)
            return 0; /* closed before the end */
    }
    return depth == 0 && !in_string;
}

/* The text of "key": ... up to the next ',' or '}' at the top of that value (numbers,
   strings, booleans), into out. */
static const char *value_of(const char *json, const char *key, char *out, size_t len)
{
    char pattern[96];
    snprintf(pattern, sizeof pattern, "\"%s\": ", key);
    const char *at = strstr(json, pattern);
    out[0] = '\0';
    if (at == NULL)
        return NULL;
    at += strlen(pattern);
    size_t n = strcspn(at, ",}");
    if (n >= len)
        n = len - 1;
    memcpy(out, at, n);
    out[n] = '\0';
    return out;
}

static char *explain_text(redist_layout s, redist_layout d, int P, size_t el,
                          const redist_options *opt, int *rc)
{
    size_t needed = 0;
    *rc = redist_explain(s, d, P, el, opt, NULL, 0, &needed);
    if (*rc != REDIST_SUCCESS)
        return NULL;
    char *text = malloc(needed);
    size_t again = 0;
    *rc = redist_explain(s, d, P, el, opt, text, needed, &again);
    CHECK(again == needed && strlen(text) + 1 == needed, "needed %zu, then %zu, text %zu", needed,
          again, strlen(text));
    return text;
}

static void contents(redist_layout s, redist_layout d)
{
    int rc = 0;
    char *text = explain_text(s, d, 6, 8, NULL, &rc);
    CHECK(rc == REDIST_SUCCESS && text != NULL, "explain: %s", redist_last_error_detail());
    if (text == NULL)
        return;
    CHECK(one_json_object(text), "not one JSON object: %.200s", text);
    const char *keys[] = {"procs",
                          "element_bytes",
                          "elements",
                          "array_bytes",
                          "requested",
                          "algorithm",
                          "steps",
                          "max_messages_per_rank",
                          "max_bytes_per_rank",
                          "total_messages",
                          "total_bytes",
                          "transport",
                          "bounded",
                          "buffer_bytes",
                          "predicted_seconds",
                          "staging_seconds",
                          "pattern",
                          "memory",
                          "machine",
                          "threads",
                          "arrays",
                          "algorithms",
                          "why_not"};
    char v[128], want[128];
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        CHECK(strstr(text, keys[i]) != NULL, "no key %s", keys[i]);
    redist__explanation e;
    CHECK(redist__explain(s, d, 6, 8, "auto", &e) == REDIST_SUCCESS, "redist__explain");
    snprintf(want, sizeof want, "\"%s\"", e.chosen);
    CHECK(strcmp(value_of(text, "algorithm", v, sizeof v) ? v : "", want) == 0,
          "algorithm %s, want %s", v, want);
    snprintf(want, sizeof want, "%.9g", e.predicted_seconds);
    CHECK(strcmp(value_of(text, "predicted_seconds", v, sizeof v) ? v : "", want) == 0,
          "predicted_seconds %s, want %s", v, want);
    CHECK(strcmp(value_of(text, "elements", v, sizeof v) ? v : "", "1000") == 0, "elements %s", v);
    CHECK(strcmp(value_of(text, "array_bytes", v, sizeof v) ? v : "", "8000") == 0,
          "array_bytes %s", v);
    CHECK(strcmp(value_of(text, "requested", v, sizeof v) ? v : "", "\"auto\"") == 0,
          "requested %s", v);

    /* short buffers: cut, NUL-terminated; needed whatever len is */
    size_t full = strlen(text) + 1;
    for (size_t len = 1; len < 40; len += 7) {
        char small[40];
        size_t needed = 0;
        memset(small, 'x', sizeof small);
        rc = redist_explain(s, d, 6, 8, NULL, small, len, &needed);
        CHECK(rc == REDIST_SUCCESS && needed == full, "len %zu: rc %d, needed %zu of %zu", len, rc,
              needed, full);
        CHECK(strlen(small) == len - 1 && strncmp(small, text, len - 1) == 0,
              "len %zu: \"%s\" is not the text's start", len, small);
    }
    free(text);

    redist_options opt;
    redist_options_init(&opt);
    opt.algorithm = "direct";
    opt.memory = REDIST_MEMORY_CUDA;
    text = explain_text(s, d, 6, 8, &opt, &rc);
    CHECK(rc == REDIST_SUCCESS && text && strstr(text, "\"algorithm\": \"direct\"") &&
              strstr(text, "\"requested\": \"direct\"") && strstr(text, "\"arrays\": \"cuda\""),
          "forced direct with device memory: %.300s", text ? text : redist_last_error_detail());
    free(text);
}

static void permuted(void)
{
    int64_t n[2] = {6, 4}, nt[2] = {4, 6}, b[2] = {1, 1};
    int g1[2] = {3, 1}, g2[2] = {1, 3}, perm[2] = {1, 0};
    redist_layout s = NULL, d = NULL;
    redist_layout_create(2, n, b, g1, NULL, NULL, REDIST_ROW_MAJOR, &s);
    redist_layout_create(2, nt, b, g2, NULL, NULL, REDIST_ROW_MAJOR, &d);
    redist_options opt;
    redist_options_init(&opt);
    opt.permutation = perm;
    int rc = 0;
    char *text = explain_text(s, d, 3, 4, &opt, &rc);
    CHECK(rc == REDIST_SUCCESS && text && strstr(text, "\"permutation\": [1, 0]") &&
              one_json_object(text),
          "permuted: %s", text ? text : redist_last_error_detail());
    free(text);
    text = explain_text(s, d, 3, 4, NULL, &rc); /* without it the extents differ */
    CHECK(rc == REDIST_ERR_ARG && text == NULL, "unpermuted transpose: rc %d", rc);
    int bad[2] = {0, 0};
    opt.permutation = bad;
    text = explain_text(s, d, 3, 4, &opt, &rc);
    CHECK(rc == REDIST_ERR_ARG, "permutation {0, 0}: rc %d", rc);
    free(text);
    redist_layout_free(&s);
    redist_layout_free(&d);
}

static void expect(const char *what, int got, int want, const char *buf)
{
    CHECK(got == want, "%s: %s (%s), want %s", what, redist_error_name(got),
          redist_last_error_detail(), redist_error_name(want));
    CHECK(buf == NULL || buf[0] == '\0', "%s: buf is \"%.40s\", not \"\"", what, buf);
}

static void errors(redist_layout s, redist_layout d)
{
    char buf[64];
    size_t needed = 99;
    expect("src NULL", redist_explain(NULL, d, 6, 8, NULL, buf, sizeof buf, &needed),
           REDIST_ERR_ARG, buf);
    CHECK(needed == 1, "needed after an error: %zu", needed);
    expect("dst NULL", redist_explain(s, NULL, 6, 8, NULL, buf, sizeof buf, NULL), REDIST_ERR_ARG,
           buf);
    expect("comm_size 0", redist_explain(s, d, 0, 8, NULL, buf, sizeof buf, NULL), REDIST_ERR_ARG,
           buf);
    expect("elsize 0", redist_explain(s, d, 6, 0, NULL, buf, sizeof buf, NULL), REDIST_ERR_ARG,
           buf);
    expect("rank 5 on 4", redist_explain(s, d, 4, 8, NULL, buf, sizeof buf, NULL), REDIST_ERR_ARG,
           buf);
    expect("buf NULL, len 8", redist_explain(s, d, 6, 8, NULL, NULL, 8, NULL), REDIST_ERR_ARG,
           NULL);
    redist_options opt;
    redist_options_init(&opt);
    opt.memory = 7;
    expect("memory 7", redist_explain(s, d, 6, 8, &opt, buf, sizeof buf, NULL), REDIST_ERR_ARG,
           buf);
    redist_options_init(&opt);
    opt.threads = -2;
    expect("threads -2", redist_explain(s, d, 6, 8, &opt, buf, sizeof buf, NULL), REDIST_ERR_ARG,
           buf);
    redist_options_init(&opt);
    opt.max_buffer_bytes = 4;
    expect("max_buffer_bytes below two elements",
           redist_explain(s, d, 6, 8, &opt, buf, sizeof buf, NULL), REDIST_ERR_ARG, buf);
    redist_options_init(&opt);
    opt.algorithm = "nosuch";
    expect("unknown algorithm", redist_explain(s, d, 6, 8, &opt, buf, sizeof buf, NULL),
           REDIST_ERR_UNKNOWN_ALGORITHM, buf);
    opt.algorithm = "bmmc"; /* 1000 elements: no bit permutation */
    expect("bmmc on 1000 elements", redist_explain(s, d, 6, 8, &opt, buf, sizeof buf, NULL),
           REDIST_ERR_NOT_APPLICABLE, buf);
    CHECK(strstr(redist_last_error_detail(), "needs") != NULL, "bmmc's detail: \"%s\"",
          redist_last_error_detail());
    int64_t n2[2] = {100, 10}, b2[2] = {1, 1};
    int g2[2] = {2, 3};
    redist_layout other = NULL;
    redist_layout_create(2, n2, b2, g2, NULL, NULL, REDIST_ROW_MAJOR, &other);
    expect("extents differ", redist_explain(s, other, 6, 8, NULL, buf, sizeof buf, NULL),
           REDIST_ERR_ARG, buf);
    redist_layout_free(&other);
}

static void out_of_memory(redist_layout s, redist_layout d)
{
    int64_t live = redist__alloc_live(), nomem = 0, ok = 0;
    for (int64_t k = 0; k < 100000; k++) {
        redist__alloc_fail_at(redist__alloc_calls() + k);
        size_t needed = 0;
        int rc = redist_explain(s, d, 6, 8, NULL, NULL, 0, &needed);
        int64_t calls_left = redist__alloc_calls();
        redist__alloc_fail_at(-1);
        CHECK(rc == REDIST_SUCCESS || rc == REDIST_ERR_NOMEM, "allocation %lld failing: %s",
              (long long)k, redist_error_name(rc));
        CHECK(redist__alloc_live() == live, "allocation %lld failing: %lld blocks left",
              (long long)k, (long long)(redist__alloc_live() - live));
        (void)calls_left;
        if (rc == REDIST_SUCCESS) {
            ok++;
            break; /* the k-th allocation is past the last one explain makes */
        }
        nomem++;
    }
    CHECK(ok == 1 && nomem > 5, "%lld allocations failed in turn, then %lld successes",
          (long long)nomem, (long long)ok);
}

int main(void)
{
    /* 1000 doubles, 10 x 100: (3, 7) blocks on 2 x 3 -> (10, 10) on 3 x 2 with ranks 0..5 */
    int64_t n[2] = {10, 100}, b1[2] = {3, 7}, b2[2] = {10, 10};
    int g1[2] = {2, 3}, g2[2] = {3, 2};
    redist_layout s = NULL, d = NULL;
    redist_layout_create(2, n, b1, g1, NULL, NULL, REDIST_ROW_MAJOR, &s);
    redist_layout_create(2, n, b2, g2, NULL, NULL, REDIST_COL_MAJOR, &d);
    contents(s, d);
    permuted();
    errors(s, d);
    out_of_memory(s, d);
    redist_layout_free(&s);
    redist_layout_free(&d);
    if (failures)
        fprintf(stderr, "test_explain_api: %ld failures\n", failures);
    else
        printf("test_explain_api: all checks passed\n");
    return failures != 0;
}
