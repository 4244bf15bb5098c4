/* Internal (not installed): agreement, the step that makes every rank of a collective call
 * return the same code (agree.c). Used by plans and by the basic operations (src/coll/). */
#ifndef REDIST_AGREE_H
#define REDIST_AGREE_H

#include "core/core.h"
#include "index/index.h"

#include <mpi.h>

/* REDIST_ERR_MPI (with a detail) unless MPI is initialized and not yet finalized. Local. */
int redist__check_mpi(void);

/* Fingerprints of the arguments that must be the same on every rank, one per named field. */
enum { REDIST__MAX_FINGERPRINTS = 48, REDIST__LAYOUT_FIELDS = 8 };
typedef struct redist__fingerprint {
    const char *name; /* static: "src block", "algorithm", ... */
    uint64_t hash;
} redist__fingerprint;
typedef struct redist__fingerprints {
    int n;
    redist__fingerprint f[REDIST__MAX_FINGERPRINTS];
} redist__fingerprints;
void redist__fp_add(redist__fingerprints *fp, const char *name, const void *data, size_t n);
void redist__fp_add_string(redist__fingerprints *fp, const char *name, const char *s);
/* The layout's ndims, extent, block, grid, first, ranks and order, under the given names (l
   may be NULL: empty fields). */
void redist__fp_layout(redist__fingerprints *fp, const char *const names[REDIST__LAYOUT_FIELDS],
                       const struct redist_layout_s *l);
/* The two layouts of a pair as the fields "src ndims" ... "dst window offset" (either may be
   NULL): what plans and relabelling compare. */
void redist__fp_layout_pair(redist__fingerprints *fp, const struct redist_layout_s *src,
                            const struct redist_layout_s *dst);
/* The agreement step, collective over comm: the worst status over all ranks (the same code
   everywhere, with the failing rank's detail), else REDIST_ERR_MISMATCH naming the first
   field whose fingerprints differ (fp may be NULL: nothing to compare). */
int redist__agree(MPI_Comm comm, int rank, int err, const redist__fingerprints *fp);

/* REDIST__REAL4 .. REDIST__COMPLEX16 (index/scale.h) for float, double and their complex
   types (C's and Fortran's names, and duplicates of them), else 0: the types a plan can
   scale. */
int redist__scale_kind(MPI_Datatype type);
/* Size of a contiguous element type, or an error for types we cannot copy as bytes. */
int redist__element_size(MPI_Datatype type, size_t *elsize);

/* ---- handles the library did not create (handles.c) ----------------------------------- */
/* comm duplicated, MPI_ERRORS_RETURN on the duplicate; the call runs with comm's own handler
   set to MPI_ERRORS_RETURN and restored after, so that a failure is returned
   (REDIST_ERR_MPI, *dup = MPI_COMM_NULL) on every handler the user may have. Collective. */
int redist__comm_dup(MPI_Comm comm, MPI_Comm *dup);
/* The predefined type the datatype is made of: type itself when predefined; for a derived
   type (committed or not) the one predefined type at every leaf of its constructor tree
   (MPI_Type_get_envelope and MPI_Type_get_contents). REDIST_ERR_ARG for leaves of different
   types, REDIST_ERR_UNSUPPORTED for a Fortran 90 parameterized type, REDIST_ERR_NOMEM;
   *base = MPI_DATATYPE_NULL then. Local. */
int redist__type_base(MPI_Datatype type, MPI_Datatype *base);

/* Tags of the library's point-to-point messages, each on a private communicator. */
enum {
    REDIST__TAG_DATA = 7713,    /* a message, or a chunk of one (exec/engine.c) */
    REDIST__TAG_ACK = 7714,     /* shared-memory transport: the receiver has unpacked */
    REDIST__TAG_RELAY = 7715,   /* a relay step of indirect and hybrid (algo/relay.c) */
    REDIST__TAG_TCR96 = 7716,   /* a packet of [TCR96]'s algorithms (algo/tcr96.c) */
    REDIST__TAG_BMMC = 7717,    /* a round of the BMMC permutation (bmmc/perform.c) */
    REDIST__TAG_NOTE = 7718,    /* a batch's note to a node peer: packed, or read my arrays */
    REDIST__TAG_GATHER = 7719,  /* node-aware: blocks to the rank that sends them off node */
    REDIST__TAG_NETWORK = 7720, /* node-aware: one node pair's blocks between nodes */
    REDIST__TAG_SCATTER = 7721, /* node-aware: blocks from the rank that received them */
    REDIST__TAG_COLL = 9100     /* the basic operations (coll/) */
};

#endif
