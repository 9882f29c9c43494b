! Opens the Fortran library given as its argument with dlopen and calls its plugin_report (fortran_plugin.f90).
program fortran_opens_plugin
  use mpi
  use iso_c_binding
  implicit none
  interface
    function dlopen(file, mode) bind(C, name="dlopen")
      import :: c_ptr, c_char, c_int
      character(kind=c_char), dimension(*), intent(in) :: file
      integer(c_int), value :: mode
      type(c_ptr) :: dlopen
    end function dlopen
    function dlsym(handle, name) bind(C, name="dlsym")
      import :: c_ptr, c_funptr, c_char
      type(c_ptr), value :: handle
      character(kind=c_char), dimension(*), intent(in) :: name
      type(c_funptr) :: dlsym
    end function dlsym
    subroutine report() bind(C)
    end subroutine report
  end interface
  integer(c_int), parameter :: rtld_now = 2
  character(len=1024) :: path
  type(c_ptr) :: handle
  type(c_funptr) :: entry
  procedure(report), pointer :: plugin_report
  integer :: ierr

  call MPI_Init(ierr)
  call get_command_argument(1, path)
  handle = dlopen(trim(path)//c_null_char, rtld_now)
  if (.not. c_associated(handle)) then
    write (*, '(a)') 'bad_dlopen=1'
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  entry = dlsym(handle, 'plugin_report'//c_null_char)
  call c_f_procpointer(entry, plugin_report)
  call plugin_report()
  write (*, '(a)') 'ok=1'
  call MPI_Finalize(ierr)
end program fortran_opens_plugin
