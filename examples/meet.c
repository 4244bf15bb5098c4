/* Two jobs launched separately meet and exchange an array ([SD96]'s tasks on different
 * machines). The server opens a port and writes its name to a file; the client reads it and
 * connects. With Open MPI, both jobs need a common name server:
 *
 *     ompi-server --no-daemonize -r uri.txt &
 *     mpirun --ompi-server file:uri.txt -n 2 ./meet server port.txt &
 *     mpirun --ompi-server file:uri.txt -n 3 ./meet client port.txt
 */
#include "common.h"

#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc < 3) {
        fprintf(stderr, "usage: meet server|client PORT_FILE\n");
        MPI_Finalize();
        return 2;
    }
    int rank, is_server = strcmp(argv[1], "server") == 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char port[MPI_MAX_PORT_NAME] = "";
    MPI_Comm inter;
    if (is_server) {
        if (rank == 0) {
            MPI_Open_port(MPI_INFO_NULL, port);
            char tmp[4096]; /* written whole, then renamed: the client never reads half */
            snprintf(tmp, sizeof tmp, "%s.tmp", argv[2]);
            FILE *f = fopen(tmp, "w");
            if (f != NULL) {
                fprintf(f, "%s\n", port);
                fclose(f);
                rename(tmp, argv[2]);
            }
        }
        MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
    } else {
        if (rank == 0) { /* wait up to a minute for the server's port name */
            FILE *f = NULL;
            for (int i = 0; i < 600 && (f = fopen(argv[2], "r")) == NULL; i++)
                usleep(100000);
            if (f == NULL || fgets(port, sizeof port, f) == NULL)
                fprintf(stderr, "client: no port name in %s\n", argv[2]);
            if (f != NULL)
                fclose(f);
            port[strcspn(port, "\n")] = '\0';
        }
        MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
    }
    int status = exchange(inter, is_server, is_server ? "server" : "client");
    MPI_Comm_disconnect(&inter);
    if (is_server && rank == 0)
        MPI_Close_port(port);
    MPI_Finalize();
    return status;
}
