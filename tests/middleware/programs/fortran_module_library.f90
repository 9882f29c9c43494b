! A shared library built with bxif90 whose module keeps a value per process and calls MPI through the Fortran
! bindings (mpi_comm_rank_): each rank needs its own copy, as each process has (tests/middleware/fortran_test.cpp).
module module_library
  implicit none
  include 'mpif.h'
  integer :: myval = -1
contains
  subroutine lib_set()
    integer :: ierr, r
    call MPI_Comm_rank(MPI_COMM_WORLD, r, ierr)
    myval = 1000 + r
  end subroutine
  integer function lib_sum()
    integer :: ierr
    call MPI_Allreduce(myval, lib_sum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  end function
end module module_library
