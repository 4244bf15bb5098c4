/* Two programs of one MPMD launch exchange an array:
 *
 *     mpirun -n 2 ./mpmd producer : -n 3 ./mpmd consumer
 *
 * MPI_COMM_WORLD holds both programs; each finds its own by MPI_APPNUM, and the two groups
 * are joined with MPI_Intercomm_create. (Two different executables work the same way.) */
#include "common.h"

#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int world_rank, *appnum, flag;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag);
    int is_source = argc > 1 && strcmp(argv[1], "producer") == 0;
    MPI_Comm group, inter;
    MPI_Comm_split(MPI_COMM_WORLD, flag ? *appnum : is_source, world_rank, &group);
    /* The other group's leader: world rank 0 leads the first program, the first rank of the
       second program (the size of the first) leads the other. */
    int first_size = 0, in_first = flag ? *appnum == 0 : is_source;
    MPI_Allreduce(&in_first, &first_size, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Intercomm_create(group, 0, MPI_COMM_WORLD, in_first ? first_size : 0, 1, &inter);
    int status = exchange(inter, is_source, is_source ? "producer" : "consumer");
    MPI_Comm_free(&inter);
    MPI_Comm_free(&group);
    MPI_Finalize();
    return status;
}
