! The Fortran module `mpi` of bxisim (`use mpi`): mpif.h's constants and declarations. Without explicit
! interfaces, as mpif.h: the calls are checked by the bindings (FortranSupport.hpp), not by the compiler.
module mpi
  implicit none
  include 'mpif.h'
end module mpi
