! `use mpi, only:` naming the MPI subroutines it calls, as programs that keep their namespace clean do (OpenCoarrays'
! initialize_mpi test): bxisim's module names them (tests/middleware/fortran_test.cpp).
program use_only
  use mpi, only: MPI_INIT, MPI_COMM_SIZE, MPI_COMM_RANK, MPI_COMM_WORLD, MPI_FINALIZE, MPI_ALLREDUCE, MPI_INTEGER, MPI_SUM
  implicit none
  integer :: ierr, n, r, s
  call MPI_INIT(ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, n, ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, r, ierr)
  call MPI_ALLREDUCE(r, s, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  print '(a,i0,a,i0,a)', 'size=', n, ' sum=', s, ' ok=1'
  call MPI_FINALIZE(ierr)
end program
