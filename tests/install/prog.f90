! Built against an installed redist (pkg-config and find_package, with `use redist`); see
! cmake/install_smoke.cmake. Uses only calls that need no MPI_Init.
program prog
  use, intrinsic :: iso_c_binding
  use redist
  implicit none
  type(redist_layout) :: l
  integer(c_int64_t) :: shape(2)
  integer(c_int) :: rc
  rc = redist_layout_create([10_c_int64_t, 7_c_int64_t], [3_c_int64_t, 2_c_int64_t], [2, 1], l)
  if (rc /= REDIST_SUCCESS) error stop 1
  rc = redist_layout_local_shape(l, 1, shape)
  print '(a, i0, a, i0)', 'fortran: rank 1 holds ', shape(1), ' x ', shape(2)
  print '(a, a)', 'fortran: redist_strerror(REDIST_ERR_ARG) = ', redist_strerror(REDIST_ERR_ARG)
  rc = redist_layout_free(l)
  if (shape(1) /= 4 .or. shape(2) /= 7) error stop 2
end program prog
