/* Internal (not installed): the BMMC algorithm on a plan (perform.c), for
 * redist_plan_create_bmmc (api/bmmc_plan.c) and the registry's "bmmc". */
#ifndef REDIST_BMMC_H
#define REDIST_BMMC_H

#include "algo/algo.h"
#include "bmmc/factor.h"

/* Makes p run the factored permutation *bp: this rank is processor me (UINT64_MAX: it holds
   nothing), processor k is rank ranks[k] (NULL: k). Allocates the round buffers through
   redist__plan_buffer; p->opt.bmmc_method says how rounds communicate. */
int redist__bmmc_setup(struct redist_plan_s *p, const redist__bmmc_plan *bp, uint64_t me,
                       const int *ranks);

#endif
