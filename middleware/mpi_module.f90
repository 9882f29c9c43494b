! The Fortran module `mpi` of bxisim (`use mpi`): mpif.h's constants and declarations, the MPI subroutines'
! names without explicit interfaces (as mpif.h: the bindings check the calls, not the compiler; named so that
! `use mpi, only: MPI_INIT` finds them), and MPI_SIZEOF, which only a module can offer (a generic over every type
! and rank of its argument). bxif90 links its code (libbxisim-mpi-module.a).
module mpi
  implicit none
  include 'mpif.h'
  include 'mpi_module_procedures.h'
contains
  ! MPI-3.1 17.1.9: the size in bytes of one element of x, of any intrinsic type and rank.
  subroutine MPI_SIZEOF(x, size, ierror)
    class(*), intent(in) :: x(..)
    integer, intent(out) :: size, ierror
    size = int(storage_size(x) / 8)
    ierror = MPI_SUCCESS
  end subroutine MPI_SIZEOF
end module mpi
