! MPI from Fortran (bxif90, `use mpi`), one mode per argument. Each rank prints key=value words; the
! tests check them. A failed check prints "bad_<what>=1".
!   p2p <bytes>   the ping-pong of mpi_suite.c's p2p mode (the same calls, so the same simulated time),
!                 then non-blocking requests, MPI_ANY_SOURCE with a probe and statuses, Sendrecv
!   collectives   allreduce (DOUBLE PRECISION, MPI_IN_PLACE, LOGICAL), a Fortran user operation, MINLOC
!                 over MPI_2INTEGER, bcast, gather, alltoall
!   mixed         handles across a C part (fortran_c_side.c: MPI_Comm_f2c, MPI_Type_c2f, MPI_Comm_c2f)
!   print_sum     prints an allreduce's result computed inside the print statement (each rank's libgfortran holds its
!                 own unit lock meanwhile)
!   units         each rank opens unit 10 on a file of its own, writes after a barrier, reads it back: units are
!                 each rank's (MUMPS's save and restore)
!   info          info keys and values, their blanks, a missing key
!   comms         split, dup with a Fortran attribute copy procedure, names (strings both ways), MPI_TAG_UB,
!                 a vector datatype, a Fortran error handler, error strings, the processor name
module checks
  implicit none
  integer :: failures = 0
contains
  subroutine check(what, condition)
    character(len=*), intent(in) :: what
    logical, intent(in) :: condition
    if (.not. condition) then
      write (*, '(3a)') 'bad_', what, '=1'
      failures = failures + 1
    end if
  end subroutine check
end module checks

module handlers
  implicit none
  integer :: handler_calls = 0, handler_code = 0, user_op_calls = 0, user_op_datatype = 0
contains
  subroutine add(invec, inoutvec, length, datatype)
    integer :: length, datatype
    integer :: invec(length), inoutvec(length)
    integer :: i
    user_op_calls = user_op_calls + 1
    user_op_datatype = datatype
    do i = 1, length
      inoutvec(i) = inoutvec(i) + invec(i)
    end do
  end subroutine add

  subroutine count_errors(comm, code)
    integer :: comm, code
    handler_calls = handler_calls + 1
    handler_code = code
  end subroutine count_errors

  subroutine copy_plus_one(oldcomm, keyval, extra_state, value_in, value_out, flag, ierror)
    use mpi
    integer :: oldcomm, keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra_state, value_in, value_out
    logical :: flag
    value_out = value_in + 1 + extra_state
    flag = .true.
    ierror = MPI_SUCCESS
  end subroutine copy_plus_one
end module handlers

program fortran_suite
  use mpi
  use checks
  implicit none
  integer :: rank, size, ierr
  character(len=32) :: mode, argument
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  call get_command_argument(1, mode)
  select case (trim(mode))
  case ('p2p')
    call get_command_argument(2, argument)
    call p2p(argument)
  case ('collectives')
    call collectives()
  case ('comms')
    call comms()
  case ('mixed')
    call mixed()
  case ('info')
    call info()
  case ('print_sum')
    write (*, '(a,i0)') 'sum=', total_of(rank)
  case ('units')
    call units()
  case default
    call check('mode', .false.)
  end select
  write (*, '(a,i0)') 'ok=', merge(1, 0, failures == 0)
  call MPI_Finalize(ierr)

