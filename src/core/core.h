/* Internal (not installed): the bottom layer, no MPI. Errors and their detail, hashing,
 * integer helpers, what this machine's memory allows. Every other layer builds on it.
 *
 * The core library is compiled with REDIST_NO_MPI: redist.h then declares only what needs
 * no mpi.h (error codes, layouts, HPF index functions, BMMC matrices).
 */
#ifndef REDIST_CORE_H
#define REDIST_CORE_H

#include "redist.h"

#include <stddef.h>
#include <stdint.h>

/* ---- errors (error.c) ---------------------------------------------------------------------- */
enum { REDIST__DETAIL_LEN = 512 };
/* Records a printf-style detail for redist_last_error_detail() and returns err. */
int redist__fail(int err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Like redist__fail, but keeps the detail already recorded after the new text ("building
   the messages of rank 3: <detail>"): for callers that add where a failure happened. */
int redist__fail_context(int err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void redist__clear_error(void);
/* A call whose failure is an answer, not an error (a probe, a query: no device, a refused
   map): the detail before it kept, and put back after, so that what a caller later reads in
   redist_last_error_detail() is not the refusal. */
typedef struct redist__kept_detail {
    char text[REDIST__DETAIL_LEN];
} redist__kept_detail;
void redist__detail_keep(redist__kept_detail *k);
void redist__detail_restore(const redist__kept_detail *k);

/* ---- hashing and integers (util.c) --------------------------------------------------------- */
/* 64-bit FNV-1a of n bytes, folded into h (start with REDIST__FNV_BASIS). */
#define REDIST__FNV_BASIS 1469598103934665603ull
uint64_t redist__hash_bytes(uint64_t h, const void *p, size_t n);
/* Whether the options ask for more than a copy (alpha, beta, conjugate: redist.h). */
int redist__options_scale(const redist_options *opt);

/* gcd(a, b) of non-negative values (gcd(a, 0) = a). */
int64_t redist__gcd64(int64_t a, int64_t b);
/* ceil(log2 v) for v >= 1 (0 for v <= 1). */
int redist__ceil_log2(int64_t v);
/* lg v if v is a power of two (v >= 1), else -1. */
int redist__log2_exact(int64_t v);
/* The prime factors of K >= 1, ascending, with multiplicity, into f (at most 63 of them:
   2^63 > any int64_t); returns their number (0 for K = 1). */
enum { REDIST__MAX_PRIME_FACTORS = 63 };
int redist__prime_factors(int64_t K, int64_t f[REDIST__MAX_PRIME_FACTORS]);

/* a * b for a, b >= 0, or INT64_MAX if that does not fit. */
int64_t redist__mul_sat(int64_t a, int64_t b);

/* Element-count limit of one MPI call's count argument. */
#define REDIST__MAX_INT_COUNT ((int64_t)2147483647)
/* Messages are sent in chunks of at most this many bytes. */
#define REDIST__CHUNK_BYTES ((int64_t)1 << 30)
/* Chunks of a message of `bytes` (at least 1: an empty message is one empty chunk). */
int64_t redist__chunks(int64_t bytes);

/* The text of a macro's value, for a limit written once and quoted in a message:
   REDIST__STRING_OF(REDIST__SHIFT_MAX_RANKS) is "2048". */
#define REDIST__STRING_OF_TOKENS(x) #x
#define REDIST__STRING_OF(x) REDIST__STRING_OF_TOKENS(x)

/* ---- text (text.c) ------------------------------------------------------------------------- */
/* A NUL-terminated text that grows as it is written (start from all zeros). An allocation
   that fails marks it failed and later writes do nothing: check `failed` once at the end. */
typedef struct redist__text {
    char *s; /* NULL until the first write */
    size_t len, cap;
    int failed;
} redist__text;
void redist__text_printf(redist__text *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* A JSON string of s, escaped (NULL: null). */
void redist__text_json_string(redist__text *t, const char *s);
/* A JSON number with 9 significant digits (not finite: null). */
void redist__text_json_double(redist__text *t, double v);
void redist__text_free(redist__text *t);

/* ---- allocation (alloc.c) ------------------------------------------------------------------ */
/* Every allocation of the library goes through these (never malloc itself), so that tests
   can count allocations and make any one of them fail (redist__alloc_fail_at). They behave
   as malloc, calloc, realloc and free; the counters are atomic. */
void *redist__malloc(size_t bytes);
void *redist__calloc(size_t count, size_t size);
void *redist__realloc(void *p, size_t bytes);
void redist__free(void *p);

/* Test hooks. Allocations attempted so far (successful or not), and blocks not yet freed. */
int64_t redist__alloc_calls(void);
int64_t redist__alloc_live(void);
/* Bytes requested by every attempt so far (freed or not). */
int64_t redist__alloc_bytes(void);
/* Makes the allocation attempt numbered `call` (as redist__alloc_calls counts them: the next
   one is redist__alloc_calls()) fail and return NULL; -1 (the default) fails none. */
void redist__alloc_fail_at(int64_t call);

/* ---- cores (cores.c) ------------------------------------------------------------------- */
/* The CPUs the calling thread may run on: its affinity mask (sched_getaffinity; a process's
   threads inherit it), else the machine's online CPUs; at least 1. Asked anew at each call
   (a program may change its mask). */
int redist__cores(void);

/* ---- memory (sysmem.c) ----------------------------------------------------------------- */
/* Bytes of a node's physical memory (REDIST_MEMORY_LIMIT overrides): the whole node's, which
   its ranks share. */
double redist__memory_limit(void);
/* One rank's share of its node's memory: the limit divided evenly among the node_ranks ranks
   of a plan on that node (node_ranks < 1 counts as 1). */
double redist__memory_share(int node_ranks);
/* Bytes free for shared-memory segments: /dev/shm's free space, at most the physical memory
   (REDIST_SHM_LIMIT overrides). */
double redist__shm_limit(void);

#endif
