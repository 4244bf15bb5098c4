/* Stubs of the basic communication operations (paper 002) not implemented yet: each returns
 * REDIST_ERR_UNSUPPORTED on every rank alike, without communicating. */
#include "../internal.h"

#define UNSUPPORTED(what) redist__fail(REDIST_ERR_UNSUPPORTED, "%s is not implemented yet", what)

int redist_alltoall(const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype type,
                    MPI_Comm comm, const char *algorithm)
{
    (void)sendbuf, (void)recvbuf, (void)count, (void)type, (void)comm, (void)algorithm;
    return UNSUPPORTED("redist_alltoall");
}

int redist_shift(const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype type, int shift,
                 MPI_Comm comm, const char *algorithm)
{
    (void)sendbuf, (void)recvbuf, (void)count, (void)type, (void)shift, (void)comm;
    (void)algorithm;
    return UNSUPPORTED("redist_shift");
}
