// The file reads and writes the MPI library makes for the program (MPI-IO: OMPIO's pwrite, preadv, fsync...) are the
// program's computation, as its own read and write calls are.
//
// By default the library's share of a burst is not simulated (Rank::enter_library, docs/running.md "Computation"):
// its network path runs cold here and would be charged many times its cost on a node. Its file system calls are
// another matter: the kernel's work on the file is what storage costs, and nothing else models it, so MPI_File_write_at
// of 16 MiB took 4 us against 3 to 4 ms for the same pwrite from the program. Inside the library, each of these calls
// counts in the program's share. And read() of descriptor 0 by a rank other than 0 is end-of-file: the standard input
// is rank 0's (StandardInput.hpp).

#include "RealFunctions.hpp"
#include "SimulatorCall.hpp"
#include "runtime/launch/Rank.hpp"

#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>

namespace
{
/** `call` (a file system call) in the program's share of the burst when the running thread is inside the library. */
template <class Call>
auto as_program_code(Call call)
{
  bxisim::runtime::Rank* rank = bxisim::os::running_rank();
  if (rank == nullptr || not rank->in_library())
    return call();
  rank->leave_library();
  auto result = call();
  int error   = errno;
  rank->enter_library();
  errno = error;
  return result;
}
} // namespace

extern "C" {

ssize_t read(int descriptor, void* buffer, size_t count)
{
  bxisim::runtime::Rank* rank = bxisim::os::running_rank();
  if (descriptor == STDIN_FILENO && rank != nullptr && not rank->process_state().reads_stdin)
    return 0; // the standard input is rank 0's (StandardInput.hpp)
  return as_program_code([&] { return BXISIM_REAL(read)(descriptor, buffer, count); });
}

ssize_t write(int descriptor, const void* buffer, size_t count)
{
  return as_program_code([&] { return BXISIM_REAL(write)(descriptor, buffer, count); });
}

ssize_t pread(int descriptor, void* buffer, size_t count, off_t offset)
{
  return as_program_code([&] { return BXISIM_REAL(pread)(descriptor, buffer, count, offset); });
}

ssize_t pwrite(int descriptor, const void* buffer, size_t count, off_t offset)
{
  return as_program_code([&] { return BXISIM_REAL(pwrite)(descriptor, buffer, count, offset); });
}

ssize_t readv(int descriptor, const struct iovec* vector, int count)
{
  return as_program_code([&] { return BXISIM_REAL(readv)(descriptor, vector, count); });
}

ssize_t writev(int descriptor, const struct iovec* vector, int count)
{
  return as_program_code([&] { return BXISIM_REAL(writev)(descriptor, vector, count); });
}

ssize_t preadv(int descriptor, const struct iovec* vector, int count, off_t offset)
{
  return as_program_code([&] { return BXISIM_REAL(preadv)(descriptor, vector, count, offset); });
}

ssize_t pwritev(int descriptor, const struct iovec* vector, int count, off_t offset)
{
  return as_program_code([&] { return BXISIM_REAL(pwritev)(descriptor, vector, count, offset); });
}

int fsync(int descriptor)
{
  return as_program_code([&] { return BXISIM_REAL(fsync)(descriptor); });
}

int fdatasync(int descriptor)
{
  return as_program_code([&] { return BXISIM_REAL(fdatasync)(descriptor); });
}

// Programs built with -D_FILE_OFFSET_BITS=64 call the 64-bit names, the same functions on 64-bit Linux (glibc makes
// them aliases, as here).
ssize_t pread64(int descriptor, void* buffer, size_t count, off_t offset) __attribute__((alias("pread")));
ssize_t pwrite64(int descriptor, const void* buffer, size_t count, off_t offset) __attribute__((alias("pwrite")));
ssize_t preadv64(int descriptor, const struct iovec* vector, int count, off_t offset) __attribute__((alias("preadv")));
ssize_t pwritev64(int descriptor, const struct iovec* vector, int count, off_t offset)
    __attribute__((alias("pwritev")));

// The forms -D_FORTIFY_SOURCE makes of reads into a buffer of known size with a count that is not a constant.

ssize_t __read_chk(int descriptor, void* buffer, size_t count, size_t buffer_size)
{
  if (count > buffer_size)
    __chk_fail();
  return read(descriptor, buffer, count);
}

ssize_t __pread_chk(int descriptor, void* buffer, size_t count, off_t offset, size_t buffer_size)
{
  if (count > buffer_size)
    __chk_fail();
  return pread(descriptor, buffer, count, offset);
}

ssize_t __pread64_chk(int descriptor, void* buffer, size_t count, off_t offset, size_t buffer_size)
    __attribute__((alias("__pread_chk")));

} // extern "C"
