! bxisim_regionf.h: regions of a Fortran program (bxif90), each simulated at an accuracy level of its own,
! as bxisim/region.h for C (docs/mpi.md):
!   call bxisim_region_begin('solve', BXISIM_LEVEL_CYCLE)  ...  call bxisim_region_end('solve')
! Regions nest; every rank crosses each boundary. `bxisim run --region solve=smpi` re-maps a region.
! Other MPIs have no such calls: guard them in a preprocessed source (.F90) with #ifdef BXISIM_MPI, which
! bxif90 defines.
      integer BXISIM_LEVEL_DEFAULT, BXISIM_LEVEL_SMPI
      integer BXISIM_LEVEL_MESSAGE, BXISIM_LEVEL_CYCLE
      parameter (BXISIM_LEVEL_DEFAULT=0, BXISIM_LEVEL_SMPI=1)
      parameter (BXISIM_LEVEL_MESSAGE=2, BXISIM_LEVEL_CYCLE=3)
      external bxisim_region_begin, bxisim_region_end