contains

  subroutine units()
    character(len=64) :: file_name, line
    integer :: lines, unit_status
    call get_command_argument(2, file_name)
    write (file_name, '(a,a,i0,a)') trim(file_name), '/unit_', rank, '.txt'
    open (unit=10, file=file_name, status='replace')
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    write (10, '(a,i0)') 'written_by_rank_', rank
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    close (10)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    open (unit=10, file=file_name, status='old')
    lines = 0
    do
      read (10, '(a)', iostat=unit_status) line
      if (unit_status /= 0) exit
      lines = lines + 1
      write (*, '(a,i0,a,a)') 'line', lines, '=', trim(line)
    end do
    close (10, status='delete')
    write (*, '(a,i0)') 'lines=', lines
    call check('unit_lines', lines == 1)
  end subroutine units

  integer function total_of(value)
    integer, intent(in) :: value
    call MPI_Allreduce(value, total_of, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  end function total_of

  subroutine mixed()
    integer, external :: c_comm_size, c_pair_type, c_world
    integer :: half, pair, received(2), status(MPI_STATUS_SIZE)
    call check('world', c_world() == MPI_COMM_WORLD)
    call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, half, ierr)
    write (*, '(a,i0)') 'c_half_size=', c_comm_size(half)
    pair = c_pair_type()
    call MPI_Sendrecv([rank, -rank], 1, pair, mod(rank + 1, size), 4, received, 1, pair, &
                      mod(rank - 1 + size, size), 4, MPI_COMM_WORLD, status, ierr)
    write (*, '(a,i0,a,i0)') 'pair_1=', received(1), ' pair_2=', received(2)
    call MPI_Type_free(pair, ierr)
    call MPI_Comm_free(half, ierr)
  end subroutine mixed

  subroutine info()
    integer :: info_handle, length
    logical :: flag
    character(len=32) :: value
    call MPI_Info_create(info_handle, ierr)
    call MPI_Info_set(info_handle, ' lead', ' val ', ierr)
    call MPI_Info_get(info_handle, 'lead', 32, value, flag, ierr)
    write (*, '(a,l1,3a)') 'found=', flag, ' value=', trim(value), '.'
    value = 'untouched'
    call MPI_Info_get(info_handle, 'absent', 32, value, flag, ierr)
    write (*, '(a,l1,3a)') 'absent_found=', flag, ' absent_value=', trim(value), '.'
    call MPI_Info_get_valuelen(info_handle, 'lead', length, flag, ierr)
    write (*, '(a,i0)') 'valuelen=', length
    call MPI_Info_free(info_handle, ierr)
    call check('info_null', info_handle == MPI_INFO_NULL)
  end subroutine info

  subroutine p2p(argument)
    character(len=*), intent(in) :: argument
    integer :: bytes, peer, i, count, status(MPI_STATUS_SIZE), requests(2), value, k, seen
    character, allocatable :: out(:), in(:)
    double precision :: start, elapsed
    read (argument, *) bytes
    allocate (out(bytes), in(bytes))
    do i = 1, bytes
      out(i) = achar(mod((i - 1) * 7 + rank, 128))
    end do
    peer = ieor(rank, 1)
    if (peer < size) then
      start = MPI_Wtime()
      if (mod(rank, 2) == 0) then
        call MPI_Send(out, bytes, MPI_BYTE, peer, 5, MPI_COMM_WORLD, ierr)
        call MPI_Recv(in, bytes, MPI_BYTE, peer, 5, MPI_COMM_WORLD, status, ierr)
      else
        call MPI_Recv(in, bytes, MPI_BYTE, peer, 5, MPI_COMM_WORLD, status, ierr)
        call MPI_Send(out, bytes, MPI_BYTE, peer, 5, MPI_COMM_WORLD, ierr)
      end if
      ! read before the WRITE: libgfortran, shared by the ranks, holds its unit's lock for the whole statement,
      ! and a rank that writes meanwhile waits for it in simulated time (docs/mpi.md)
      elapsed = MPI_Wtime() - start
      write (*, '(a,f0.9)') 'pingpong_time=', elapsed
      call MPI_Get_count(status, MPI_BYTE, count, ierr)
      call check('count', count == bytes)
      call check('source', status(MPI_SOURCE) == peer .and. status(MPI_TAG) == 5)
      call check('data', in(bytes) == achar(mod((bytes - 1) * 7 + peer, 128)))
      call MPI_Irecv(in, bytes, MPI_BYTE, peer, 6, MPI_COMM_WORLD, requests(1), ierr)
      call MPI_Isend(out, bytes, MPI_BYTE, peer, 6, MPI_COMM_WORLD, requests(2), ierr)
      call check('request_made', requests(1) /= MPI_REQUEST_NULL .and. requests(2) /= MPI_REQUEST_NULL)
      call MPI_Waitall(2, requests, MPI_STATUSES_IGNORE, ierr)
      call check('request_null', requests(1) == MPI_REQUEST_NULL .and. requests(2) == MPI_REQUEST_NULL)
      call check('nb_data', in(1) == achar(mod(peer, 128)))
      ! a single-completion call leaves MPI_ERROR as the program set it (MPI-3.1 3.2.5)
      status(MPI_ERROR) = MPI_ERR_DIMS
      if (mod(rank, 2) == 0) then
        call MPI_Send(out, 1, MPI_BYTE, peer, 8, MPI_COMM_WORLD, ierr)
      else
        call MPI_Recv(in, 1, MPI_BYTE, peer, 8, MPI_COMM_WORLD, status, ierr)
        call check('status_error_kept', status(MPI_ERROR) == MPI_ERR_DIMS)
      end if
      ! Waitany's index counts from 1 in Fortran
      call MPI_Irecv(in, bytes, MPI_BYTE, peer, 7, MPI_COMM_WORLD, requests(1), ierr)
      call MPI_Isend(out, bytes, MPI_BYTE, peer, 7, MPI_COMM_WORLD, requests(2), ierr)
      seen = 0
      do k = 1, 2
        call MPI_Waitany(2, requests, i, status, ierr)
        seen = seen + i
      end do
      write (*, '(a,i0)') 'waitany_indices=', seen
    end if
    ! any source, any tag: everyone sends its rank to 0 with tag 100 + rank
    if (rank == 0) then
      seen = 0
      do k = 1, size - 1
        call MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, status, ierr)
        call MPI_Get_count(status, MPI_INTEGER, count, ierr)
        call check('probe_count', count == 1)
        call MPI_Recv(value, 1, MPI_INTEGER, status(MPI_SOURCE), MPI_ANY_TAG, MPI_COMM_WORLD, status, ierr)
        call check('any_tag', status(MPI_TAG) == 100 + value .and. status(MPI_SOURCE) == value)
        seen = seen + value
      end do
      write (*, '(a,i0)') 'any_source_sum=', seen
    else
      call MPI_Send(rank, 1, MPI_INTEGER, 0, 100 + rank, MPI_COMM_WORLD, ierr)
    end if
    ! a ring with Sendrecv, the status ignored (after the probes, which take any tag)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call MPI_Sendrecv(rank, 1, MPI_INTEGER, mod(rank + 1, size), 9, value, 1, MPI_INTEGER, &
                      mod(rank - 1 + size, size), 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    write (*, '(a,i0)') 'ring_from=', value
  end subroutine p2p

  subroutine collectives()
    use handlers
    double precision :: x, total
    integer :: n, op, i, pair(2), best(2), root_value, all(64), scattered(64)
    logical :: mine, every
    x = dble(rank) + 0.5d0
    call MPI_Allreduce(x, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    write (*, '(a,f0.1)') 'double_sum=', total
    n = rank + 1
    call MPI_Allreduce(MPI_IN_PLACE, n, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
    write (*, '(a,i0)') 'in_place_max=', n
    mine = rank /= 1
    call MPI_Allreduce(mine, every, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD, ierr)
    write (*, '(a,l1)') 'logical_and=', every
    call MPI_Op_create(add, .true., op, ierr)
    n = rank + 1
    call MPI_Allreduce(n, i, 1, MPI_INTEGER, op, MPI_COMM_WORLD, ierr)
    write (*, '(a,i0,a,l1)') 'user_op=', i, ' user_op_called=', user_op_calls > 0 .or. rank /= 0
    ! the operation is given the datatype the call named
    if (user_op_calls > 0) call check('user_op_datatype', user_op_datatype == MPI_INTEGER)
    call MPI_Op_free(op, ierr)
    call check('op_null', op == MPI_OP_NULL)
    pair = [mod(rank * 3, size), rank]
    call MPI_Allreduce(pair, best, 1, MPI_2INTEGER, MPI_MAXLOC, MPI_COMM_WORLD, ierr)
    write (*, '(a,i0,a,i0)') 'maxloc_value=', best(1), ' maxloc_rank=', best(2)
    root_value = 0
    if (rank == size - 1) root_value = 42
    call MPI_Bcast(root_value, 1, MPI_INTEGER, size - 1, MPI_COMM_WORLD, ierr)
    write (*, '(a,i0)') 'bcast=', root_value
    call MPI_Gather(rank * rank, 1, MPI_INTEGER, all, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    if (rank == 0) write (*, '(a,i0)') 'gather_sum=', sum(all(1:size))
    do i = 1, size
      all(i) = 100 * rank + (i - 1)
    end do
    call MPI_Alltoall(all, 1, MPI_INTEGER, scattered, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    do i = 1, size
      call check('alltoall', scattered(i) == 100 * (i - 1) + rank)
    end do
  end subroutine collectives

  subroutine comms()
    use handlers
    integer :: half, dup, keyval, length, handler, vector, status(MPI_STATUS_SIZE), i, half_size
    integer(kind=MPI_ADDRESS_KIND) :: value, extra
    logical :: flag
    character(len=MPI_MAX_OBJECT_NAME) :: name
    character(len=MPI_MAX_ERROR_STRING) :: text
    character(len=MPI_MAX_PROCESSOR_NAME) :: host
    integer :: matrix(4, 3), column(3), k
    call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), -rank, half, ierr)
    call MPI_Comm_size(half, half_size, ierr)
    call MPI_Comm_rank(half, i, ierr)
    write (*, '(a,i0,a,i0)') 'half_size=', half_size, ' half_rank=', i
    call MPI_Comm_set_name(half, 'the half  ', ierr)
    call MPI_Comm_get_name(half, name, length, ierr)
    write (*, '(3a,i0)') 'name=', trim(name), ' name_length=', length
    call check('name_padded', name(length + 1:) == ' ')
    call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, value, flag, ierr)
    call check('tag_ub', flag .and. value >= 32767)
    extra = 10
    call MPI_Comm_create_keyval(copy_plus_one, MPI_COMM_NULL_DELETE_FN, keyval, extra, ierr)
    value = 5
    call MPI_Comm_set_attr(half, keyval, value, ierr)
    call MPI_Comm_dup(half, dup, ierr)
    call MPI_Comm_get_attr(dup, keyval, value, flag, ierr)
    write (*, '(a,i0,a,l1)') 'copied_attribute=', value, ' copied_flag=', flag
    call MPI_Comm_free(dup, ierr)
    call check('comm_null', dup == MPI_COMM_NULL)
    call MPI_Comm_free_keyval(keyval, ierr)
    call MPI_Comm_free(half, ierr)
    ! the second column of a 4x3 matrix (column-major): 3 blocks of 1 element, stride 4... as a vector of rows
    call MPI_Type_vector(3, 1, 4, MPI_INTEGER, vector, ierr)
    call MPI_Type_commit(vector, ierr)
    do i = 1, 3
      matrix(:, i) = [(4 * (i - 1) + k + 100 * rank, k = 1, 4)]
    end do
    call MPI_Sendrecv(matrix(2, 1), 1, vector, mod(rank + 1, size), 3, column, 3, MPI_INTEGER, &
                      mod(rank - 1 + size, size), 3, MPI_COMM_WORLD, status, ierr)
    write (*, '(a,i0,a,i0,a,i0)') 'row_1=', column(1), ' row_2=', column(2), ' row_3=', column(3)
    call MPI_Type_free(vector, ierr)
    call MPI_Comm_create_errhandler(count_errors, handler, ierr)
    call MPI_Comm_set_errhandler(MPI_COMM_WORLD, handler, ierr)
    call MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER, ierr)
    write (*, '(a,i0,a,i0)') 'handler_calls=', handler_calls, ' handler_code=', handler_code
    call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, ierr)
    call MPI_Errhandler_free(handler, ierr)
    call MPI_Error_string(MPI_ERR_TRUNCATE, text, length, ierr)
    call check('error_string', length > 0 .and. len_trim(text) == length)
    call MPI_Get_processor_name(host, length, ierr)
    call check('processor_name', length > 0 .and. len_trim(host) == length)
    call MPI_Sizeof(text, length, ierr)
    call MPI_Sizeof([0.0d0, 1.0d0], i, ierr)
    call MPI_Sizeof(int(1, kind=2), k, ierr)
    write (*, '(a,i0,a,i0,a,i0)') 'sizeof_character=', length, ' sizeof_double=', i, ' sizeof_int2=', k
  end subroutine comms
end program fortran_suite
