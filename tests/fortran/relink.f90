! A ScaLAPACK program as users write them: BLACS grids, DESCINIT, padded local arrays,
! sub-matrices, and PDGEMR2D / PDTRMR2D / PZGEMR2D / PIGEMR2D between two grids of a union
! context. It knows nothing of redist: the tests build it twice, once linked with ScaLAPACK
! alone and once with libredist_scalapack before ScaLAPACK, and compare what both print.
! Every process prints one line per call: a checksum of its whole local B, padding included.
program relink
  implicit none
  integer :: iam, nprocs, ctxt_all, ctxt_a, ctxt_b, rows, cols, r, c, info, k
  integer :: desca(9), descb(9), m, n, mb, nb, mb2, nb2, ia, ja, ib, jb
  integer :: lra, lca, lrb, lcb, llda, lldb
  double precision, allocatable :: a(:), b(:)
  complex(kind(1d0)), allocatable :: za(:), zb(:)
  integer, allocatable :: ia_(:), ib_(:)
  integer, external :: numroc
  character :: uplo, diag

  call blacs_pinfo(iam, nprocs)
  rows = 1
  do k = 1, nprocs
    if (k * k <= nprocs .and. mod(nprocs, k) == 0) rows = k
  end do
  cols = nprocs / rows
  call blacs_get(-1, 0, ctxt_all)
  call blacs_gridinit(ctxt_all, 'R', 1, nprocs)
  call blacs_get(-1, 0, ctxt_a)
  call blacs_gridinit(ctxt_a, 'R', rows, cols)
  call blacs_get(-1, 0, ctxt_b)
  call blacs_gridinit(ctxt_b, 'C', cols, rows)

  do k = 1, 6
    m = 37 + 5 * k
    n = 29 + 3 * k
    mb = 1 + mod(3 * k, 7)
    nb = 2 + mod(k, 5)
    mb2 = 3 + mod(2 * k, 6)
    nb2 = 1 + mod(5 * k, 4)
    ia = 1 + mod(k, 4)
    ja = 2 + mod(2 * k, 3)
    ib = 1 + mod(3 * k, 5)
    jb = 1 + mod(k, 2)
    ! A is (m + ia + 3) x (n + ja + 1) on ctxt_a, B (m + ib + 2) x (n + jb + 4) on ctxt_b
    call blacs_gridinfo(ctxt_a, rows, cols, r, c)
    lra = numroc(m + ia + 3, mb, r, 0, rows)
    lca = numroc(n + ja + 1, nb, c, mod(k, cols), cols)
    llda = max(1, lra) + mod(k, 3)
    call descinit(desca, m + ia + 3, n + ja + 1, mb, nb, 0, mod(k, cols), ctxt_a, llda, info)
    call blacs_gridinfo(ctxt_b, rows, cols, r, c)
    lrb = numroc(m + ib + 2, mb2, r, mod(k, rows), rows)
    lcb = numroc(n + jb + 4, nb2, c, 0, cols)
    lldb = max(1, lrb) + mod(k + 1, 3)
    call descinit(descb, m + ib + 2, n + jb + 4, mb2, nb2, mod(k, rows), 0, ctxt_b, lldb, info)

    allocate (a(llda * max(1, lca)), b(lldb * max(1, lcb)))
    call fill(a, size(a), 1)
    call fill(b, size(b), 2)
    call pdgemr2d(m, n, a, ia, ja, desca, b, ib, jb, descb, ctxt_all)
    call report('pdgemr2d', k, b, size(b))

    uplo = merge('U', 'L', mod(k, 2) == 0)
    diag = merge('N', 'U', mod(k, 3) == 0)
    call fill(b, size(b), 3)
    call pdtrmr2d(uplo, diag, m, n, a, ia, ja, desca, b, ib, jb, descb, ctxt_all)
    call report('pdtrmr2d', k, b, size(b))

    allocate (za(size(a)), zb(size(b)), ia_(size(a)), ib_(size(b)))
    za = cmplx(a, -2 * a, kind(1d0))
    zb = (0d0, 0d0)
    call pzgemr2d(m, n, za, ia, ja, desca, zb, ib, jb, descb, ctxt_all)
    call report('pzgemr2d', k, real(zb) + 3 * aimag(zb), size(zb))
    ia_ = int(a)
    ib_ = -1
    call pigemr2d(m, n, ia_, ia, ja, desca, ib_, ib, jb, descb, ctxt_all)
    call report('pigemr2d', k, dble(ib_), size(ib_))
    deallocate (a, b, za, zb, ia_, ib_)
  end do

  call blacs_gridexit(ctxt_a)
  call blacs_gridexit(ctxt_b)
  call blacs_gridexit(ctxt_all)
  call blacs_exit(0)

contains

  subroutine fill(x, len, salt)
    integer, intent(in) :: len, salt
    double precision, intent(out) :: x(len)
    integer :: i
    do i = 1, len
      x(i) = dble(mod(i * 131 + salt * 1009 + iam * 7919, 100003))
    end do
  end subroutine fill

  subroutine report(what, k, x, len)
    character(*), intent(in) :: what
    integer, intent(in) :: k, len
    double precision, intent(in) :: x(len)
    integer(kind=8) :: h
    integer :: i
    h = 0
    do i = 1, len
      h = mod(h * 31 + int(x(i), 8) + 1000003_8, 2147483647_8)
    end do
    write (*, '(a, " case ", i0, " process ", i0, ": ", i0, " elements, checksum ", i0)') &
      what, k, iam, len, h
  end subroutine report
end program relink
