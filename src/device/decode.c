/* A message flattened for the device (decode.h), at plan time. */
#include "device/device.h"

#include "device/decode.h"

int64_t redist__decode_runs(const redist__msg *m)
{
    int64_t n = 0;
    for (int l = 0; l < m->nlevels; l++)
        n += m->levels[l].nruns;
    return n;
}

void redist__decode_build(const redist__msg *m, rd_level *lv, rd_run *runs)
{
    int64_t at = 0, inner = 1;
    for (int l = m->nlevels - 1; l >= 0; l--) { /* inner: the levels below, fastest first */
        const redist__level *L = &m->levels[l];
        int64_t indices = 0;
        for (int64_t g = 0; g < L->nruns; g++)
            indices += L->runs[g].len * L->runs[g].count;
        lv[l].inner = inner;
        inner *= indices;
    }
    for (int l = 0; l < m->nlevels; l++) {
        const redist__level *L = &m->levels[l];
        lv[l].first_run = at;
        lv[l].nruns = L->nruns;
        lv[l].src_period = L->src_period;
        lv[l].dst_period = L->dst_period;
        lv[l].src_stride = L->src_stride;
        lv[l].dst_stride = L->dst_stride;
        int64_t start = 0;
        for (int64_t g = 0; g < L->nruns; g++, at++) {
            const redist__run *r = &L->runs[g];
            runs[at] = (rd_run){start, r->src_off, r->dst_off, r->len};
            start += r->len * r->count;
        }
    }
}
