#include "NativeRun.hpp"

#include "ElfFile.hpp"
#include "config/ConfigError.hpp"
#include "middleware/ProgramCheck.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <spawn.h>
#include <sys/wait.h>
#include <vector>

extern char** environ;

namespace bxisim::runtime
{

bool is_plain_executable(const std::string& path)
{
  auto file = ElfFile::read(path);
  if (not file)
    return false;
  bool executable = file->header().e_type == ET_EXEC;
  if (auto segments = file->segments())
    for (const auto& segment : *segments)
      executable = executable || segment.p_type == PT_INTERP;
  if (not executable)
    return false;
  auto mpi_use = mw::program_mpi_use(path);
  if (not mpi_use.foreign_symbols.empty())
    throw config::ConfigError(mw::foreign_mpi_message(path, mpi_use));
  // Linked statically with another MPI (its libmpi.a): nothing is left undefined to tell, but its own symbol table
  // names the MPI it holds (unless stripped). Run natively, each process would be a job of one rank.
  if (auto symbols = file->static_symbols())
    for (const auto& entry : *symbols)
      if (entry.symbol.st_shndx != SHN_UNDEF && ELF64_ST_TYPE(entry.symbol.st_info) == STT_FUNC &&
          (entry.name == "MPI_Init" || entry.name == "PMPI_Init" || entry.name == "mpi_init_"))
        throw config::ConfigError(fmt::format(
            "{} holds an MPI library of its own ({} is defined inside it: it was linked statically with another "
            "MPI), whose calls bxisim cannot run. Rebuild it with bxicc, bxicxx or bxif90 (mpicc's place), which "
            "link bxisim's MPI.",
            path, entry.name));
  return true;
}

int run_natively(const std::vector<std::string>& command, int ranks)
{
  std::fprintf(stderr,
               "bxisim: %s is not a program built with bxicc, bxicxx or bxif90 (an ordinary executable that uses no "
               "MPI): running %d process%s of it on this machine, outside the simulation, as mpirun would.\n",
               command.front().c_str(), ranks, ranks == 1 ? "" : "es");
  std::fflush(nullptr);
  std::vector<char*> arguments;
  for (const auto& word : command)
    arguments.push_back(const_cast<char*>(word.c_str()));
  arguments.push_back(nullptr);
  std::vector<pid_t> processes;
  for (int rank = 0; rank < ranks; ++rank) {
    pid_t process = 0;
    if (int error = posix_spawn(&process, arguments.front(), nullptr, nullptr, arguments.data(), environ); error != 0)
      throw config::ConfigError(fmt::format("cannot start {}: {}.", command.front(), std::strerror(error)));
    processes.push_back(process);
  }
  int exit_code = 0;
  for (pid_t process : processes) {
    int status = 0;
    while (waitpid(process, &status, 0) < 0 && errno == EINTR) {
    }
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;
    if (exit_code == 0)
      exit_code = code;
  }
  return exit_code;
}

} // namespace bxisim::runtime
