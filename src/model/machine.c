/* The machine's parameters for the cost model: the documented defaults, a machine file that
 * `redist calibrate` writes, and environment variables that override single parameters.
 * No MPI: plans agree on the values (planner/planner.c: every rank uses the largest value any rank
 * has, in the allreduce that already carries the traffic), and the tools read them here.
 *
 * The file: REDIST_MACHINE_FILE if set, else $XDG_CACHE_HOME/redist/machine, else
 * $HOME/.cache/redist/machine. Text, one `key = value` per line, `#` comments, keys as in
 * the table below; keys it does not know are ignored (a newer file), a malformed line makes
 * the whole file ignored (the defaults, and the reason in redist__machine_source). Then
 * REDIST_MACHINE_<KEY> (e.g. REDIST_MACHINE_STARTUP=5e-6) replaces one parameter.
 */
#define _POSIX_C_SOURCE 200809L
#include "model/model.h"

#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Measured here (bench_lbp96 over shared memory, 8 ranks on 2 cores): about 6 us per
   synchronised step, 0.5 us per further message in flight, memcpy speed for bytes. */
static const redist__machine default_machine = {
    .startup = 6.0e-6,            /* T_d: a synchronised step, 8 ranks on 2 cores, shm */
    .per_message = 0.5e-6,        /* further messages posted at once overlap */
    .per_byte = 1.0 / 8.0e9,      /* tau_d: single-copy transfers run at memcpy speed */
    .copy_per_byte = 1.0 / 8.0e9, /* memcpy of large arrays, one rank of four on 2 cores */
    .copy_per_run = 0.0,          /* packing charged by bytes only, until calibrated */
    .per_piece = 15e-9,           /* Open MPI datatype engine, per contiguous piece */
    /* a 200 Gb/s network (InfiniBand HDR, Slingshot): 25 GB/s through a node's link, about
       2 us per message, until calibrate measures them between nodes */
    .remote_startup = 2.0e-6,
    .remote_per_byte = 1.0 / 25.0e9,
    .window_per_byte = 1.0 / 8.0e9, /* as a local copy, until calibrated */
    .per_index = 10e-9, /* general's per element, [TCR96]'s per block (bench: 8-30 ns) */
    /* fitted on a 16-core node (docs/performance.md, "Threads": 1 rank x 1 .. 16 threads)
       until calibrate --threads measures it */
    .copy_thread_limit = 6.5,
    /* device plans, until calibrate measures them where a GPU is: a PCIe 5 x16 link's
       ~50 GB/s each way shared by four ranks, a gather kernel at a quarter of an H100's
       HBM bandwidth shared alike, a launch or a stream wait of a few microseconds */
    .device_per_byte = 1.0 / 12.0e9,
    .device_copy_per_byte = 1.0 / 250.0e9,
    .device_launch = 5.0e-6,
    /* a kernel reading a node peer's device memory: an H100's NVLink 4 (~450 GB/s each way)
       or its own HBM, shared by the ranks that pull at once */
    .device_ipc_per_byte = 1.0 / 150.0e9,
    /* ordinary stores until calibrate measures streaming stores faster (they were on one
       2-core machine, 1.3x, and slower on runs this short on a 16-core node) */
    .stream_gain = 1.0,
    .shared_node = 1, /* the ranks share one node */
};

const redist__machine *redist__machine_default(void)
{
    return &default_machine;
}

#define P(field, what)                                                                             \
    {                                                                                              \
#field, offsetof(redist__machine, field), what, 0.0, 1                                     \
    }
static const redist__machine_param params[REDIST__MACHINE_NPARAMS] = {
    P(startup, "T_d: seconds per synchronised step, or the first message in flight"),
    P(per_message, "seconds per further message in flight at the same time"),
    P(per_byte, "tau_d: seconds per byte between ranks (of one node)"),
    P(copy_per_byte, "seconds per byte of local copy, pack or unpack (long runs)"),
    P(copy_per_run, "seconds per run packed or unpacked, beyond its bytes"),
    P(per_piece, "seconds per contiguous piece MPI's datatype engine moves"),
    P(remote_startup, "seconds per message between ranks of different nodes (0: as on a node)"),
    P(remote_per_byte, "seconds per byte through a node's network link, which its ranks share"),
    P(window_per_byte, "seconds per byte unpacked from another rank's shared-memory window"),
    P(per_index, "seconds of index work per element (general) or block ([TCR96]), each side"),
    /* a ratio, not a time: at least 1 (threads never slow a move in the model), not scaled */
    {"copy_thread_limit", offsetof(redist__machine, copy_thread_limit),
     "the most a rank's local moves speed up with threads (memory bandwidth): the L of "
     "T / (1 + (T - 1) / L)",
     1.0, 0},
    P(device_per_byte, "device plans: seconds per byte between a GPU and its host, each way"),
    P(device_copy_per_byte, "device plans: seconds per byte a kernel packs or unpacks"),
    P(device_launch, "device plans: seconds per kernel or copy posted, or stream wait"),
    P(device_ipc_per_byte,
      "device plans: seconds per byte a kernel pulls from a node peer's device array"),
    /* a ratio, not a time */
    {"stream_gain", offsetof(redist__machine, stream_gain),
     "a copy of short runs in dst's order, ordinary stores over non-temporal ones: above 1, "
     "one copy on a node streams the rows it pulls",
     0.0, 0},
};
#undef P

