! Prints its own backtrace (gfortran's BACKTRACE, through libgfortran's libbacktrace, which reads the symbols of the
! files it finds loaded: the rank's copies of the program and of libgfortran), as a runtime error's report does.
module traced
  implicit none
contains
  subroutine innermost_routine()
    call backtrace()
  end subroutine innermost_routine
end module traced

program fortran_backtrace
  use mpi
  use traced
  implicit none
  integer :: ierr
  call MPI_Init(ierr)
  call innermost_routine()
  write (*, '(a)') 'ok=1'
  call MPI_Finalize(ierr)
end program fortran_backtrace
