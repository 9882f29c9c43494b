// The MPI functions the middleware implements itself (@local in mpi_api.list): they need no back end.

#include "RankMpi.hpp"

#include <mpi.h>

#include <cstring>
#include <ctime>

namespace bxisim::mw
{

namespace
{
double (*wtime_function)() = nullptr;
}

void set_wtime_function(double (*wtime)())
{
  wtime_function = wtime;
}

double local_Wtime()
{
  if (wtime_function != nullptr)
    return wtime_function();
  // bxisim's clock_gettime: the rank's simulated time (and the end of its CPU burst).
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

double local_Wtick()
{
  return 1e-9;
}

MPI_Aint local_Aint_add(MPI_Aint base, MPI_Aint disp)
{
  return base + disp;
}

MPI_Aint local_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
  return addr1 - addr2;
}

// bxisim's Fortran status is its C status, field for field (MPI_F_STATUS_SIZE ints).
int local_Status_c2f(const MPI_Status* c_status, MPI_Fint* f_status)
{
  static_assert(sizeof(MPI_Status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint));
  if (f_status == MPI_F_STATUS_IGNORE || c_status == MPI_STATUS_IGNORE)
    return MPI_ERR_ARG;
  std::memcpy(f_status, c_status, sizeof(MPI_Status));
  return MPI_SUCCESS;
}

int local_Status_f2c(const MPI_Fint* f_status, MPI_Status* c_status)
{
  if (f_status == MPI_F_STATUS_IGNORE || c_status == MPI_STATUS_IGNORE)
    return MPI_ERR_ARG;
  std::memcpy(c_status, f_status, sizeof(MPI_Status));
  return MPI_SUCCESS;
}

} // namespace bxisim::mw

extern "C" {
// MPI_Pcontrol is variadic: written here. Without a profiling layer of the program's, it does nothing.
int bxisim_MPI_Pcontrol(int, ...)
{
  return MPI_SUCCESS;
}
int bxisim_PMPI_Pcontrol(int, ...)
{
  return MPI_SUCCESS;
}
// Its names for programs that call it by its plain name (generate_mpi.py's plain_name_aliases).
asm(".globl BXI_Pcontrol\n.type BXI_Pcontrol, @function\n.set BXI_Pcontrol, bxisim_MPI_Pcontrol\n"
    ".globl PBXI_Pcontrol\n.type PBXI_Pcontrol, @function\n.set PBXI_Pcontrol, bxisim_PMPI_Pcontrol\n"
    ".globl bxisim_BXI_Pcontrol\n.type bxisim_BXI_Pcontrol, @function\n"
    ".set bxisim_BXI_Pcontrol, bxisim_MPI_Pcontrol\n"
    ".globl bxisim_PBXI_Pcontrol\n.type bxisim_PBXI_Pcontrol, @function\n"
    ".set bxisim_PBXI_Pcontrol, bxisim_PMPI_Pcontrol");
}