const redist__machine_param *redist__machine_params(void)
{
    return params;
}

static double *param_ref(redist__machine *m, int i)
{
    return (double *)((char *)m + params[i].offset);
}

double redist__machine_get(const redist__machine *m, int i)
{
    return *(const double *)((const char *)m + params[i].offset);
}

static int param_index(const char *key, size_t len)
{
    for (int i = 0; i < REDIST__MACHINE_NPARAMS; i++)
        if (strlen(params[i].key) == len && strncmp(params[i].key, key, len) == 0)
            return i;
    return -1;
}

/* A finite value in [least, 1e6) (least >= 0), else -1. */
static double parse_value(const char *s, const char **end, double least)
{
    char *e = NULL;
    errno = 0;
    double x = strtod(s, &e);
    *end = e;
    return errno == 0 && e != s && x >= least && x < 1e6 ? x : -1;
}

/* What a refused value of parameter i (-1: a key the table lacks) needed. */
static const char *needs(int i)
{
    return i >= 0 && !params[i].seconds ? "a number >= 1" : "a number of seconds >= 0";
}

static const char *skip_space(const char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\r')
        s++;
    return s;
}

/* One line: blank, a comment, or key = value [# comment]. */
static int parse_line(const char *line, redist__machine *m, char *why, size_t why_len)
{
    const char *s = skip_space(line);
    if (*s == '\0' || *s == '\n' || *s == '#')
        return 0;
    const char *key = s;
    while (isalnum((unsigned char)*s) || *s == '_')
        s++;
    size_t klen = (size_t)(s - key);
    s = skip_space(s);
    if (klen == 0 || *s != '=') {
        snprintf(why, why_len, "expected key = value");
        return -1;
    }
    const char *end;
    int i = param_index(key, klen);
    double x = parse_value(skip_space(s + 1), &end, i >= 0 ? params[i].least : 0.0);
    end = skip_space(end);
    if (x < 0 || (*end != '\0' && *end != '\n' && *end != '#')) {
        snprintf(why, why_len, "'%.*s' needs %s", (int)klen, key, needs(i));
        return -1;
    }
    if (i >= 0)
        *param_ref(m, i) = x;
    else if (klen == strlen("shared_node") && strncmp(key, "shared_node", klen) == 0)
        m->shared_node = x != 0;
    return 0; /* unknown keys: a newer file's, ignored */
}

int redist__machine_parse(const char *text, redist__machine *m, char *why, size_t why_len)
{
    redist__machine out = *m;
    int lineno = 1;
    for (const char *line = text; line != NULL && *line != '\0'; lineno++) {
        char reason[96];
        if (parse_line(line, &out, reason, sizeof reason) != 0) {
            snprintf(why, why_len, "line %d: %s", lineno, reason);
            return -1;
        }
        line = strchr(line, '\n');
        line = line ? line + 1 : NULL;
    }
    *m = out;
    return 0;
}

int redist__machine_format(const redist__machine *m, char *buf, size_t len)
{
    size_t at = 0;
    for (int i = 0; i < REDIST__MACHINE_NPARAMS && at < len; i++)
        at += (size_t)snprintf(buf + at, len - at, "%-17s = %-23.17g # %s\n", params[i].key,
                               redist__machine_get(m, i), params[i].what); /* exact */
    if (at < len)
        at += (size_t)snprintf(buf + at, len - at,
                               "%-17s = %-23d # 1: the ranks calibrated share one node\n",
                               "shared_node", m->shared_node);
    return at < len ? 0 : -1;
}

int redist__machine_file_path(char *buf, size_t len)
{
    const char *forced = getenv("REDIST_MACHINE_FILE"), *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    int n;
    if (forced != NULL && *forced != '\0')
        n = snprintf(buf, len, "%s", forced);
    else if (xdg != NULL && *xdg == '/')
        n = snprintf(buf, len, "%s/redist/machine", xdg);
    else if (home != NULL && *home != '\0')
        n = snprintf(buf, len, "%s/.cache/redist/machine", home);
    else
        return -1;
    return n > 0 && (size_t)n < len ? 0 : -1;
}

/* The file's parameters, re-read when its path, size or modification time changes. */
typedef struct file_cache {
    char path[1024];
    off_t size;
    struct timespec mtime;
    int valid;
    redist__machine m;
    char source[1400];
} file_cache;
static _Thread_local file_cache cache;

