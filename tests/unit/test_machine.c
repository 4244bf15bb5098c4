/* The machine file (src/model/machine.c), no MPI: parsing (comments, unknown keys ignored,
 * shared_node, every malformed line refused with its line number and nothing changed),
 * format -> parse round trip, the file's path (REDIST_MACHINE_FILE over $XDG_CACHE_HOME over
 * $HOME/.cache), redist__machine_current (the defaults without a file; a file's values; a
 * rewritten file re-read; a malformed file ignored and said so) and the environment's
 * REDIST_MACHINE_<KEY> over the file (a malformed value ignored and said so); the weighted
 * least squares of `redist calibrate` (src/model/fit.c). copy_thread_limit: a file
 * without it keeps the default 6.5, a value below 1 or not a number is refused in the file and
 * ignored in the environment, redist__machine_scale leaves it (a ratio, not a time), the
 * threads' speedup reads it (one thread: no change), and its fit recovers L from exact and
 * noisy times, clamps to [1, REDIST__THREAD_LIMIT_MAX] and refuses degenerate input.
 * stream_gain: default 1, read from the file, not scaled, negative or not a
 * number refused.
 */
#define _POSIX_C_SOURCE 200809L
#include "model/model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support/check.h"

static int same_machine(const redist__machine *a, const redist__machine *b)
{
    for (int i = 0; i < REDIST__MACHINE_NPARAMS; i++)
        if (redist__machine_get(a, i) != redist__machine_get(b, i))
            return 0;
    return a->shared_node == b->shared_node;
}

static int close_to(double x, double want, double rel)
{
    return fabs(x - want) <= rel * fabs(want);
}

static void test_parse(void)
{
    redist__machine m = *redist__machine_default();
    char why[160] = "";
    const char *text = "# a comment\n\n  startup = 2.5e-6   # T_d\nper_byte=1e-10\n"
                       "future_key = 3\nshared_node = 0\ncopy_per_run = 4e-9";
    CHECK(redist__machine_parse(text, &m, why, sizeof why) == 0, "valid text refused: %s", why);
    CHECK(m.startup == 2.5e-6 && m.per_byte == 1e-10 && m.copy_per_run == 4e-9,
          "values not read: %g %g %g", m.startup, m.per_byte, m.copy_per_run);
    CHECK(m.shared_node == 0, "shared_node not read");
    CHECK(m.per_message == redist__machine_default()->per_message, "an absent key changed");
    CHECK(m.copy_thread_limit == 6.5, "no copy_thread_limit: %g, not the default 6.5",
          m.copy_thread_limit);
    CHECK(redist__machine_parse("copy_thread_limit = 1\n", &m, why, sizeof why) == 0 &&
              m.copy_thread_limit == 1,
          "copy_thread_limit = 1 refused: %s", why);
    CHECK(m.stream_gain == 1, "no stream_gain: %g, not the default 1", m.stream_gain);
    CHECK(redist__machine_parse("stream_gain = 1.89\n", &m, why, sizeof why) == 0 &&
              m.stream_gain == 1.89,
          "stream_gain = 1.89 refused: %s", why);
    redist__machine_scale(&m, 0.5);
    CHECK(m.stream_gain == 1.89, "redist__machine_scale changed stream_gain (a ratio)");

    const char *bad[] = {"startup = -1\n",
                         "startup 3\n",
                         "startup = 1e-6 junk\n",
                         "per_byte = \n",
                         "= 4\n",
                         "startup = nan\n",
                         "ok=1\nstartup = x\n",
                         "per_byte = 1e9\n",
                         "copy_thread_limit = 0.5\n",
                         "copy_thread_limit = -1\n",
                         "startup = 1\ncopy_thread_limit = abc\n",
                         "copy_thread_limit = 0\n",
                         "stream_gain = -1\n",
                         "stream_gain = fast\n"};
    const int bad_line[] = {1, 1, 1, 1, 1, 1, 2, 1, 1, 1, 2, 1, 1, 1};
    for (int i = 0; i < (int)(sizeof bad / sizeof bad[0]); i++) {
        redist__machine before = *redist__machine_default(), n = before;
        why[0] = '\0';
        CHECK(redist__machine_parse(bad[i], &n, why, sizeof why) == -1, "accepted '%s'", bad[i]);
        CHECK(same_machine(&n, &before), "a refused text changed the machine: '%s'", bad[i]);
        char want[16];
        snprintf(want, sizeof want, "line %d", bad_line[i]);
        CHECK(strstr(why, want) != NULL, "'%s': reason '%s' lacks '%s'", bad[i], why, want);
    }
}

static void test_round_trip(void)
{
    redist__machine m = *redist__machine_default(), back = *redist__machine_default();
    m.startup = 1.234567e-5;
    m.copy_thread_limit = 3.25;
    m.remote_per_byte = 8.5e-11;
    m.shared_node = 0;
    char buf[4096], why[160] = "";
    CHECK(redist__machine_format(&m, buf, sizeof buf) == 0, "format failed");
    CHECK(redist__machine_parse(buf, &back, why, sizeof why) == 0, "own output refused: %s", why);
    CHECK(same_machine(&m, &back), "format -> parse changed the machine:\n%s", buf);
    CHECK(redist__machine_format(&m, buf, 20) == -1, "a short buffer not reported");
}

