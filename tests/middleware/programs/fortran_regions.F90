! A region of a Fortran program (bxisim_regionf.h): an allreduce and an MPI_COMM_IDUP in region 'exchange', at the
! run's level unless re-mapped (bxisim run --region exchange=LEVEL), the duplicate used after the region.
! Preprocessed: other MPIs have no regions.
program fortran_regions
  use mpi
  implicit none
#ifdef BXISIM_MPI
  include 'bxisim_regionf.h'
#endif
  integer :: rank, total, twin, request, twin_total, ierr
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
#ifdef BXISIM_MPI
  call bxisim_region_begin('exchange', BXISIM_LEVEL_DEFAULT)
#endif
  call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Comm_idup(MPI_COMM_WORLD, twin, request, ierr)
  call MPI_Wait(request, MPI_STATUS_IGNORE, ierr)
#ifdef BXISIM_MPI
  call bxisim_region_end('exchange')
#endif
  call MPI_Allreduce(rank, twin_total, 1, MPI_INTEGER, MPI_SUM, twin, ierr)
  call MPI_Comm_free(twin, ierr)
  write (*, '(a,i0,a,i0)') 'region_sum=', total, ' twin_sum=', twin_total
  call MPI_Finalize(ierr)
end program fortran_regions
