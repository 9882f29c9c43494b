! A region of a Fortran program (bxisim_regionf.h): an allreduce in region 'exchange', at the run's level
! unless re-mapped (bxisim run --region exchange=LEVEL). Preprocessed: other MPIs have no regions.
program fortran_regions
  use mpi
  implicit none
#ifdef BXISIM_MPI
  include 'bxisim_regionf.h'
#endif
  integer :: rank, total, ierr
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
#ifdef BXISIM_MPI
  call bxisim_region_begin('exchange', BXISIM_LEVEL_DEFAULT)
#endif
  call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
#ifdef BXISIM_MPI
  call bxisim_region_end('exchange')
#endif
  write (*, '(a,i0)') 'region_sum=', total
  call MPI_Finalize(ierr)
end program fortran_regions