static void test_path(void)
{
    char path[1024];
    setenv("HOME", "/home/someone", 1);
    unsetenv("XDG_CACHE_HOME");
    unsetenv("REDIST_MACHINE_FILE");
    CHECK(redist__machine_file_path(path, sizeof path) == 0 &&
              !strcmp(path, "/home/someone/.cache/redist/machine"),
          "HOME path: %s", path);
    setenv("XDG_CACHE_HOME", "/xdg", 1);
    CHECK(redist__machine_file_path(path, sizeof path) == 0 && !strcmp(path, "/xdg/redist/machine"),
          "XDG path: %s", path);
    setenv("XDG_CACHE_HOME", "relative", 1); /* the spec: relative paths are ignored */
    CHECK(redist__machine_file_path(path, sizeof path) == 0 &&
              !strcmp(path, "/home/someone/.cache/redist/machine"),
          "relative XDG not ignored: %s", path);
    setenv("REDIST_MACHINE_FILE", "/tmp/m.txt", 1);
    CHECK(redist__machine_file_path(path, sizeof path) == 0 && !strcmp(path, "/tmp/m.txt"),
          "REDIST_MACHINE_FILE: %s", path);
}

/* The scale multiplies times only; the threads' speedup divides the local moves by
   T / (1 + (T - 1) / L) with the machine's L, and leaves one thread's costs alone. */
static void test_thread_limit(void)
{
    redist__machine m = *redist__machine_default();
    m.copy_thread_limit = 4;
    redist__machine_scale(&m, 2.0);
    CHECK(m.copy_thread_limit == 4 &&
              m.copy_per_byte == 2 * redist__machine_default()->copy_per_byte,
          "scale: limit %g, copy_per_byte %g", m.copy_thread_limit, m.copy_per_byte);
    redist__machine one = m;
    redist__machine_threads(&one, 1);
    CHECK(same_machine(&one, &m), "one thread changed the machine");
    redist__machine eight = m;
    redist__machine_threads(&eight, 8); /* 8 / (1 + 7 / 4) = 32 / 11 */
    CHECK(close_to(m.copy_per_byte / eight.copy_per_byte, 32.0 / 11.0, 1e-12) &&
              close_to(m.window_per_byte / eight.window_per_byte, 32.0 / 11.0, 1e-12) &&
              eight.per_byte == m.per_byte,
          "8 threads at L = 4: speedup %g", m.copy_per_byte / eight.copy_per_byte);
    CHECK(close_to(redist__thread_speedup(16, 6.5), 16 / (1 + 15 / 6.5), 1e-12) &&
              redist__thread_speedup(1000, 1) == 1 && redist__thread_speedup(0, 6.5) == 1,
          "speedup law");
}

/* Times t(T) = t(1) / S(T) of the law with L = 5 give back 5; +-3% noise about 5; speedups of
   T (no saturation) the cap; slower with threads 1; no T = 1 or no T > 1 refused. */
static void test_fit_thread_limit(void)
{
    int t[5] = {1, 2, 4, 8, 16};
    double s[5], l = 0;
    for (int i = 0; i < 5; i++)
        s[i] = 0.01 / redist__thread_speedup(t[i], 5.0);
    CHECK(redist__fit_thread_limit(t, s, 5, &l) == 0 && close_to(l, 5, 1e-12), "exact: L %g", l);
    for (int i = 1; i < 5; i++)
        s[i] *= i % 2 ? 1.03 : 0.97;
    CHECK(redist__fit_thread_limit(t, s, 5, &l) == 0 && close_to(l, 5, 0.2), "noisy: L %g", l);
    for (int i = 0; i < 5; i++)
        s[i] = 0.01 / t[i];
    CHECK(redist__fit_thread_limit(t, s, 5, &l) == 0 && l == REDIST__THREAD_LIMIT_MAX,
          "linear speedup: L %g", l);
    for (int i = 0; i < 5; i++)
        s[i] = 0.01 * t[i];
    CHECK(redist__fit_thread_limit(t, s, 5, &l) == 0 && l == 1, "slower with threads: L %g", l);
    int no_one[2] = {2, 4}, only_one[2] = {1, 1};
    double zero[2] = {0.01, 0};
    l = -7;
    CHECK(redist__fit_thread_limit(no_one, s, 2, &l) == -1 && l == -7, "no T = 1 accepted");
    CHECK(redist__fit_thread_limit(only_one, s, 2, &l) == -1, "no T > 1 accepted");
    CHECK(redist__fit_thread_limit(t, zero, 2, &l) == -1, "a time of 0 accepted");
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL, "cannot write %s", path);
    if (f != NULL) {
        fputs(text, f);
        fclose(f);
    }
}

