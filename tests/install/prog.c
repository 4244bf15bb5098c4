/* Built against an installed redist (pkg-config and find_package); see
   cmake/install_smoke.cmake. Uses only calls that need no MPI_Init. */
#include <redist.h>
#include <stdio.h>

int main(void)
{
    const char *msg = redist_strerror(REDIST_ERR_ARG);
    int count = redist_algorithm_count();
    printf("redist_strerror(REDIST_ERR_ARG) = %s\n", msg ? msg : "(null)");
    printf("redist_algorithm_count() = %d\n", count);
    return (msg != NULL && count > 0) ? 0 : 1;
}
