/* The C side of the Fortran module (src/fortran/redist.f90): what Fortran cannot pass to
 * the C API directly. MPI handles arrive as Fortran handles (mpi_f08's MPI_VAL) and become
 * C handles here; options arrive as the few values the module exposes. Buffers arrive as
 * C addresses (the module takes c_loc of contiguous arrays). */
#include "api/api.h"

int redist_f_plan_create(redist_layout src, redist_layout dst, MPI_Fint type, MPI_Fint comm,
                         const char *algorithm, int64_t max_buffer_bytes, int memory,
                         redist_plan *plan)
{
    redist_options opt;
    redist_options_init(&opt);
    opt.algorithm = algorithm;
    opt.max_buffer_bytes = max_buffer_bytes;
    opt.memory = memory;
    return redist_plan_create(src, dst, MPI_Type_f2c(type), MPI_Comm_f2c(comm), &opt, plan);
}
