/* The C side of the Fortran module (src/fortran/redist.f90): what Fortran cannot pass to
 * the C API directly. MPI handles arrive as Fortran handles (mpi_f08's MPI_VAL) and become
 * C handles here; options arrive as the few values the module exposes. Buffers arrive as
 * C addresses (the module takes c_loc of contiguous arrays). */
#include "api/api.h"

/* The module's plan constructor with options.reduce too: reduce is a Fortran MPI_Op handle
   (MPI_OP_NULL's: no partial sums). Declared here: the module is its one caller. */
int redist_f_plan_create_reduce(redist_layout src, redist_layout dst, MPI_Fint type, MPI_Fint comm,
                                const char *algorithm, int64_t max_buffer_bytes, int memory,
                                MPI_Fint reduce, redist_plan *plan);

int redist_f_plan_create_reduce(redist_layout src, redist_layout dst, MPI_Fint type, MPI_Fint comm,
                                const char *algorithm, int64_t max_buffer_bytes, int memory,
                                MPI_Fint reduce, redist_plan *plan)
{
    redist_options opt;
    redist_options_init(&opt);
    opt.algorithm = algorithm;
    opt.max_buffer_bytes = max_buffer_bytes;
    opt.memory = memory;
    opt.reduce = MPI_Op_f2c(reduce);
    return redist_plan_create(src, dst, MPI_Type_f2c(type), MPI_Comm_f2c(comm), &opt, plan);
}

int redist_f_plan_create(redist_layout src, redist_layout dst, MPI_Fint type, MPI_Fint comm,
                         const char *algorithm, int64_t max_buffer_bytes, int memory,
                         redist_plan *plan)
{
    return redist_f_plan_create_reduce(src, dst, type, comm, algorithm, max_buffer_bytes, memory,
                                       MPI_Op_c2f(MPI_OP_NULL), plan);
}
