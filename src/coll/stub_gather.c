/* Stubs of the basic communication operations (paper 002) not implemented yet: each returns
 * REDIST_ERR_UNSUPPORTED on every rank alike, without communicating. */
#include "../internal.h"

#define UNSUPPORTED(what) redist__fail(REDIST_ERR_UNSUPPORTED, "%s is not implemented yet", what)

int redist_scatter(const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype type, int root,
                   MPI_Comm comm, const char *algorithm)
{
    (void)sendbuf, (void)recvbuf, (void)count, (void)type, (void)root, (void)comm;
    (void)algorithm;
    return UNSUPPORTED("redist_scatter");
}

int redist_gather(const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype type, int root,
                  MPI_Comm comm, const char *algorithm)
{
    (void)sendbuf, (void)recvbuf, (void)count, (void)type, (void)root, (void)comm;
    (void)algorithm;
    return UNSUPPORTED("redist_gather");
}

int redist_allgather(const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype type,
                     MPI_Comm comm, const char *algorithm)
{
    (void)sendbuf, (void)recvbuf, (void)count, (void)type, (void)comm, (void)algorithm;
    return UNSUPPORTED("redist_allgather");
}

int redist_reduce_scatter(const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype type,
                          MPI_Op op, MPI_Comm comm, const char *algorithm)
{
    (void)sendbuf, (void)recvbuf, (void)count, (void)type, (void)op, (void)comm, (void)algorithm;
    return UNSUPPORTED("redist_reduce_scatter");
}
