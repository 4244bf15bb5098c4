/* BLACS and ScaLAPACK's NUMROC as the tests that compare with ScaLAPACK call them (Debian's
   library has no C headers for them). */
#ifndef REDIST_TEST_BLACS_H
#define REDIST_TEST_BLACS_H

void Cblacs_pinfo(int *me, int *np);
void Cblacs_get(int ctxt, int what, int *val);
void Cblacs_gridinit(int *ctxt, char *order, int nprow, int npcol);
void Cblacs_gridmap(int *ctxt, int *usermap, int ldu, int nprow, int npcol);
void Cblacs_gridinfo(int ctxt, int *nprow, int *npcol, int *myrow, int *mycol);
void Cblacs_gridexit(int ctxt);
int numroc_(int *n, int *nb, int *iproc, int *isrc, int *nprocs);

#endif
