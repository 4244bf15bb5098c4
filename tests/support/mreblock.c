/* The one-copy tests' re-blocking cases (mreblock.h). */
#include "support/mreblock.h"

#include "support/mtest.h"

void mreblock_make(const mreblock_spec *c, int rank, int size, mreblock_pair *p)
{
    int one = c->nd == 1;
    p->sgrid[0] = one ? size : 1, p->sgrid[1] = size;
    p->dgrid[0] = size, p->dgrid[1] = 1;
    p->scoords[0] = one ? rank : 0, p->scoords[1] = rank;
    p->dcoords[0] = rank, p->dcoords[1] = 0;
    int64_t dn[2] = {c->perm ? c->n[1] : c->n[0], c->perm ? c->n[0] : c->n[1]};
    redist_layout_create(c->nd, c->n, c->b1, p->sgrid, NULL, NULL, REDIST_ROW_MAJOR, &p->src);
    redist_layout_create(c->nd, dn, c->b2, p->dgrid, NULL, NULL, REDIST_ROW_MAJOR, &p->dst);
    redist_layout_local_shape(p->src, rank, p->sshape);
    redist_layout_local_shape(p->dst, rank, p->dshape);
    p->ns = p->sshape[0] * (c->nd == 2 ? p->sshape[1] : 1);
    p->nd = p->dshape[0] * (c->nd == 2 ? p->dshape[1] : 1);
}

void mreblock_free(mreblock_pair *p)
{
    redist_layout_free(&p->src);
    redist_layout_free(&p->dst);
}

static double value(int64_t g, int round)
{
    return (double)(g % 100003) + 0.25 + 1000000.0 * round;
}

void mreblock_fill(const mreblock_spec *c, const mreblock_pair *p, double *a, int round)
{
    for (int64_t i = 0; i < p->ns; i++)
        a[i] = value(mtest_global_linear(c->nd, c->n, c->b1, p->sgrid, NULL, REDIST_ROW_MAJOR,
                                         p->sshape, p->scoords, i),
                     round);
}

int64_t mreblock_check(const mreblock_spec *c, const mreblock_pair *p, const double *b,
                       double before, int round, double *got, double *want)
{
    int64_t dn[2] = {c->perm ? c->n[1] : c->n[0], c->perm ? c->n[0] : c->n[1]};
    for (int64_t i = 0; i < p->nd; i++) {
        int64_t g = mtest_global_linear(c->nd, dn, c->b2, p->dgrid, NULL, REDIST_ROW_MAJOR,
                                        p->dshape, p->dcoords, i);
        if (c->perm) /* dst (j, i) is src (i, j) */
            g = (g % dn[1]) * dn[0] + g / dn[1];
        double w = c->scaled ? 2 * value(g, round) - 0.5 * before : value(g, round);
        if (b[i] != w) {
            *got = b[i];
            *want = w;
            return i;
        }
    }
    return -1;
}
