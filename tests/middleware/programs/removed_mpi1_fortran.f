! Calls MPI_TYPE_STRUCT, an MPI-1 function MPI-3.0 removed, which SMPI's Fortran bindings still define:
! bxisim run must refuse it, naming the replacement, rather than let it reach SMPI's.
      program old
      include 'mpif.h'
      integer ierr, t, types(1), lens(1), disp(1)
      call MPI_INIT(ierr)
      types(1) = MPI_INTEGER
      lens(1) = 1
      disp(1) = 0
      call MPI_TYPE_STRUCT(1, lens, disp, types, t, ierr)
      call MPI_FINALIZE(ierr)
      end
