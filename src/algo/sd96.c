/* [SD96]'s specialized algorithms (§4, Fig. 1): block-to-block, block-to-cyclic,
 * cyclic-to-block, tk-to-k and k-to-tk, for a source on P processes and a destination on P'
 * (any sets: distinct, overlapping or the same, and so across an intercommunicator).
 *
 * Each applies where its case of Fig. 1 holds along every dimension (index.h,
 * REDIST__SD_*; N-D dimension by dimension): Block(K) -> Block(K'), Block(K) -> Cyclic(K'),
 * Cyclic(K) -> Block(K'), Cyclic(TK') -> Cyclic(K'), Cyclic(K) -> Cyclic(TK), where Block(K)
 * gives each process one block (K P >= N) or there is one process. The set I(p, p') of each
 * pair is a regular section in every one of them, computed from the distribution parameters
 * alone: for the Block cases by index/sections.c (at most three run groups per pair, the block
 * index fixed to 0 as in the paper), for the two Cyclic cases by the periodic pattern, whose
 * run groups are the paper's sections (one run of K' per sub-block, replicated with the
 * stride Delta n = P' / gcd(P T, P') blocks on the source and Delta n' = P T / gcd(P T, P')
 * on the destination: the pattern's period L = lcm(T K' P, K' P')). So planning costs
 * O(peers) or O(blocks per period), never O(N).
 *
 * Execution is the paper's: one message per pair, data only (MPI says who sent it); every
 * receive posted first, then each message packed and sent in turn so that message i is in
 * flight while message i + 1 is packed, and each message unpacked as it arrives (direct-
 * async's engine). The paper's processor steps: process p of the source starts with its
 * destination p * m / P of its m peers and goes round, so that the sources do not all start
 * with the same destination. Cost: that of direct-async (all messages in flight):
 *   T_d + (M - 1) t_msg + the moves of the transport.
 * In bounded mode (max_buffer_bytes) the strip engine runs them: chunk i + 1 packed while
 * chunk i travels, through at most the bound of buffers, the paper's strip mining.
 */
#include "algo/algo.h"
#include "exec/engine.h"

static int start(struct redist_plan_s *p)
{
    int pos = redist__layout_position(p->src, p->rank), m = p->send.nmsgs;
    int first = pos < 0 || m == 0 ? 0 : (int)((int64_t)pos * m / p->src->nprocs);
    return redist__direct_async_start_from(p, first);
}

#define SECTIONS_RULE(fn, bit)                                                                     \
    static int fn(const redist__case *c)                                                           \
    {                                                                                              \
        return c->s.sections & (bit) ? REDIST_SUCCESS : REDIST_ERR_NOT_APPLICABLE;                 \
    }
SECTIONS_RULE(block_block, REDIST__SD_BLOCK_BLOCK)
SECTIONS_RULE(block_cyclic, REDIST__SD_BLOCK_CYCLIC)
SECTIONS_RULE(cyclic_block, REDIST__SD_CYCLIC_BLOCK)
SECTIONS_RULE(tk_k, REDIST__SD_TK_K)
SECTIONS_RULE(k_tk, REDIST__SD_K_TK)
#undef SECTIONS_RULE

#define SECTIONS_ALGORITHM(var, algo_name, rule, needs)                                            \
    const redist__algorithm var = {                                                                \
        .name = algo_name,                                                                         \
        .applicable = rule,                                                                        \
        .why_not = "needs " needs " along every dimension " REDIST__PLAIN_WHY,                     \
        .steps = redist__one_step,                                                                 \
        .predict = redist__direct_async_predict,                                                   \
        .transports = REDIST__T_PACK | REDIST__T_DATATYPE,                                         \
        .setup = redist__direct_async_setup,                                                       \
        .start = start,                                                                            \
        .progress = redist__direct_async_progress,                                                 \
        .destroy = redist__direct_async_destroy,                                                   \
        .uses_shm = 1,                                                                             \
        .packs = 1,                                                                                \
        .device = 1,                                                                               \
        .bounded = 1,                                                                              \
    }
SECTIONS_ALGORITHM(redist__algo_block_to_block, "block-to-block", block_block,
                   "a Block source and destination (one block per process, or one process)");
SECTIONS_ALGORITHM(redist__algo_block_to_cyclic, "block-to-cyclic", block_cyclic,
                   "a Block source (one block per process, or one process)");
SECTIONS_ALGORITHM(redist__algo_cyclic_to_block, "cyclic-to-block", cyclic_block,
                   "a Block destination (one block per process, or one process)");
SECTIONS_ALGORITHM(redist__algo_tk_to_k, "tk-to-k", tk_k,
                   "the source block a multiple of the destination block");
SECTIONS_ALGORITHM(redist__algo_k_to_tk, "k-to-tk", k_tk,
                   "the destination block a multiple of the source block");
#undef SECTIONS_ALGORITHM