static void test_current(void)
{
    char path[] = "/tmp/redist_test_machine_XXXXXX", source[512];
    int fd = mkstemp(path);
    CHECK(fd >= 0, "mkstemp");
    if (fd < 0)
        return;
    close(fd);
    unlink(path);
    setenv("REDIST_MACHINE_FILE", path, 1);
    redist__machine m;
    redist__machine_current(&m, source, sizeof source);
    CHECK(same_machine(&m, redist__machine_default()), "no file: not the defaults");
    CHECK(strstr(source, "defaults") != NULL, "no file: source '%s'", source);

    write_file(path, "startup = 7e-6\n");
    redist__machine_current(&m, source, sizeof source);
    CHECK(m.startup == 7e-6, "file not read: startup %g", m.startup);
    CHECK(!strcmp(source, path), "source '%s' is not the file", source);

    write_file(path, "startup = 9.5e-6\nper_byte = 2e-10\n"); /* another size: re-read */
    redist__machine_current(&m, source, sizeof source);
    CHECK(m.startup == 9.5e-6 && m.per_byte == 2e-10, "rewritten file not re-read: %g %g",
          m.startup, m.per_byte);

    setenv("REDIST_MACHINE_STARTUP", "3e-6", 1);
    redist__machine_current(&m, source, sizeof source);
    CHECK(m.startup == 3e-6 && m.per_byte == 2e-10, "environment not over the file: %g %g",
          m.startup, m.per_byte);
    CHECK(strstr(source, "REDIST_MACHINE_STARTUP") != NULL, "source '%s' lacks the variable",
          source);
    setenv("REDIST_MACHINE_COPY_THREAD_LIMIT", "0.5", 1); /* below 1: ignored */
    redist__machine_current(&m, source, sizeof source);
    CHECK(m.copy_thread_limit == 6.5 && strstr(source, "not a number >= 1"),
          "REDIST_MACHINE_COPY_THREAD_LIMIT=0.5: %g, '%s'", m.copy_thread_limit, source);
    setenv("REDIST_MACHINE_COPY_THREAD_LIMIT", "3", 1);
    redist__machine_current(&m, source, sizeof source);
    CHECK(m.copy_thread_limit == 3, "REDIST_MACHINE_COPY_THREAD_LIMIT=3: %g", m.copy_thread_limit);
    unsetenv("REDIST_MACHINE_COPY_THREAD_LIMIT");
    setenv("REDIST_MACHINE_STARTUP", "fast", 1);
    redist__machine_current(&m, source, sizeof source);
    CHECK(m.startup == 9.5e-6, "a malformed variable was used: %g", m.startup);
    CHECK(strstr(source, "ignored") != NULL, "malformed variable not said: '%s'", source);
    unsetenv("REDIST_MACHINE_STARTUP");

    write_file(path, "startup = 1e-6\nper_byte = oops\n");
    redist__machine_current(&m, source, sizeof source);
    CHECK(same_machine(&m, redist__machine_default()), "a malformed file was used");
    CHECK(strstr(source, "ignored") && strstr(source, "line 2"), "malformed file: source '%s'",
          source);
    unlink(path);
    unsetenv("REDIST_MACHINE_FILE");
}

/* Exact lines come back exactly (r2 = 1); a sweep over five decades recovers a small
   intercept that an unweighted fit would lose in the large points' noise; noisy points give
   r2 < 1; degenerate input is refused. */
static void test_fit(void)
{
    double x[12], y[12];
    redist__fit f;
    for (int i = 0; i < 12; i++) {
        x[i] = i == 0 ? 0 : (double)(1 << (2 * i - 2)); /* 0, 1, 4, ..., 4^10 bytes */
        y[i] = 5e-6 + 1e-10 * x[i];
    }
    CHECK(redist__fit_line(x, y, 12, &f) == 0, "exact line refused");
    CHECK(close_to(f.a, 5e-6, 1e-9) && close_to(f.b, 1e-10, 1e-9) && f.r2 > 1 - 1e-12,
          "exact line: a %g b %g r2 %g", f.a, f.b, f.r2);
    for (int i = 0; i < 12; i++) /* +-3% alternating noise */
        y[i] *= i % 2 ? 1.03 : 0.97;
    CHECK(redist__fit_line(x, y, 12, &f) == 0, "noisy line refused");
    CHECK(close_to(f.a, 5e-6, 0.05) && close_to(f.b, 1e-10, 0.05),
          "noisy line: a %g b %g (want 5e-6, 1e-10)", f.a, f.b);
    CHECK(f.r2 < 1 && f.r2 > 0.9, "noisy line: r2 %g", f.r2);
    double same[3] = {2, 2, 2}, pos[3] = {1, 2, 3}, zero[3] = {1, 0, 2};
    CHECK(redist__fit_line(same, pos, 3, &f) == -1, "one distinct x accepted");
    CHECK(redist__fit_line(pos, zero, 3, &f) == -1, "y = 0 accepted");
    CHECK(redist__fit_line(pos, pos, 1, &f) == -1, "one point accepted");
}

int main(void)
{
    test_fit();
    test_parse();
    test_round_trip();
    test_thread_limit();
    test_fit_thread_limit();
    test_path();
    test_current();
    if (failures) {
        printf("test_machine: %ld failure(s)\n", failures);
        return 1;
    }
    printf("test_machine: all checks passed\n");
    return 0;
}
