// POSIX asynchronous I/O, done at once. OpenMPI's nonblocking MPI-IO (MPI_File_iwrite_at, ..., through
// ompio's fbtl/posix) posts aio_write and then polls aio_error from its progress loop. glibc runs the
// request on a thread of its own, in wall time, invisible to the simulation: a rank waiting in MPI_Wait
// polls Portals, finds nothing, and blocks for a Portals event that never comes (the run ended in a
// reported deadlock); and with polls that sleep instead, how long the rank waited in simulated time would
// depend on the host's disk. So each request is carried out when it is posted, with pread/pwrite/fsync
// (POSIX lets a request be complete when its call returns): aio_error then says done at the first poll,
// deterministically. Requests that ask for a completion notification (a signal or a thread) go to glibc.

#include "ProcessState.hpp"
#include "RealFunctions.hpp"
#include "SimulatorCall.hpp"
#include "runtime/launch/Rank.hpp"

#include <aio.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace
{
/** Carries out `request` now, as glibc's thread would, and records its outcome where aio_error reads it. */
int run_now(aiocb* request, int operation)
{
  if (bxisim::runtime::Rank* rank = bxisim::os::running_rank())
    rank->process_state().aio_requests++;
  ssize_t done = 0;
  switch (operation) {
  case LIO_READ:
    done = pread(request->aio_fildes, const_cast<void*>(request->aio_buf), request->aio_nbytes, request->aio_offset);
    break;
  case LIO_WRITE:
    done = pwrite(request->aio_fildes, const_cast<const void*>(request->aio_buf), request->aio_nbytes,
                  request->aio_offset);
    break;
  case O_SYNC:
    done = fsync(request->aio_fildes);
    break;
  case O_DSYNC:
    done = fdatasync(request->aio_fildes);
    break;
  default:
    errno = EINVAL;
    return -1;
  }
  request->__error_code   = done < 0 ? errno : 0;
  request->__return_value = done;
  return 0;
}

bool notifies(const aiocb* request)
{
  return request->aio_sigevent.sigev_notify != SIGEV_NONE;
}
} // namespace

extern "C" {

int aio_read(aiocb* request)
{
  return notifies(request) ? BXISIM_REAL(aio_read)(request) : run_now(request, LIO_READ);
}

int aio_write(aiocb* request)
{
  return notifies(request) ? BXISIM_REAL(aio_write)(request) : run_now(request, LIO_WRITE);
}

int aio_fsync(int operation, aiocb* request)
{
  return notifies(request) ? BXISIM_REAL(aio_fsync)(operation, request) : run_now(request, operation);
}

int aio_error(const aiocb* request)
{
  return request->__error_code; // glibc's own reads the same field (EINPROGRESS while its thread works)
}

ssize_t aio_return(aiocb* request)
{
  return request->__return_value;
}

int aio_suspend(const aiocb* const requests[], int count, const timespec* timeout)
{
  for (int i = 0; i < count; ++i)
    if (requests[i] != nullptr && requests[i]->__error_code != EINPROGRESS)
      return 0;
  return BXISIM_REAL(aio_suspend)(requests, count, timeout); // only glibc's own (notifying) ones can be pending
}

int aio_cancel(int descriptor, aiocb* request)
{
  if (request != nullptr && request->__error_code != EINPROGRESS)
    return AIO_ALLDONE;
  return BXISIM_REAL(aio_cancel)(descriptor, request);
}

int lio_listio(int mode, aiocb* const list[], int count, sigevent* notification)
{
  if (notification != nullptr && notification->sigev_notify != SIGEV_NONE)
    return BXISIM_REAL(lio_listio)(mode, list, count, notification);
  int result = 0;
  for (int i = 0; i < count; ++i) {
    aiocb* request = list[i];
    if (request == nullptr || request->aio_lio_opcode == LIO_NOP)
      continue;
    if (notifies(request))
      result |= BXISIM_REAL(lio_listio)(LIO_NOWAIT, &list[i], 1, nullptr);
    else
      result |= run_now(request, request->aio_lio_opcode);
  }
  return result == 0 ? 0 : -1;
}

} // extern "C"