static void load_file(file_cache *c, const char *path, const struct stat *st)
{
    snprintf(c->path, sizeof c->path, "%s", path);
    c->size = st->st_size;
    c->mtime = st->st_mtim;
    c->valid = 1;
    c->m = default_machine;
    char *text = NULL;
    FILE *f = st->st_size < (1 << 20) ? fopen(path, "r") : NULL;
    if (f != NULL && (text = redist__calloc((size_t)st->st_size + 1, 1)) != NULL &&
        fread(text, 1, (size_t)st->st_size, f) == (size_t)st->st_size) {
        char why[160];
        if (redist__machine_parse(text, &c->m, why, sizeof why) == 0)
            snprintf(c->source, sizeof c->source, "%s", path);
        else
            snprintf(c->source, sizeof c->source, "defaults (%s ignored: %s)", path, why);
    } else {
        snprintf(c->source, sizeof c->source, "defaults (%s unreadable)", path);
    }
    redist__free(text);
    if (f != NULL)
        fclose(f);
}

static void apply_environment(redist__machine *m, char *source, size_t len)
{
    for (int i = 0; i < REDIST__MACHINE_NPARAMS; i++) {
        char name[64], upper[32];
        size_t k = 0;
        for (; params[i].key[k] != '\0' && k + 1 < sizeof upper; k++)
            upper[k] = (char)toupper((unsigned char)params[i].key[k]);
        upper[k] = '\0';
        snprintf(name, sizeof name, "REDIST_MACHINE_%s", upper);
        const char *v = getenv(name), *end;
        if (v == NULL || *v == '\0')
            continue;
        double x = parse_value(v, &end, params[i].least);
        size_t at = strlen(source);
        if (x >= 0 && *skip_space(end) == '\0') {
            *param_ref(m, i) = x;
            snprintf(source + at, len - at, " + %s", name);
        } else {
            snprintf(source + at, len - at, " (%s ignored: not %s)", name, needs(i));
        }
    }
}

void redist__machine_current(redist__machine *m, char *source, size_t len)
{
    char path[1024], unused[8];
    if (source == NULL) /* the caller does not want to know */
        source = unused, len = sizeof unused;
    struct stat st;
    *m = default_machine;
    if (redist__machine_file_path(path, sizeof path) != 0) {
        snprintf(source, len, "defaults (no machine file: neither HOME nor REDIST_MACHINE_FILE)");
    } else if (stat(path, &st) != 0) {
        snprintf(source, len, "defaults (no machine file %s)", path);
    } else {
        if (!cache.valid || strcmp(cache.path, path) != 0 || cache.size != st.st_size ||
            cache.mtime.tv_sec != st.st_mtim.tv_sec || cache.mtime.tv_nsec != st.st_mtim.tv_nsec)
            load_file(&cache, path, &st);
        *m = cache.m;
        snprintf(source, len, "%s", cache.source);
    }
    apply_environment(m, source, len);
}

double redist__fresh_per_byte(const redist__machine *m)
{
    return m->per_byte > m->window_per_byte ? m->per_byte : m->window_per_byte;
}

void redist__machine_scale(redist__machine *m, double factor)
{
    for (int i = 0; i < REDIST__MACHINE_NPARAMS; i++)
        if (params[i].seconds) /* ranks taking turns slow every time, not the threads' ratio */
            *param_ref(m, i) *= factor;
}

double redist__thread_speedup(int threads, double limit)
{
    double t = threads > 1 ? (double)threads : 1.0;
    return t / (1.0 + (t - 1.0) / (limit >= 1.0 ? limit : 1.0));
}

void redist__machine_threads(redist__machine *m, int threads)
{
    double s = redist__thread_speedup(threads, m->copy_thread_limit);
    m->copy_per_byte /= s;
    m->copy_per_run /= s;
    m->window_per_byte /= s; /* the receiver's threads unpack from the sender's window */
    m->threads_speedup = s;
}

int redist__model_threads(int threads, int cores)
{
    int n = threads < cores ? threads : cores;
    return n > 1 ? n : 1;
}

void redist__machine_device(redist__machine *m)
{
    m->copy_per_byte = m->device_copy_per_byte;
    m->window_per_byte = m->device_copy_per_byte; /* the receiver's kernel unpacks */
    /* over inter-process memory the receiver's kernel pulls from the sender's src: the model's
       one copy (redist_alloc's node-shared host arrays do not matter to device arrays) */
    m->shared_arrays = m->device_ipc && m->shared_node;
    if (m->shared_arrays)
        m->window_per_byte = m->device_ipc_per_byte;
    m->copy_per_run = 0.0;
    m->threads_speedup = 1.0; /* the kernels do not use the rank's threads */
}

double redist__ranks_per_core(int ranks)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    double load = cores > 0 ? (double)ranks / (double)cores : 1.0;
    return load > 1.0 ? load : 1.0;
}

const redist__machine *redist__machine_once(void)
{
    static _Thread_local redist__machine once;
    static _Thread_local int loaded;
    if (!loaded) {
        redist__machine_current(&once, NULL, 0);
        loaded = 1;
    }
    return &once;
}
