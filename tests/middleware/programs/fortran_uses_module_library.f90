! Sets and sums fortran_module_library.f90's per-process value: 1000 + rank on each rank.
program fortran_uses_module_library
  use module_library
  implicit none
  integer :: ierr, r, n, s
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, r, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, n, ierr)
  call lib_set()
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  s = lib_sum()
  write(*,'(a,i0,a,i0,a)') 'myval=', myval, ' sum=', s, ' ok=1'
  call MPI_Finalize(ierr)
end program fortran_uses_module_library
