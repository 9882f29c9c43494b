! A Fortran MPI program calling a routine of its own library whose name starts like an MPI binding
! (mpi_my_helper_, from libown_mpi_routine.so): bxisim run must not take it for an MPI function it lacks.
program own_mpi_routine
  use mpi
  implicit none
  integer :: ierr
  call MPI_Init(ierr)
  call mpi_my_helper()
  call MPI_Finalize(ierr)
end program own_mpi_routine
