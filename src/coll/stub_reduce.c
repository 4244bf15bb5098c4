/* Stubs of the basic communication operations (paper 002) not implemented yet: each returns
 * REDIST_ERR_UNSUPPORTED on every rank alike, without communicating. */
#include "../internal.h"

#define UNSUPPORTED(what) redist__fail(REDIST_ERR_UNSUPPORTED, "%s is not implemented yet", what)

int redist_bcast(void *buf, int64_t count, MPI_Datatype type, int root, MPI_Comm comm,
                 const char *algorithm)
{
    (void)buf, (void)count, (void)type, (void)root, (void)comm, (void)algorithm;
    return UNSUPPORTED("redist_bcast");
}

int redist_reduce(const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype type, MPI_Op op,
                  int root, MPI_Comm comm, const char *algorithm)
{
    (void)sendbuf, (void)recvbuf, (void)count, (void)type, (void)op, (void)root, (void)comm;
    (void)algorithm;
    return UNSUPPORTED("redist_reduce");
}

int redist_allreduce(const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype type,
                     MPI_Op op, MPI_Comm comm, const char *algorithm)
{
    (void)sendbuf, (void)recvbuf, (void)count, (void)type, (void)op, (void)comm, (void)algorithm;
    return UNSUPPORTED("redist_allreduce");
}

int redist_scan(const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype type, MPI_Op op,
                MPI_Comm comm, const char *algorithm)
{
    (void)sendbuf, (void)recvbuf, (void)count, (void)type, (void)op, (void)comm, (void)algorithm;
    return UNSUPPORTED("redist_scan");
}
