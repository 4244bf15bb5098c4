! consumer.f90: a Fortran program built against an INSTALLED redist with `use redist`
! (tests/consumer/README.md). A 29 x 41 matrix of doubles in 3 x 4 blocks on a 1 x P grid
! goes to 6 x 2 blocks on a P x 1 grid whose processes are in reverse order. Every process
! checks every element it receives; process 0 prints
! "consumer (Fortran): N elements checked, W wrong". Exit status 0 only if W == 0.
!
!   mpif90 consumer.f90 $(pkg-config --cflags --libs redist_fortran) -o consumer_f
!   mpirun -n 3 ./consumer_f
program consumer
  use, intrinsic :: iso_c_binding
  use mpi_f08
  use redist
  implicit none
  integer(c_int64_t), parameter :: m = 29, n = 41
  integer(c_int64_t), parameter :: ab(2) = [3, 4], bb(2) = [6, 2]
  type(redist_layout) :: la, lb
  type(redist_plan) :: plan
  integer :: me, np, k, wrong, checked, total_wrong, total_checked, pos
  integer(c_int64_t) :: sa(2), sb(2), i, j
  integer(c_int), allocatable :: reversed(:)
  double precision, allocatable :: a(:, :), b(:, :)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, me)
  call MPI_Comm_size(MPI_COMM_WORLD, np)

  call check(redist_layout_create([m, n], ab, [1, np], la), 'source layout')
  reversed = [(np - 1 - k, k = 0, np - 1)]
  call check(redist_layout_create([m, n], bb, [np, 1], lb, ranks=reversed), 'destination layout')
  call check(redist_layout_local_shape(la, me, sa), 'local shape')
  call check(redist_layout_local_shape(lb, me, sb), 'local shape')
  allocate (a(max(sa(1), 1_c_int64_t), max(sa(2), 1_c_int64_t)))
  allocate (b(max(sb(1), 1_c_int64_t), max(sb(2), 1_c_int64_t)))
  do j = 0, sa(2) - 1 ! source: coordinates (0, me)
    do i = 0, sa(1) - 1
      a(i + 1, j + 1) = value_of(global_of(i, ab(1), 1, 0), global_of(j, ab(2), np, me))
    end do
  end do
  b = -1d0

  call check(redist_plan_create(la, lb, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, plan), 'plan')
  call check(redist_execute(plan, a, b), 'execute')

  wrong = 0
  checked = 0
  pos = np - 1 - me ! destination coordinates (pos, 0)
  do j = 0, sb(2) - 1
    do i = 0, sb(1) - 1
      checked = checked + 1
      if (b(i + 1, j + 1) /= value_of(global_of(i, bb(1), np, pos), global_of(j, bb(2), 1, 0))) &
        wrong = wrong + 1
    end do
  end do
  call MPI_Allreduce(wrong, total_wrong, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call MPI_Allreduce(checked, total_checked, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (me == 0) print '(a, i0, a, i0, a, i0, a, a)', 'consumer (Fortran): ', total_checked, &
    ' elements checked, ', total_wrong, ' wrong, on ', np, ' ranks, algorithm ', &
    redist_plan_algorithm(plan)
  call check(redist_plan_free(plan), 'plan free')
  call check(redist_layout_free(la), 'free')
  call check(redist_layout_free(lb), 'free')
  call MPI_Finalize()
  if (total_wrong /= 0 .or. total_checked /= m * n) error stop 1

contains

  subroutine check(code, what)
    integer(c_int), intent(in) :: code
    character(*), intent(in) :: what
    if (code /= REDIST_SUCCESS) then
      print '(a, a, a, a, a, a)', 'consumer (Fortran): ', what, ': ', redist_strerror(code), &
        ': ', redist_last_error_detail()
      error stop 2
    end if
  end subroutine

  ! Global index (0-based) along one dimension of local index l on coordinate c.
  integer(c_int64_t) function global_of(l, blk, p, c)
    integer(c_int64_t), intent(in) :: l, blk
    integer, intent(in) :: p, c
    global_of = (l / blk * p + c) * blk + mod(l, blk)
  end function

  double precision function value_of(gi, gj)
    integer(c_int64_t), intent(in) :: gi, gj
    value_of = dble(gi) + 1000d0 * dble(gj)
  end function
end program consumer
