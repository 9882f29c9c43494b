#pragma once
// Programs that are not built for bxisim and use no MPI: mpirun starts any program (`mpirun -n 4 hostname`), and
// projects' test scripts start their serial tools through their MPI launcher (PnetCDF's `make check` runs
// ncvalidator, built with the plain compiler, with TESTSEQRUN="mpiexec -n 1"). bxisim runs them as mpirun would: as
// processes of this machine, outside the simulation (there is nothing to simulate), saying so.

#include <string>
#include <vector>

namespace bxisim::runtime
{

/** Whether `path` is an ordinary executable (not a program bxicc built): it names a dynamic loader, or is static.
 *  Throws config::ConfigError when it calls another MPI, whose ranks bxisim cannot simulate. */
bool is_plain_executable(const std::string& path);

/** Runs `ranks` processes of `command` at once, as mpirun would; returns the exit code of the first that failed (128
 *  + the signal that ended it), else 0. */
int run_natively(const std::vector<std::string>& command, int ranks);

} // namespace bxisim::runtime
