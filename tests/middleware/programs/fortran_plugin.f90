! A Fortran library a program opens with dlopen (tests/middleware/fortran_test.cpp): it calls MPI, so each rank opens
! its own copy, and writes through libgfortran's units, whose names in the rank's copies are the rank's libgfortran's.
subroutine plugin_report() bind(C, name="plugin_report")
  use mpi
  implicit none
  integer :: rank, ierr
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  write (*, '(a,i0)') 'plugin_rank=', rank
end subroutine plugin_report
