! Re-blocking a sub-matrix from Fortran with `use redist`: the window A(4:33, 6:25) of a
! 50 x 40 matrix in 4 x 3 blocks on a rows x cols grid, whose local arrays have two rows of
! padding (a leading dimension, as ScaLAPACK's LLD), goes to a dense 30 x 20 matrix in 7 x 5
! blocks on the transposed grid with the processes in reverse order. Every process checks
! every element it receives, and that the padding it sent from is untouched; the plan runs
! by execute, by start + test, and by start + wait. A bad call shows the error reporting.
!
!   mpirun -np 4 build/examples/fortran_reblock
program fortran_reblock
  use, intrinsic :: iso_c_binding
  use mpi_f08
  use redist
  implicit none
  integer(c_int64_t), parameter :: m_all = 50, n_all = 40, off(2) = [3, 5], cnt(2) = [30, 20]
  type(redist_layout) :: parent, src, dst, bad
  type(redist_plan) :: plan, auto_plan
  type(redist_stats) :: stats
  integer :: me, np, rows, cols, k, err, wrong, checked, run, total_wrong, total_checked
  integer(c_int) :: rc
  integer(c_int), allocatable :: reversed(:)
  integer(c_int64_t) :: shape_a(2), shape_b(2), lda
  double precision, allocatable, target :: a(:, :), b(:, :)
  double precision :: strided(4, 4)
  logical :: done

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, me)
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  rows = 1
  do k = 1, np
    if (k * k <= np .and. mod(np, k) == 0) rows = k
  end do
  cols = np / rows

  ! The source: the parent matrix, then the window with this process's padded local array.
  call check(redist_layout_create([m_all, n_all], [4_c_int64_t, 3_c_int64_t], [rows, cols], &
                                  parent), 'parent layout')
  call check(redist_layout_local_shape(parent, me, shape_a), 'local shape')
  lda = shape_a(1) + 2
  call check(redist_layout_create_window(parent, src, offset=off, count=cnt, &
                                         ld=[lda, 0_c_int64_t]), 'window')
  allocate (a(lda, max(shape_a(2), 1_c_int64_t)))
  call fill_source()

  ! The destination: 7 x 5 blocks on the cols x rows grid, processes in reverse order.
  reversed = [(np - 1 - k, k = 0, np - 1)]
  call check(redist_layout_create(cnt, [7_c_int64_t, 5_c_int64_t], [cols, rows], dst, &
                                  ranks=reversed), 'destination layout')
  call check(redist_layout_local_shape(dst, me, shape_b), 'destination shape')
  allocate (b(max(shape_b(1), 1_c_int64_t), max(shape_b(2), 1_c_int64_t)))

  call check(redist_plan_create(src, dst, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, plan), 'plan')
  call check(redist_plan_stats(plan, stats), 'stats')
  if (me == 0) print '(a, a, a, i0, a, es9.2, a)', 'fortran_reblock: algorithm ', &
    redist_plan_algorithm(plan), ', ', stats%steps, ' step(s), predicted ', &
    stats%predicted_seconds, ' s'

  wrong = 0
  checked = 0
  do run = 1, 3
    b = -1d0
    select case (run)
    case (1)
      call check(redist_execute(plan, a, b), 'execute')
    case (2)
      call check(redist_start(plan, a, b), 'start')
      done = .false.
      do while (.not. done)
        call check(redist_test(plan, done), 'test')
      end do
    case (3)
      call check(redist_start(plan, a, b), 'start')
      call check(redist_wait(plan), 'wait')
    end select
    call check_destination()
    call check_source_intact()
  end do

  ! Device memory's interface: a plan told to ask where each array lives
  ! (REDIST_MEMORY_AUTO), given the arrays' addresses as a GPU code passes its device arrays'
  ! (transfer(c_devloc(x), c_null_ptr) in CUDA Fortran); these are host arrays, moved on the
  ! host. A process that holds nothing passes c_null_ptr.
  call check(redist_plan_create(src, dst, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, auto_plan, &
                                memory=REDIST_MEMORY_AUTO), 'plan (memory = AUTO)')
  b = -1d0
  call check(redist_execute_ptr(auto_plan, address_of(a, product(shape_a) > 0), &
                                address_of(b, product(shape_b) > 0)), 'execute_ptr')
  call check_destination()
  call check(redist_plan_free(auto_plan), 'plan free')

  ! Errors: a bad argument gives a code, its name and a message, on this process.
  rc = redist_layout_create([10_c_int64_t], [0_c_int64_t], [1], bad)
  if (rc /= REDIST_ERR_ARG) then
    print '(a, i0)', 'block 0 should be REDIST_ERR_ARG, got ', rc
    wrong = wrong + 1
  else if (me == 0) then
    print '(a, a, a, a)', 'expected error: ', redist_strerror(rc), ': ', redist_last_error_detail()
  end if
  ! A strided (non-contiguous) buffer is refused, on every process (a collective outcome).
  strided = 0d0
  rc = redist_execute(plan, strided(1:4:2, :), b)
  if (rc /= REDIST_ERR_ARG) then
    print '(a, i0)', 'a strided buffer should be REDIST_ERR_ARG, got ', rc
    wrong = wrong + 1
  end if

  call MPI_Allreduce(wrong, total_wrong, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call MPI_Allreduce(checked, total_checked, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (me == 0) print '(a, i0, a, i0, a)', 'fortran_reblock: ', total_checked, &
    ' elements checked, ', total_wrong, ' wrong'
  call check(redist_plan_free(plan), 'plan free')
  call check(redist_layout_free(src), 'free')
  call check(redist_layout_free(dst), 'free')
  call check(redist_layout_free(parent), 'free')
  call MPI_Finalize()
  if (total_wrong /= 0) error stop 1

contains

  function address_of(x, holds) result(p)
    real(c_double), intent(in), target, contiguous :: x(:, :)
    logical, intent(in) :: holds
    type(c_ptr) :: p
    p = c_null_ptr
    if (holds) p = c_loc(x)
  end function

  subroutine check(code, what)
    integer(c_int), intent(in) :: code
    character(*), intent(in) :: what
    if (code /= REDIST_SUCCESS) then
      print '(a, a, a, a, a, a)', what, ': ', redist_strerror(code), ' (', &
        redist_last_error_detail(), ')'
      error stop 2
    end if
  end subroutine

  ! Global index (0-based) along one dimension of local index l (0-based) on coordinate c.
  integer(c_int64_t) function global_of(l, b, p, c)
    integer(c_int64_t), intent(in) :: l, b
    integer, intent(in) :: p, c
    global_of = (l / b * p + c) * b + mod(l, b)
  end function

  double precision function value_at(i, j) ! of the parent's element (i, j), 0-based
    integer(c_int64_t), intent(in) :: i, j
    value_at = dble(i) + 1000d0 * dble(j)
  end function

  ! This process's coordinates in a rows x cols grid whose positions are row-major.
  subroutine coords(position, r, c, ncols)
    integer, intent(in) :: position, ncols
    integer, intent(out) :: r, c
    r = position / ncols
    c = mod(position, ncols)
  end subroutine

  subroutine fill_source()
    integer :: r, c
    integer(c_int64_t) :: li, lj
    a = -7d0 ! padding and elements outside the window: must stay as they are
    call coords(me, r, c, cols)
    do lj = 0, shape_a(2) - 1
      do li = 0, shape_a(1) - 1
        a(li + 1, lj + 1) = value_at(global_of(li, 4_c_int64_t, rows, r), &
                                     global_of(lj, 3_c_int64_t, cols, c))
      end do
    end do
  end subroutine

  subroutine check_destination()
    integer :: pos, r, c
    integer(c_int64_t) :: li, lj, gi, gj
    pos = np - 1 - me ! grid position of this process in the destination
    call coords(pos, r, c, rows)
    do lj = 0, shape_b(2) - 1
      do li = 0, shape_b(1) - 1
        gi = global_of(li, 7_c_int64_t, cols, r)
        gj = global_of(lj, 5_c_int64_t, rows, c)
        checked = checked + 1
        if (b(li + 1, lj + 1) /= value_at(gi + off(1), gj + off(2))) then
          if (wrong < 5) print '(a, i0, a, i0, a, i0, a, f12.1)', 'process ', me, ': B(', gi, &
            ', ', gj, ') = ', b(li + 1, lj + 1)
          wrong = wrong + 1
        end if
      end do
    end do
  end subroutine

  subroutine check_source_intact()
    integer(c_int64_t) :: li
    do li = shape_a(1) + 1, lda ! the padding rows
      if (any(a(li, :) /= -7d0)) wrong = wrong + 1
    end do
  end subroutine
end program fortran_reblock
