! Boxes, replicated grid dimensions and partial sums from Fortran (`use redist`): a 13 x 11
! matrix whose element (i, j) (0-based global indices) is 1 + i + 100 j moves
!   1. from boxes (a pr x pc partition with uneven cuts) to a layout replicated over the
!      process rows (first = REDIST_REPLICATED along dimension 1, cyclic(2) columns);
!   2. from a layout replicated over the process columns to overlapping boxes (each rank's
!      band of rows widened by two rows each side; the last rank's box empty);
!   3. as partial sums (reduce = MPI_SUM): from a layout replicated over every process, where
!      process r holds (r + 1) times the value, to case 1's replicated layout;
!   4. as partial sums from boxes held by pairs of processes (ranks 2q and 2q + 1 hold the
!      same box: replicas) to case 1's boxes;
! and checks every element of every destination array, on every replica, against the
! global index (partial sums: the sum over the element's source holders). Refusals, the
! same code on every process: boxes of the wrong shape (the module's ARG), a destination
! element no source box holds (ARG), MPI_LAND on doubles (ARG).
!
!   mpirun -np 4 build/tests/fortran/fortran_layout_kinds
program layout_kinds
  use, intrinsic :: iso_c_binding
  use mpi_f08
  use redist
  implicit none
  integer(c_int64_t), parameter :: n1 = 13, n2 = 11, nb = 2
  !> What a destination element holds, in units of the value: it once; the partial sums of
  !> every process (r + 1 on process r); those of the processes whose pair box holds it.
  integer, parameter :: ONCE = 0, ALL_HOLDERS = 1, PAIR_HOLDERS = 2
  integer :: me, np, pr, pc, k, wrong, checked, sums(2)
  integer(c_int64_t), allocatable :: part_lo(:, :), part_hi(:, :), pair_lo(:, :), pair_hi(:, :)
  type(redist_layout) :: parts, rows_replicated

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, me)
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  pr = 1
  do k = 1, np
    if (k * k <= np .and. mod(np, k) == 0) pr = k
  end do
  pc = np / pr
  wrong = 0
  checked = 0

  call partition(part_lo, part_hi)
  call check(redist_layout_create_boxes([n1, n2], part_lo, part_hi, parts), 'boxes')
  ! Rows replicated over the np / pc' process rows, columns cyclic(2) over pc' = pr columns.
  call check(redist_layout_create([n1, n2], [1_c_int64_t, nb], [pc, pr], rows_replicated, &
                                  first=[REDIST_REPLICATED, mod(1, pr)]), 'replicated layout')

  call boxes_to_replicated()
  call replicated_to_overlapping_boxes()
  call partial_from_replicas()
  call partial_from_box_pairs()
  call refusals()

  call check(redist_layout_free(parts), 'free')
  call check(redist_layout_free(rows_replicated), 'free')
  call MPI_Allreduce([checked, wrong], sums, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (me == 0) print '(a, i0, a, i0, a)', 'fortran_layout_kinds: ', sums(1), &
    ' elements checked, ', sums(2), ' wrong'
  call MPI_Finalize()
  if (sums(2) /= 0) error stop 1

contains

  pure double precision function value_of(i, j)
    integer(c_int64_t), intent(in) :: i, j
    value_of = dble(1 + i + 100 * j)
  end function

  subroutine check(rc, what)
    integer(c_int), intent(in) :: rc
    character(*), intent(in) :: what
    if (rc == REDIST_SUCCESS) return
    print '(a, i0, 5a)', 'rank ', me, ': ', what, ': ', redist_strerror(rc), ' ('// &
      redist_last_error_detail()//')'
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end subroutine

  !> One element compared: got against want at global (i, j), for `what`.
  subroutine compare(got, want, i, j, what)
    double precision, intent(in) :: got, want
    integer(c_int64_t), intent(in) :: i, j
    character(*), intent(in) :: what
    checked = checked + 1
    if (got == want) return
    wrong = wrong + 1
    if (wrong <= 10) print '(a, i0, 3a, i0, a, i0, a, f0.1, a, f0.1)', 'rank ', me, ': ', &
      what, ' (', i, ', ', j, '): ', got, ', want ', want
  end subroutine

  !> Cut c of n into p parts, unevenly (the first parts smaller): c = 0 .. p.
  pure integer(c_int64_t) function cut(c, p, n)
    integer, intent(in) :: c, p
    integer(c_int64_t), intent(in) :: n
    cut = (int(c, c_int64_t) * c * n) / (int(p, c_int64_t) * p)
  end function

  !> Case 1's boxes: rank a * pc + b holds rows [cut(a), cut(a + 1)) of pr bands and columns
  !> [cut(b), cut(b + 1)) of pc bands.
  subroutine partition(lo, hi)
    integer(c_int64_t), allocatable, intent(out) :: lo(:, :), hi(:, :)
    integer :: r
    allocate (lo(2, np), hi(2, np))
    do r = 0, np - 1
      lo(:, r + 1) = [cut(r / pc, pr, n1), cut(mod(r, pc), pc, n2)]
      hi(:, r + 1) = [cut(r / pc + 1, pr, n1), cut(mod(r, pc) + 1, pc, n2)]
    end do
  end subroutine

  !> This process's box of lo, hi (0-based corners), filled with scale times the values.
  subroutine fill_box(lo, hi, scale, a)
    integer(c_int64_t), intent(in) :: lo(:, :), hi(:, :)
    double precision, intent(in) :: scale
    double precision, allocatable, intent(out) :: a(:, :)
    integer(c_int64_t) :: i, j
    if (me >= size(lo, 2)) then
      allocate (a(0, 0))
      return
    end if
    allocate (a(lo(1, me + 1):max(hi(1, me + 1), lo(1, me + 1)) - 1, &
                lo(2, me + 1):max(hi(2, me + 1), lo(2, me + 1)) - 1))
    do j = lbound(a, 2), ubound(a, 2)
      do i = lbound(a, 1), ubound(a, 1)
        a(i, j) = scale * value_of(i, j)
      end do
    end do
  end subroutine

  !> Every element of this process's box of lo, hi against weight_of(w, i, j) * the values.
  subroutine check_box(lo, hi, b, what, w)
    integer(c_int64_t), intent(in) :: lo(:, :), hi(:, :)
    double precision, intent(in) :: b(lo(1, me + 1):, lo(2, me + 1):)
    character(*), intent(in) :: what
    integer, intent(in) :: w
    integer(c_int64_t) :: i, j
    do j = lbound(b, 2), ubound(b, 2)
      do i = lbound(b, 1), ubound(b, 1)
        call compare(b(i, j), weight_of(w, i, j) * value_of(i, j), i, j, what)
      end do
    end do
  end subroutine

  !> Global index of local index l along a grid dimension: cyclic(blk) over p processes
  !> from `first`, this process at coordinate c; REDIST_REPLICATED: l itself.
  pure integer(c_int64_t) function global_of(l, blk, p, first, c)
    integer(c_int64_t), intent(in) :: l, blk
    integer, intent(in) :: p, first, c
    if (first == REDIST_REPLICATED) then
      global_of = l
    else
      global_of = (l / blk * p + mod(c - first + p, p)) * blk + mod(l, blk)
    end if
  end function

  !> This process's local array of a 2-D grid layout (grid g, blocks blk, first f; default
  !> ranks, positions row-major), filled with scale times the values (fill) or checked
  !> against weight_of(w, i, j) times them.
  subroutine walk_grid(layout, g, blk, f, a, fill, scale, what, w)
    type(redist_layout), intent(in) :: layout
    integer, intent(in) :: g(2), f(2), w
    integer(c_int64_t), intent(in) :: blk(2)
    double precision, allocatable, intent(inout) :: a(:, :)
    logical, intent(in) :: fill
    double precision, intent(in) :: scale
    character(*), intent(in) :: what
    integer(c_int64_t) :: shp(2), li, lj, i, j
    call check(redist_layout_local_shape(layout, me, shp), 'local shape')
    if (fill) then
      allocate (a(shp(1), shp(2)))
      a = -1d0
    end if
    do lj = 0, shp(2) - 1
      j = global_of(lj, blk(2), g(2), f(2), mod(me, g(2)))
      do li = 0, shp(1) - 1
        i = global_of(li, blk(1), g(1), f(1), me / g(2))
        if (fill) then
          a(li + 1, lj + 1) = scale * value_of(i, j)
        else
          call compare(a(li + 1, lj + 1), weight_of(w, i, j) * value_of(i, j), i, j, what)
        end if
      end do
    end do
  end subroutine

  !> What element (i, j) of a destination holds in units of its value (ONCE, ...).
  double precision function weight_of(w, i, j)
    integer, intent(in) :: w
    integer(c_int64_t), intent(in) :: i, j
    integer :: r
    select case (w)
    case (ALL_HOLDERS)
      weight_of = dble(np * (np + 1) / 2)
    case (PAIR_HOLDERS)
      weight_of = 0
      do r = 0, np - 1
        if (all([i, j] >= pair_lo(:, r + 1)) .and. all([i, j] < pair_hi(:, r + 1))) &
          weight_of = weight_of + (r + 1)
      end do
    case default
      weight_of = 1
    end select
  end function

  subroutine run(src, dst, a, b, what, reduce)
    type(redist_layout), intent(in) :: src, dst
    double precision, intent(in) :: a(:, :)
    double precision, intent(inout) :: b(:, :)
    character(*), intent(in) :: what
    type(MPI_Op), intent(in), optional :: reduce
    type(redist_plan) :: plan
    call check(redist_plan_create(src, dst, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, plan, &
                                  reduce=reduce), what//': plan')
    call check(redist_execute(plan, a, b), what//': execute')
    call check(redist_plan_free(plan), what//': free')
  end subroutine

  subroutine boxes_to_replicated()
    double precision, allocatable :: a(:, :), b(:, :)
    call fill_box(part_lo, part_hi, 1d0, a)
    call walk_grid(rows_replicated, [pc, pr], [1_c_int64_t, nb], [REDIST_REPLICATED, mod(1, pr)], &
                   b, .true., 0d0, '', ONCE)
    call run(parts, rows_replicated, a, b, 'boxes to replicated rows')
    call walk_grid(rows_replicated, [pc, pr], [1_c_int64_t, nb], [REDIST_REPLICATED, mod(1, pr)], &
                   b, .false., 0d0, 'boxes to replicated rows', ONCE)
  end subroutine

  subroutine replicated_to_overlapping_boxes()
    double precision, allocatable :: a(:, :), b(:, :)
    integer(c_int64_t), allocatable :: lo(:, :), hi(:, :)
    type(redist_layout) :: src, dst
    integer :: r
    ! Rows cyclic(3) over pr process rows, columns replicated over the pc process columns.
    call check(redist_layout_create([n1, n2], [3_c_int64_t, 1_c_int64_t], [pr, pc], src, &
                                    first=[pr - 1, REDIST_REPLICATED]), 'columns replicated')
    call walk_grid(src, [pr, pc], [3_c_int64_t, 1_c_int64_t], [pr - 1, REDIST_REPLICATED], a, &
                   .true., 1d0, '', ONCE)
    allocate (lo(2, np), hi(2, np))
    do r = 0, np - 1 ! band r of np, two rows wider each side; all columns
      lo(:, r + 1) = [max(0_c_int64_t, cut(r, np, n1) - 2), 0_c_int64_t]
      hi(:, r + 1) = [min(n1, cut(r + 1, np, n1) + 2), n2]
    end do
    if (np >= 2) hi(1, np) = lo(1, np) ! the last box empty
    call check(redist_layout_create_boxes([n1, n2], lo, hi, dst), 'overlapping boxes')
    call fill_box(lo, hi, -1d0, b)
    call run(src, dst, a, b, 'replicated columns to overlapping boxes')
    if (me < np) call check_box(lo, hi, b, 'replicated columns to overlapping boxes', ONCE)
    call check(redist_layout_free(src), 'free')
    call check(redist_layout_free(dst), 'free')
  end subroutine

  subroutine partial_from_replicas()
    double precision, allocatable :: a(:, :), b(:, :)
    type(redist_layout) :: src
    call check(redist_layout_create([n1, n2], [1_c_int64_t, 1_c_int64_t], [pr, pc], src, &
                                    first=[REDIST_REPLICATED, REDIST_REPLICATED]), 'replicated')
    call walk_grid(src, [pr, pc], [1_c_int64_t, 1_c_int64_t], &
                   [REDIST_REPLICATED, REDIST_REPLICATED], a, .true., dble(me + 1), '', ONCE)
    call walk_grid(rows_replicated, [pc, pr], [1_c_int64_t, nb], [REDIST_REPLICATED, mod(1, pr)], &
                   b, .true., 0d0, '', ONCE)
    call run(src, rows_replicated, a, b, 'partial sums of replicas', MPI_SUM)
    call walk_grid(rows_replicated, [pc, pr], [1_c_int64_t, nb], [REDIST_REPLICATED, mod(1, pr)], &
                   b, .false., 0d0, 'partial sums of replicas', ALL_HOLDERS)
    call check(redist_layout_free(src), 'free')
  end subroutine

  subroutine partial_from_box_pairs()
    double precision, allocatable :: a(:, :), b(:, :)
    type(redist_layout) :: src
    integer :: r, q, pairs
    pairs = (np + 1) / 2
    allocate (pair_lo(2, np), pair_hi(2, np))
    do r = 0, np - 1 ! pair q = r / 2: columns band q of `pairs`, all rows
      q = r / 2
      pair_lo(:, r + 1) = [0_c_int64_t, cut(q, pairs, n2)]
      pair_hi(:, r + 1) = [n1, cut(q + 1, pairs, n2)]
    end do
    call check(redist_layout_create_boxes([n1, n2], pair_lo, pair_hi, src), 'box pairs')
    call fill_box(pair_lo, pair_hi, dble(me + 1), a)
    call fill_box(part_lo, part_hi, -1d0, b)
    call run(src, parts, a, b, 'partial sums of box pairs', MPI_SUM)
    call check_box(part_lo, part_hi, b, 'partial sums of box pairs', PAIR_HOLDERS)
    call check(redist_layout_free(src), 'free')
  end subroutine

  !> Refused calls: the code expected on this process, then agreed (every process alike).
  subroutine refused(rc, want, what)
    integer(c_int), intent(in) :: rc, want
    character(*), intent(in) :: what
    integer :: ok, all_ok
    ok = merge(1, 0, rc == want)
    call MPI_Allreduce(ok, all_ok, 1, MPI_INTEGER, MPI_MIN, MPI_COMM_WORLD)
    checked = checked + 1
    if (all_ok == 1) return
    wrong = wrong + 1
    if (rc /= want) print '(a, i0, 5a)', 'rank ', me, ': ', what, ': got ', redist_strerror(rc), &
      ', want '//redist_strerror(want)
  end subroutine

  subroutine refusals()
    type(redist_layout) :: lay, short_src
    type(redist_plan) :: plan
    integer(c_int64_t) :: lo(2, 1), hi(2, 1)
    ! The module's own check: corners of 3 dimensions for a 2-D extent.
    call refused(redist_layout_create_boxes([n1, n2], reshape([0_c_int64_t, 0_c_int64_t, &
                 0_c_int64_t], [3, 1]), reshape([n1, n2, 1_c_int64_t], [3, 1]), lay), &
                 REDIST_ERR_ARG, 'boxes of 3 dimensions for 2')
    ! One box that leaves the last row out: that row of the destination has no source.
    lo(:, 1) = [0_c_int64_t, 0_c_int64_t]
    hi(:, 1) = [n1 - 1, n2]
    call check(redist_layout_create_boxes([n1, n2], lo, hi, short_src), 'short boxes')
    call refused(redist_plan_create(short_src, parts, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, plan), &
                 REDIST_ERR_ARG, 'a destination element no source box holds')
    ! A logical operation on doubles, which MPI does not define.
    call refused(redist_plan_create(parts, rows_replicated, MPI_DOUBLE_PRECISION, &
                                    MPI_COMM_WORLD, plan, reduce=MPI_LAND), &
                 REDIST_ERR_ARG, 'MPI_LAND on doubles')
    call check(redist_layout_free(short_src), 'free')
  end subroutine
end program
