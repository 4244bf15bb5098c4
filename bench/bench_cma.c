/* bench_cma: the floors of moving 25 MiB per process in runs of a given length, all
 * processes at once (docs/performance.md, "ScaLAPACK's p?gemr2d"): one strided memcpy of the
 * runs within a process, and Linux's cross-memory attach (process_vm_readv, one iovec per
 * run, 1024 per call) from the next process's memory, a single copy between processes.
 *
 *     mpirun -np 4 build/bench_cma 256      # run length in bytes (default 256)
 *
 * Runs sit every 2 x run bytes in both arrays (a strided layout, as a column's blocks are).
 * Prints the slowest process's time of each, the best of 3. */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

enum { IOV = 1024 };

static double slowest(double t)
{
    double most = 0;
    MPI_Allreduce(&t, &most, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return most;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    size_t n = (size_t)25 << 20, run = argc > 1 ? (size_t)atol(argv[1]) : 256;
    if (run < 1 || run > n)
        run = 256;
    char *src = malloc(2 * n), *dst = malloc(2 * n);
    memset(src, me + 1, 2 * n);
    memset(dst, 0, 2 * n);
    int pid = (int)getpid(), *pids = malloc((size_t)np * sizeof *pids);
    uint64_t addr = (uint64_t)(uintptr_t)src, *addrs = malloc((size_t)np * sizeof *addrs);
    MPI_Allgather(&pid, 1, MPI_INT, pids, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Allgather(&addr, 1, MPI_UINT64_T, addrs, 1, MPI_UINT64_T, MPI_COMM_WORLD);
    int peer = (me + 1) % np, failed = 0;
    size_t runs = n / run;
    struct iovec local[IOV], remote[IOV];
    double best_cma = 1e30, best_copy = 1e30;
    for (int rep = 0; rep < 3; rep++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t = MPI_Wtime();
        for (size_t r = 0; r < runs && !failed; r += IOV) {
            size_t k = runs - r < IOV ? runs - r : IOV;
            for (size_t i = 0; i < k; i++) {
                local[i] = (struct iovec){dst + (r + i) * 2 * run, run};
                remote[i] =
                    (struct iovec){(void *)(uintptr_t)(addrs[peer] + (r + i) * 2 * run), run};
            }
            if (process_vm_readv(pids[peer], local, k, remote, k, 0) != (ssize_t)(k * run))
                failed = 1;
        }
        double cma = slowest(MPI_Wtime() - t);
        MPI_Barrier(MPI_COMM_WORLD);
        t = MPI_Wtime();
        for (size_t i = 0; i < runs; i++)
            memcpy(dst + i * 2 * run, src + i * 2 * run, run);
        double copy = slowest(MPI_Wtime() - t);
        best_cma = cma < best_cma ? cma : best_cma;
        best_copy = copy < best_copy ? copy : best_copy;
    }
    int any = 0;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (me == 0)
        printf("%d processes, 25 MiB each in runs of %zu B: process_vm_readv %.2f ms%s, strided "
               "memcpy %.2f ms\n",
               np, run, best_cma * 1e3, any ? " (FAILED: not permitted here)" : "",
               best_copy * 1e3);
    free(src);
    free(dst);
    free(pids);
    free(addrs);
    MPI_Finalize();
    return any;
}
