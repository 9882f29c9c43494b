! MPI-1 routines MPI-3.0 removed, in a legacy fixed-form program, as OpenMPI 4.1's mpif.h still offers them:
! MPI_TYPE_STRUCT, _HVECTOR, _HINDEXED (INTEGER displacements), _EXTENT, _LB, _UB, MPI_ERRHANDLER_CREATE, _SET,
! _GET and MPI_ADDRESS (MPI_ERR_ARG under MPI_ERRORS_RETURN when the address does not fit in an INTEGER), and
! MPI_LB/MPI_UB markers in MPI_TYPE_STRUCT. Rank 0 sends rank 1 integers through the types; each rank prints
! key=value lines.
      program old
      include 'mpif.h'
      integer ierr, rank, strtype, hvec, hind, handler, got
      integer types(2), lens(2), disp(2), ext, lb, ub, addr
      integer hdisp(2), bounded, btypes(3), blens(3), bdisp(3)
      integer buffer(16)
      double precision values(4)
      common /record/ values, buffer
      external report
      call MPI_INIT(ierr)
      call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
      types(1) = MPI_INTEGER
      types(2) = MPI_DOUBLE_PRECISION
      lens(1) = 1
      lens(2) = 1
      disp(1) = 0
      disp(2) = 8
      call MPI_TYPE_STRUCT(2, lens, disp, types, strtype, ierr)
      call MPI_TYPE_COMMIT(strtype, ierr)
      call MPI_TYPE_EXTENT(strtype, ext, ierr)
      call MPI_TYPE_LB(strtype, lb, ierr)
      call MPI_TYPE_UB(strtype, ub, ierr)
      write (*, '(A,I0,A,I0,A,I0)') 'extent=', ext, ' lb=', lb,
     &  ' ub=', ub
      call MPI_TYPE_HVECTOR(2, 1, 16, MPI_INTEGER, hvec, ierr)
      call MPI_TYPE_COMMIT(hvec, ierr)
      hdisp(1) = 0
      hdisp(2) = 12
      call MPI_TYPE_HINDEXED(2, lens, hdisp, MPI_INTEGER, hind, ierr)
      call MPI_TYPE_COMMIT(hind, ierr)
      call MPI_TYPE_EXTENT(hvec, ext, ierr)
      call MPI_TYPE_UB(hind, ub, ierr)
      write (*, '(A,I0,A,I0)') 'hvector_extent=', ext,
     &  ' hindexed_ub=', ub
      btypes(1) = MPI_LB
      btypes(2) = MPI_INTEGER
      btypes(3) = MPI_UB
      blens = 1
      bdisp(1) = 0
      bdisp(2) = 4
      bdisp(3) = 32
      call MPI_TYPE_STRUCT(3, blens, bdisp, btypes, bounded, ierr)
      call MPI_TYPE_COMMIT(bounded, ierr)
      call MPI_TYPE_EXTENT(bounded, ext, ierr)
      call MPI_TYPE_LB(bounded, lb, ierr)
      write (*, '(A,I0,A,I0)') 'bounded_extent=', ext,
     &  ' bounded_lb=', lb
      buffer = 0
      values = 0
      if (rank .eq. 0) then
        buffer(1) = 42
        buffer(5) = 7
        values(1) = 2.5d0
        call MPI_SEND(buffer, 1, hvec, 1, 1, MPI_COMM_WORLD, ierr)
        buffer(2) = 11
        buffer(10) = 13
        call MPI_SEND(buffer, 2, bounded, 1, 2, MPI_COMM_WORLD, ierr)
      else if (rank .eq. 1) then
        call MPI_RECV(buffer, 1, hvec, 0, 1, MPI_COMM_WORLD,
     &    MPI_STATUS_IGNORE, ierr)
        write (*, '(A,I0,A,I0)') 'hvector_first=', buffer(1),
     &    ' hvector_second=', buffer(5)
        call MPI_RECV(buffer, 2, bounded, 0, 2, MPI_COMM_WORLD,
     &    MPI_STATUS_IGNORE, ierr)
        write (*, '(A,I0,A,I0)') 'bounded_first=', buffer(2),
     &    ' bounded_second=', buffer(10)
      end if
      call MPI_ERRHANDLER_CREATE(report, handler, ierr)
      call MPI_ERRHANDLER_SET(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
      call MPI_ERRHANDLER_GET(MPI_COMM_WORLD, got, ierr)
      write (*, '(A,L1)') 'errors_return=', got .eq. MPI_ERRORS_RETURN
      call MPI_ADDRESS(buffer, addr, ierr)
      write (*, '(A,L1)') 'address_answered=',
     &  ierr .eq. MPI_SUCCESS .or. ierr .eq. MPI_ERR_ARG
      call MPI_ERRHANDLER_FREE(handler, ierr)
      call MPI_TYPE_FREE(strtype, ierr)
      call MPI_TYPE_FREE(hvec, ierr)
      call MPI_TYPE_FREE(hind, ierr)
      call MPI_TYPE_FREE(bounded, ierr)
      call MPI_FINALIZE(ierr)
      end

      subroutine report(comm, code)
      integer comm, code
      print *, 'handler called with ', code
      end
