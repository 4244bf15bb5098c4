!> The Fortran interface of redist (`use redist`): layouts (block-cyclic, replicated grid
!> dimensions, boxes), windows and padded arrays, plans (partial sums too), execute,
!> start/test/wait, statistics and errors, on ISO_C_BINDING, with mpi_f08 communicators,
!> datatypes and operations and buffers of any type and rank (type(*), dimension(..)).
!>
!> Everything mirrors the C API (include/redist.h; docs/api.md), with these Fortran forms:
!> - functions return the C API's code (REDIST_SUCCESS = 0 or a negative REDIST_ERR_*);
!> - arrays of extents, blocks, grid sizes are Fortran arrays in the C API's dimension order
!>   (dimension 1 is C's dimension 0); ranks, first coordinates and box corners are 0-based,
!>   as in MPI; first = REDIST_REPLICATED replicates a dimension over its grid dimension;
!> - buffers must be contiguous (REDIST_ERR_ARG otherwise: a copy would break start/wait);
!>   a process that holds nothing omits the buffer;
!> - a Fortran matrix a(m, n) is column-major: order = REDIST_COL_MAJOR;
!> - device memory (memory = REDIST_MEMORY_CUDA or _AUTO in redist_plan_create): pass the
!>   arrays' device addresses to redist_execute_ptr / redist_start_ptr (CUDA Fortran:
!>   transfer(c_devloc(a), c_null_ptr)), as the C API takes them.
module redist
  use, intrinsic :: iso_c_binding
  use mpi_f08, only: MPI_Comm, MPI_Datatype, MPI_Op, MPI_OP_NULL
  implicit none
  private

  integer(c_int), parameter, public :: REDIST_SUCCESS = 0, REDIST_ERR_ARG = -1, &
    REDIST_ERR_NOMEM = -2, REDIST_ERR_MPI = -3, REDIST_ERR_NOT_APPLICABLE = -4, &
    REDIST_ERR_UNKNOWN_ALGORITHM = -5, REDIST_ERR_MISMATCH = -6, REDIST_ERR_UNSUPPORTED = -7, &
    REDIST_ERR_BUSY = -8, REDIST_ERR_STATE = -9
  integer(c_int), parameter, public :: REDIST_ROW_MAJOR = 0, REDIST_COL_MAJOR = 1
  integer(c_int), parameter, public :: REDIST_TRANSPORT_AUTO = 0, REDIST_TRANSPORT_PACK = 1, &
    REDIST_TRANSPORT_DATATYPE = 2
  integer(c_int), parameter, public :: REDIST_MEMORY_HOST = 0, REDIST_MEMORY_CUDA = 1, &
    REDIST_MEMORY_AUTO = 2
  !> first(k) = REDIST_REPLICATED in redist_layout_create (ScaLAPACK's RSRC/CSRC = -1): every
  !> process along grid dimension k holds the whole extent of dimension k.
  integer(c_int), parameter, public :: REDIST_REPLICATED = -1

  !> Opaque handles (the C pointers).
  type, public :: redist_layout
    type(c_ptr) :: p = c_null_ptr
  end type
  type, public :: redist_plan
    type(c_ptr) :: p = c_null_ptr
  end type

  !> redist_stats of the C API, field for field.
  type, bind(C), public :: redist_stats
    integer(c_int) :: steps
    integer(c_int64_t) :: messages_sent, bytes_sent
    real(c_double) :: predicted_seconds
    integer(c_int64_t) :: messages_received, bytes_received, bytes_copied
    integer(c_int64_t) :: max_messages_per_rank, max_bytes_per_rank, runs_per_period
    integer(c_int) :: transport, shared_memory, bounded
    integer(c_int64_t) :: buffer_bytes
    integer(c_int) :: threads, cores
    integer(c_int) :: nodes, ranks_per_node
    integer(c_int64_t) :: messages_off_node, bytes_off_node
    integer(c_int64_t) :: messages_device_ipc, bytes_device_ipc, messages_device_mpi
  end type

  public :: redist_layout_create, redist_layout_create_boxes, redist_layout_create_window, &
    redist_layout_free, &
    redist_layout_local_shape, redist_layout_local_size, redist_plan_create, redist_execute, &
    redist_start, redist_test, redist_wait, redist_plan_stats, redist_plan_algorithm, &
    redist_execute_ptr, redist_start_ptr, &
    redist_plan_free, redist_strerror, redist_last_error_detail

  interface
    integer(c_int) function c_layout_create(ndims, extent, block, grid, first, ranks, order, &
                                            layout) bind(C, name="redist_layout_create")
      import :: c_int, c_int64_t, c_ptr
      integer(c_int), value :: ndims, order
      integer(c_int64_t), intent(in) :: extent(*), block(*)
      integer(c_int), intent(in) :: grid(*)
      type(c_ptr), value :: first, ranks
      type(c_ptr), intent(out) :: layout
    end function
    integer(c_int) function c_layout_create_boxes(ndims, extent, nboxes, lower, upper, order, &
                                                  layout) bind(C, name="redist_layout_create_boxes")
      import :: c_int, c_int64_t, c_ptr
      integer(c_int), value :: ndims, nboxes, order
      integer(c_int64_t), intent(in) :: extent(*), lower(*), upper(*)
      type(c_ptr), intent(out) :: layout
    end function
    integer(c_int) function c_layout_create_window(parent, offset, count, ld, window) &
      bind(C, name="redist_layout_create_window")
      import :: c_int, c_ptr
      type(c_ptr), value :: parent, offset, count, ld
      type(c_ptr), intent(out) :: window
    end function
    integer(c_int) function c_layout_free(layout) bind(C, name="redist_layout_free")
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: layout
    end function
    integer(c_int) function c_layout_ndims(layout) bind(C, name="redist_layout_ndims")
      import :: c_int, c_ptr
      type(c_ptr), value :: layout
    end function
    integer(c_int) function c_layout_local_shape(layout, rank, shape) &
      bind(C, name="redist_layout_local_shape")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: layout
      integer(c_int), value :: rank
      integer(c_int64_t), intent(out) :: shape(*)
    end function
    integer(c_int) function c_layout_local_size(layout, rank, count) &
      bind(C, name="redist_layout_local_size")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: layout
      integer(c_int), value :: rank
      integer(c_int64_t), intent(out) :: count
    end function
    integer(c_int) function c_plan_create(src, dst, datatype, comm, algorithm, max_buffer, &
                                          memory, reduce, plan) &
      bind(C, name="redist_f_plan_create_reduce")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: src, dst, algorithm
      integer(c_int), value :: datatype, comm
      integer(c_int64_t), value :: max_buffer
      integer(c_int), value :: memory, reduce
      type(c_ptr), intent(out) :: plan
    end function
    integer(c_int) function c_execute(plan, src, dst) bind(C, name="redist_execute")
      import :: c_int, c_ptr
      type(c_ptr), value :: plan, src, dst
    end function
    integer(c_int) function c_start(plan, src, dst) bind(C, name="redist_start")
      import :: c_int, c_ptr
      type(c_ptr), value :: plan, src, dst
    end function
    integer(c_int) function c_test(plan, done) bind(C, name="redist_test")
      import :: c_int, c_ptr
      type(c_ptr), value :: plan
      integer(c_int), intent(out) :: done
    end function
    integer(c_int) function c_wait(plan) bind(C, name="redist_wait")
      import :: c_int, c_ptr
      type(c_ptr), value :: plan
    end function
    integer(c_int) function c_plan_stats(plan, stats) bind(C, name="redist_plan_stats")
      import :: c_int, c_ptr, redist_stats
      type(c_ptr), value :: plan
      type(redist_stats), intent(out) :: stats
    end function
    type(c_ptr) function c_plan_algorithm(plan) bind(C, name="redist_plan_algorithm")
      import :: c_ptr
      type(c_ptr), value :: plan
    end function
    integer(c_int) function c_plan_free(plan) bind(C, name="redist_plan_free")
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: plan
    end function
    type(c_ptr) function c_strerror(err) bind(C, name="redist_strerror")
      import :: c_int, c_ptr
      integer(c_int), value :: err
    end function
    !> The C library's marker for a non-contiguous buffer (src/api/fortran.c).
    type(c_ptr) function c_not_contiguous() bind(C, name="redist_f_not_contiguous")
      import :: c_ptr
    end function
    type(c_ptr) function c_last_error_detail() bind(C, name="redist_last_error_detail")
      import :: c_ptr
    end function
    integer(c_size_t) function c_strlen(s) bind(C, name="strlen")
      import :: c_size_t, c_ptr
      type(c_ptr), value :: s
    end function
  end interface

contains

  !> A C string as a Fortran string ('' for NULL).
  function from_c(s) result(f)
    type(c_ptr), intent(in) :: s
    character(:), allocatable :: f
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n
    if (.not. c_associated(s)) then
      f = ''
      return
    end if
    n = int(c_strlen(s))
    call c_f_pointer(s, chars, [n])
    allocate (character(n) :: f)
    do i = 1, n
      f(i:i) = chars(i)
    end do
  end function

  !> The address of a contiguous buffer, C's NULL when absent, and the C library's marker
  !> for a non-contiguous one: every process still makes the collective call, and the C side
  !> returns REDIST_ERR_ARG on every process (agreed like any buffer error).
  function address(x) result(p)
    type(*), dimension(..), intent(in), target, optional :: x
    type(c_ptr) :: p
    p = c_null_ptr
    if (.not. present(x)) return
    if (is_contiguous(x)) then
      p = c_loc(x)
    else
      p = c_not_contiguous()
    end if
  end function

  !> redist_layout_create: extent, block, grid of size ndims; first (0-based grid
  !> coordinates of global block 0) and ranks (0-based, grid positions row-major) optional;
  !> order defaults to REDIST_COL_MAJOR (Fortran's storage).
  integer(c_int) function redist_layout_create(extent, block, grid, layout, first, ranks, order) &
    result(err)
    integer(c_int64_t), intent(in) :: extent(:), block(:)
    integer(c_int), intent(in) :: grid(:)
    type(redist_layout), intent(out) :: layout
    integer(c_int), intent(in), optional :: first(:), ranks(:)
    integer(c_int), intent(in), optional :: order
    integer(c_int), allocatable, target :: f(:), r(:) ! contiguous copies for C
    type(c_ptr) :: pf, pr
    integer(c_int) :: o
    pf = c_null_ptr
    pr = c_null_ptr
    o = REDIST_COL_MAJOR
    err = REDIST_ERR_ARG
    if (size(block) /= size(extent) .or. size(grid) /= size(extent)) return
    if (present(first)) then
      if (size(first) /= size(extent)) return
      f = first
      pf = c_loc(f)
    end if
    if (present(ranks)) then
      if (size(ranks) /= product(grid)) return
      r = ranks
      pr = c_loc(r)
    end if
    if (present(order)) o = order
    err = c_layout_create(int(size(extent), c_int), extent, block, grid, pf, pr, o, layout%p)
  end function

  !> redist_layout_create_boxes: box r (rank r's, 0-based) holds [lower(k, r+1), upper(k, r+1))
  !> along each dimension k (0-based corners, upper exclusive), stored densely in `order`
  !> (default REDIST_COL_MAJOR); lower and upper are (ndims, nboxes) with ndims = size(extent).
  !> An empty box (upper <= lower along some k) holds nothing; ranks >= nboxes hold nothing;
  !> identical boxes are replicas.
  integer(c_int) function redist_layout_create_boxes(extent, lower, upper, layout, order) &
    result(err)
    integer(c_int64_t), intent(in) :: extent(:), lower(:, :), upper(:, :)
    type(redist_layout), intent(out) :: layout
    integer(c_int), intent(in), optional :: order
    integer(c_int) :: o
    o = REDIST_COL_MAJOR
    err = REDIST_ERR_ARG
    if (size(lower, 1) /= size(extent) .or. any(shape(upper) /= shape(lower))) return
    if (present(order)) o = order
    err = c_layout_create_boxes(int(size(extent), c_int), extent, int(size(lower, 2), c_int), &
                                lower, upper, o, layout%p)
  end function

  !> The address of a contiguous copy of v, checked against ndims; ok = .false. on a bad size.
  function copy_of(v, keep, ndims, ok) result(p)
    integer(c_int64_t), intent(in), optional :: v(:)
    integer(c_int64_t), allocatable, target, intent(inout) :: keep(:)
    integer(c_int), intent(in) :: ndims
    logical, intent(out) :: ok
    type(c_ptr) :: p
    p = c_null_ptr
    ok = .true.
    if (.not. present(v)) return
    ok = size(v) == ndims
    if (.not. ok) return
    keep = v
    p = c_loc(keep)
  end function

  !> redist_layout_create_window: offset, count, ld (this process's leading dimensions) each
  !> optional, of size ndims (0-based offsets, as in the C API).
  integer(c_int) function redist_layout_create_window(parent, window, offset, count, ld) &
    result(err)
    type(redist_layout), intent(in) :: parent
    type(redist_layout), intent(out) :: window
    integer(c_int64_t), intent(in), optional :: offset(:), count(:), ld(:)
    integer(c_int64_t), allocatable, target :: ko(:), kc(:), kl(:)
    type(c_ptr) :: po, pc, pl
    integer(c_int) :: nd
    logical :: ok1, ok2, ok3
    err = REDIST_ERR_ARG
    if (.not. c_associated(parent%p)) return
    nd = c_layout_ndims(parent%p)
    po = copy_of(offset, ko, nd, ok1)
    pc = copy_of(count, kc, nd, ok2)
    pl = copy_of(ld, kl, nd, ok3)
    if (ok1 .and. ok2 .and. ok3) err = c_layout_create_window(parent%p, po, pc, pl, window%p)
  end function

  integer(c_int) function redist_layout_free(layout) result(err)
    type(redist_layout), intent(inout) :: layout
    err = c_layout_free(layout%p)
  end function

  !> The extents of rank's local array (shape has size ndims).
  integer(c_int) function redist_layout_local_shape(layout, rank, shape) result(err)
    type(redist_layout), intent(in) :: layout
    integer, intent(in) :: rank
    integer(c_int64_t), intent(out) :: shape(:)
    err = REDIST_ERR_ARG
    if (.not. c_associated(layout%p)) return
    if (size(shape) /= c_layout_ndims(layout%p)) return
    err = c_layout_local_shape(layout%p, int(rank, c_int), shape)
  end function

  integer(c_int) function redist_layout_local_size(layout, rank, count) result(err)
    type(redist_layout), intent(in) :: layout
    integer, intent(in) :: rank
    integer(c_int64_t), intent(out) :: count
    err = c_layout_local_size(layout%p, int(rank, c_int), count)
  end function

  !> redist_plan_create over comm for elements of datatype; algorithm (default 'auto'),
  !> max_buffer_bytes (bounded mode; default 0), memory (REDIST_MEMORY_HOST, the default,
  !> _CUDA or _AUTO) and reduce (options.reduce: an MPI operation such as MPI_SUM, with which
  !> every source holder of an element holds a partial value and every destination holder
  !> receives their reduction; default none) are the options this interface exposes.
  integer(c_int) function redist_plan_create(src, dst, datatype, comm, plan, algorithm, &
                                             max_buffer_bytes, memory, reduce) result(err)
    type(redist_layout), intent(in) :: src, dst
    type(MPI_Datatype), intent(in) :: datatype
    type(MPI_Comm), intent(in) :: comm
    type(redist_plan), intent(out) :: plan
    character(*), intent(in), optional :: algorithm
    integer(c_int64_t), intent(in), optional :: max_buffer_bytes
    integer(c_int), intent(in), optional :: memory
    type(MPI_Op), intent(in), optional :: reduce
    character(kind=c_char), allocatable, target :: name(:)
    type(c_ptr) :: a
    integer(c_int64_t) :: bound
    integer(c_int) :: kind, op
    integer :: i
    a = c_null_ptr
    bound = 0
    kind = REDIST_MEMORY_HOST
    op = int(MPI_OP_NULL%MPI_VAL, c_int)
    if (present(max_buffer_bytes)) bound = max_buffer_bytes
    if (present(memory)) kind = memory
    if (present(reduce)) op = int(reduce%MPI_VAL, c_int)
    if (present(algorithm)) then
      allocate (name(len_trim(algorithm) + 1))
      do i = 1, len_trim(algorithm)
        name(i) = algorithm(i:i)
      end do
      name(len_trim(algorithm) + 1) = c_null_char
      a = c_loc(name)
    end if
    err = c_plan_create(src%p, dst%p, int(datatype%MPI_VAL, c_int), int(comm%MPI_VAL, c_int), &
                        a, bound, kind, op, plan%p)
  end function

  !> redist_execute on addresses (c_null_ptr for a process that holds nothing): device
  !> memory's arrays, which Fortran cannot pass as host arrays.
  integer(c_int) function redist_execute_ptr(plan, src, dst) result(err)
    type(redist_plan), intent(in) :: plan
    type(c_ptr), intent(in) :: src, dst
    err = c_execute(plan%p, src, dst)
  end function

  !> redist_start on addresses: the arrays must stay in place until the execution completes.
  integer(c_int) function redist_start_ptr(plan, src, dst) result(err)
    type(redist_plan), intent(in) :: plan
    type(c_ptr), intent(in) :: src, dst
    err = c_start(plan%p, src, dst)
  end function

  !> redist_execute: src and dst contiguous arrays of any type and rank, or absent.
  integer(c_int) function redist_execute(plan, src, dst) result(err)
    type(redist_plan), intent(in) :: plan
    type(*), dimension(..), intent(in), target, optional :: src
    type(*), dimension(..), intent(inout), target, optional :: dst
    err = c_execute(plan%p, address(src), address(dst))
  end function

  !> redist_start: the arrays must stay in place until the execution completes.
  integer(c_int) function redist_start(plan, src, dst) result(err)
    type(redist_plan), intent(in) :: plan
    type(*), dimension(..), intent(in), target, asynchronous, optional :: src
    type(*), dimension(..), intent(inout), target, asynchronous, optional :: dst
    err = c_start(plan%p, address(src), address(dst))
  end function

  integer(c_int) function redist_test(plan, done) result(err)
    type(redist_plan), intent(in) :: plan
    logical, intent(out) :: done
    integer(c_int) :: d
    err = c_test(plan%p, d)
    done = d /= 0
  end function

  integer(c_int) function redist_wait(plan) result(err)
    type(redist_plan), intent(in) :: plan
    err = c_wait(plan%p)
  end function

  integer(c_int) function redist_plan_stats(plan, stats) result(err)
    type(redist_plan), intent(in) :: plan
    type(redist_stats), intent(out) :: stats
    err = c_plan_stats(plan%p, stats)
  end function

  function redist_plan_algorithm(plan) result(name)
    type(redist_plan), intent(in) :: plan
    character(:), allocatable :: name
    name = from_c(c_plan_algorithm(plan%p))
  end function

  integer(c_int) function redist_plan_free(plan) result(err)
    type(redist_plan), intent(inout) :: plan
    err = c_plan_free(plan%p)
  end function

  function redist_strerror(err) result(msg)
    integer(c_int), intent(in) :: err
    character(:), allocatable :: msg
    msg = from_c(c_strerror(err))
  end function

  function redist_last_error_detail() result(msg)
    character(:), allocatable :: msg
    msg = from_c(c_last_error_detail())
  end function
end module redist
