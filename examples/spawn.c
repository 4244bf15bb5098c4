/* A program starts its partner with MPI_Comm_spawn and sends it an array:
 *
 *     mpirun -n 2 ./spawn 3      (2 producers spawn 3 consumers)
 *
 * MPI_Comm_spawn returns the intercommunicator to the children; they get it from
 * MPI_Comm_get_parent. */
#include "common.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm parent, inter;
    MPI_Comm_get_parent(&parent);
    int status;
    if (parent == MPI_COMM_NULL) { /* the producers */
        int children = argc > 1 ? atoi(argv[1]) : 3;
        MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, children, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                       MPI_ERRCODES_IGNORE);
        status = exchange(inter, 1, "parent");
    } else { /* the spawned consumers */
        inter = parent;
        status = exchange(inter, 0, "child");
    }
    MPI_Comm_disconnect(&inter);
    MPI_Finalize();
    return status;
}
