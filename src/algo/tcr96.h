/* Shared machinery of [TCR96]'s algorithms (Thakur, Choudhary, Ramanujam): ky-to-y and
 * x-to-kx (gcd and lcm are phases of the two; general has its own walk, general.c).
 *
 * [TCR96] computes who gets what by index arithmetic while packing (per block, with stored
 * processor sequences) and writes one packet per destination; the receiver reads packets back
 * in its own local order (packets.h). Multidimensional arrays take the algorithms "to each
 * dimension of the array separately" (§2): on the same ranks, grid and first coordinates,
 * along every dimension one block is a multiple K of the other, and the local indices along
 * it are cut into pieces of the smaller block, each with one peer; the peer of piece i is
 * the paper's processor sequence at i mod K (Fig. 2 and 5). A box is a piece along every
 * dimension: it has one peer, and both ends enumerate a pair's boxes in the same order
 * (lexicographic, dimensions nested as the source is stored), so packets carry data only.
 * The paper's processor p is grid coordinate (p + first) mod P along each dimension.
 */
#ifndef REDIST_ALGO_TCR96_H
#define REDIST_ALGO_TCR96_H

#include "exec/engine.h"
#include "index/tcr96_sequences.h"

/* The rules the [TCR96] algorithms share (pure). Option synchronous_receive (0 or 1), read
   by all five. Every one finds each block's peer and moves the block on its own: index work
   W = e n_b, n_b the blocks of min(x, y) elements a rank sends and receives (the pattern's
   pieces in N-D), e the machine's per_index. gcd and lcm: two steps (phases) if anything
   moves; each phase costs a ratio algorithm's messages, its start-up and a message cost per
   peer ([TCR96] §5.2-5.3), and its own index work: phase x -> m moves blocks of min(x, m),
   phase m -> y blocks of min(m, y), m = gcd(x, y) or lcm(x, y) (1-D; in N-D 2 W):
     2 (T_d + M t_msg + the moves of the transport) + 2 e n_local (1/min(x, m) + 1/min(m, y)).
   ky-to-y and x-to-kx: one step, every packet in flight at once through MPI (as
   direct-async without the shared-memory window): T_d + (M - 1) t_msg + moves + W. */
int redist__tcr96_check_options(const redist_options *opt, int comm_size);
void redist__tcr96_fingerprint_options(redist__fingerprints *fp, const redist_options *opt);
int redist__tcr96_two_steps(const redist__case *c, const redist__machine *m,
                            const redist_options *opt);
double redist__tcr96_predict_gcd(const redist__case *c, const redist__machine *m,
                                 const redist_options *opt, int transport);
double redist__tcr96_predict_lcm(const redist__case *c, const redist__machine *m,
                                 const redist_options *opt, int transport);
double redist__tcr96_predict_ratio(const redist__case *c, const redist__machine *m,
                                   const redist_options *opt, int transport);

/* A processor sequence: the paper processor of piece i (0 <= i < K) of this side along a
   dimension of ratio K over P processors, for this rank's paper processor me. */
typedef int64_t (*redist__tcr96_seq_fn)(int64_t K, int64_t P, int64_t me, int64_t i);

/* ky-to-y and x-to-kx: setup with the sequences of the sending and the receiving side, and
   the run functions. */
int redist__tcr96_ratio_setup(struct redist_plan_s *p, redist__tcr96_seq_fn send_seq,
                              redist__tcr96_seq_fn recv_seq);
int redist__tcr96_ratio_start(struct redist_plan_s *p);
int redist__tcr96_ratio_progress(struct redist_plan_s *p, int blocking, int *done);
void redist__tcr96_ratio_destroy(struct redist_plan_s *p);
/* The hooks ky-to-y and x-to-kx share (their files add name, applicable and setup). */
#define REDIST__TCR96_RATIO_HOOKS                                                                  \
    .steps = redist__one_step, .predict = redist__tcr96_predict_ratio,                             \
    .transports = REDIST__T_PACK, .check_options = redist__tcr96_check_options,                    \
    .fingerprint_options = redist__tcr96_fingerprint_options, .start = redist__tcr96_ratio_start,  \
    .progress = redist__tcr96_ratio_progress, .destroy = redist__tcr96_ratio_destroy, .packs = 1

/* gcd and lcm: two phases through cyclic(m_k) along every dimension k, m_k = gcd or lcm of
   the two blocks (phases.c), with the named algorithms. */
int redist__tcr96_two_phases(struct redist_plan_s *p, int use_lcm, const char *first,
                             const char *second);
int redist__tcr96_phases_start(struct redist_plan_s *p);
int redist__tcr96_phases_progress(struct redist_plan_s *p, int blocking, int *done);
void redist__tcr96_phases_destroy(struct redist_plan_s *p);
void redist__tcr96_phases_stats(const struct redist_plan_s *p, redist_stats *st);
/* The hooks gcd and lcm share (their files add name, applicable and setup). */
/* What REDIST__TCR96_SAME_GRID asks, in words: the start of the four algorithms' why_not. */
#define REDIST__TCR96_SAME_GRID_WHY                                                                \
    "needs the same ranks, grid and first coordinates on both sides " REDIST__PLAIN_WHY

#define REDIST__TCR96_PHASES_HOOKS                                                                 \
    .steps = redist__tcr96_two_steps, .transports = REDIST__T_PACK,                                \
    .check_options = redist__tcr96_check_options,                                                  \
    .fingerprint_options = redist__tcr96_fingerprint_options, .start = redist__tcr96_phases_start, \
    .progress = redist__tcr96_phases_progress, .destroy = redist__tcr96_phases_destroy,            \
    .local_stats = redist__tcr96_phases_stats, .dry_needs_buffers = 1

#endif
