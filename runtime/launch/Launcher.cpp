#include "Launcher.hpp"

#include "CrashReport.hpp"
#include "ElfFile.hpp"
#include "ExitCodes.hpp"
#include "FortranRuntimeNames.hpp"
#include "LibraryThreadCall.hpp"
#include "LibtoolWrapper.hpp"
#include "NativeRun.hpp"
#include "OpenMpi.hpp"
#include "OutputRouter.hpp"
#include "Pmi.hpp"
#include "PortalsLevel.hpp"
#include "ProgramCopies.hpp"
#include "RankActor.hpp"
#include "RankServices.hpp"
#include "Regions.hpp"
#include "RunFolder.hpp"
#include "RunSupervisor.hpp"
#include "SmpiLevel.hpp"
#include "StaticTls.hpp"
#include "config/ConfigError.hpp"
#include "middleware/ProgramCheck.hpp"
#include "platforms/Machine.hpp"
#include "platforms/PlatformConfig.hpp"
#include "platforms/Topologies.hpp"
#include "platforms/WireFaults.hpp"
#include "runtime/os/CodePages.hpp"
#include "runtime/os/KilledRankTermination.hpp"
#include "runtime/os/LockInterposition.hpp"
#include "runtime/os/Preemption.hpp"
#include "runtime/os/SimulatorCall.hpp"
#include "runtime/os/SimulatorDescriptors.hpp"
#include "runtime/results/Progress.hpp"
#include "runtime/results/RunSummary.hpp"

#include <simgrid/Exception.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <xbt/log.h>

#include <boost/algorithm/string.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <ctime>
#include <elf.h>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <string_view>
#include <sys/syscall.h>
#include <thread>
#include <unistd.h>

XBT_LOG_EXTERNAL_CATEGORY(bxisim_runtime);
XBT_LOG_NEW_DEFAULT_SUBCATEGORY(bxisim_launch, bxisim_runtime, "bxisim run: placing, starting and ending ranks");

namespace bxisim::runtime
{

namespace
{
/**
 * glibc's error(), err(), warn() and assert() name the program by program_invocation_name: the ranks', as in their
 * own processes ("./prog: file.c:12: main: Assertion ... failed"), not bxisim's. bxisim's own messages say "bxisim".
 */
void name_the_process_after(const std::string& program)
{
  static std::string name, short_name;
  name                          = program;
  short_name                    = std::filesystem::path(program).filename().string();
  program_invocation_name       = name.data();
  program_invocation_short_name = short_name.data();
}

/**
 * Whether the ELF image exports a defined function `main` in its dynamic symbol table, or the wrappers' way into a
 * hidden main (runtime/wrappers/program_main.c) while main itself is not left undefined: a program without main would
 * reach the simulator's own through it.
 */
bool exports_main(const ElfFile& file, bool& truncated)
{
  auto symbols = file.dynamic_symbols();
  if (not symbols)
    return not(truncated = true);
  bool main_entry = false;
  for (const auto& [symbol, name, offset] : *symbols) {
    if (name == "main" && symbol.st_shndx == SHN_UNDEF)
      return false;
    if (symbol.st_shndx == SHN_UNDEF || ELF64_ST_TYPE(symbol.st_info) != STT_FUNC)
      continue;
    if (name == "main")
      return true;
    main_entry = main_entry || name == kProgramMainEntry;
  }
  return main_entry;
}

/**
 * A script in place of the program (but libtool's wrappers, LibtoolWrapper.hpp): mpirun would run it; bxisim loads
 * programs into itself, so it says which program to give.
 */
void check_not_a_script(const std::string& program, std::istream& contents)
{
  std::array<char, 2> start{};
  if (not contents.read(start.data(), start.size()) || start[0] != '#' || start[1] != '!')
    return;
  throw config::ConfigError(fmt::format(
      "{} is a script, not a program: bxisim runs programs built with bxicc, bxicxx or bxif90. Give the program the "
      "script starts (and `bxisim run` in place of a script's mpirun).",
      program));
}

/**
 * The program must be a shared object that exports main, as bxicc/bxicxx build it (an executable
 * cannot be dlopen'ed), and whole: every rank would fail to load it otherwise.
 */
void check_program(const std::string& program)
{
  std::error_code error;
  if (std::filesystem::is_directory(program, error))
    throw config::ConfigError(fmt::format("{}: is a directory. Give the path of a program built with bxicc or bxicxx "
                                          "(for example ./a.out).",
                                          program));
  if (not std::filesystem::is_regular_file(program, error))
    throw config::ConfigError(fmt::format("{}: no such program. Give the path of a program built with bxicc or bxicxx "
                                          "(for example ./a.out).",
                                          program));
  std::ifstream readable(program, std::ios::binary);
  if (not readable)
    throw config::ConfigError(fmt::format("{}: cannot read this program: {}.", program, std::strerror(errno)));
  check_not_a_script(program, readable);
  auto file          = ElfFile::read(program);
  bool shared_object = file && file->header().e_type == ET_DYN;
  auto segments      = shared_object ? file->segments() : std::nullopt;
  bool truncated     = shared_object && not segments;
  for (size_t i = 0; shared_object && not truncated && i < segments->size(); ++i) {
    const Elf64_Phdr& segment = (*segments)[i];
    truncated                 = segment.p_type == PT_LOAD && not file->holds(segment.p_offset, segment.p_filesz);
    shared_object             = segment.p_type != PT_INTERP; // an executable names its dynamic loader
  }
  if (not shared_object)
    throw config::ConfigError(fmt::format("{} is not a program built with bxicc or bxicxx (bxisim runs shared objects "
                                          "that keep main exported). Rebuild it with bxicc/bxicxx in place of cc/c++.",
                                          program));
  bool has_main = not truncated && exports_main(*file, truncated);
  if (truncated)
    throw config::ConfigError(fmt::format("{} is truncated or damaged: its ELF headers point past its end ({} bytes). "
                                          "Rebuild it with bxicc or bxicxx.",
                                          program, file->size()));
  if (not has_main)
    throw config::ConfigError(fmt::format("{} exports no main function: is it a shared library rather than a program? "
                                          "bxisim runs programs built with bxicc or bxicxx, which keep main exported.",
                                          program));
  // A program built against another MPI's mpi.h calls MPI_Init & co. itself: they would bind to SimGrid's SMPI.
  auto mpi_use = mw::program_mpi_use(program);
  if (not mpi_use.foreign_symbols.empty())
    throw config::ConfigError(mw::foreign_mpi_message(program, mpi_use));
}

/** SimGrid settings SimGrid accepts but bxisim's platforms cannot run with. */
void check_simulator_settings(const platform::SimulatorOptions& options)
{
  for (const auto& setting : options.cfg)
    if (setting.rfind("network/model:", 0) == 0 && setting.find("ns-3") != std::string::npos)
      throw config::ConfigError(fmt::format(
          "--cfg {}: SimGrid's ns-3 network model needs every host on a one-hop link it knows, which bxisim's node "
          "model (cores and NIC behind the PCIe) is not; use the default CM02, or LV08, SMPI or IB.",
          setting));
}

/**
 * Memory mappings of one loaded copy of the ELF file `path`: one per loadable segment, one more for
 * its RELRO part (made read-only after relocation), one more for a .bss that extends past the file.
 * 5 when the file cannot be read (a small program linked with the usual separate code segment).
 */
long mappings_of_copy(const std::string& path)
{
  auto file     = ElfFile::read(path);
  auto segments = file ? file->segments() : std::nullopt;
  if (not segments)
    return 5;
  long count = 0;
  for (const auto& segment : *segments) {
    if (segment.p_type == PT_LOAD) {
      ++count;
      constexpr uint64_t kPage = 4096;
      uint64_t file_end        = (segment.p_vaddr + segment.p_filesz + kPage - 1) / kPage;
      uint64_t memory_end      = (segment.p_vaddr + segment.p_memsz + kPage - 1) / kPage;
      count += memory_end > file_end; // anonymous pages of .bss beyond the file's last page
    } else if (segment.p_type == PT_GNU_RELRO) {
      ++count;
    }
  }
  return count;
}

/**
 * Each rank maps its own copy of the program (and of each privatized library) and an actor stack:
 * a run of many ranks can exceed the system's limit on memory mappings, and fail half-way with an
 * obscure message. Counted: the copies' mappings from their ELF headers (5 for a small program linked
 * as usual, 2 when built by bxicc), 2 per actor stack (the stack and its guard page; without guard
 * pages, SimGrid's stacks are adjacent anonymous mappings the kernel merges), 2 per NIC actor stack
 * (8 per node), a few hundred for bxisim itself. An MPI rank at message or cycle also maps its copy of
 * OpenMPI and what that copy allocates (`openmpi`: 26 mappings per rank measured in all, 2 programs of
 * 64 and 256 ranks). When only the guard pages are in the way, they are left out, with a note.
 */
void check_system_limits(int ranks, size_t nodes, const std::string& program,
                         const std::vector<PrivatizedLibrary>& libraries, uintmax_t copy_bytes, bool openmpi)
{
  constexpr long kMapsPerStack = 2, kMapsPerNode = kMapsPerStack * 8, kMapsBase = 400;
  constexpr long kOpenMpiAllocations = 16; // its heap's own mappings, beyond its copy's segments
  long copies                        = mappings_of_copy(program);
  for (const auto& library : libraries)
    copies += mappings_of_copy(library.path);
  if (openmpi)
    copies += mappings_of_copy(openmpi_library()) + kOpenMpiAllocations;
  long fixed         = kMapsBase + kMapsPerNode * static_cast<long>(nodes);
  long per_rank      = copies + kMapsPerStack;
  long needed        = fixed + per_rank * ranks;
  long without_guard = kMapsBase + copies * ranks;
  long limit         = 0;
  if (std::ifstream("/proc/sys/vm/max_map_count") >> limit; limit > 0 && needed > limit) {
    if (without_guard <= limit * 9 / 10) {
      simgrid::s4u::Engine::set_config("contexts/guard-size:0");
      XBT_INFO("-n %d needs about %ld memory mappings with a guard page below each actor stack, more than this "
               "system allows (vm.max_map_count = %ld): the stacks are made without guard pages (about %ld "
               "mappings), so a stack overflow in a rank is not caught. Raise the limit (as root: sysctl -w "
               "vm.max_map_count=%ld) to keep them.",
               ranks, needed, limit, without_guard, needed * 2);
    } else {
      throw config::ConfigError(fmt::format(
          "-n {} needs about {} memory mappings ({} per rank: its copies of the program and libraries, its stack), "
          "more than this system allows (vm.max_map_count = {}); about {} ranks fit. Raise the limit (as root: "
          "sysctl -w vm.max_map_count={}) or run fewer ranks.",
          ranks, needed, per_rank, limit, std::max(0L, (limit * 9 / 10 - kMapsBase) / std::max(1L, copies)),
          needed * 2));
    }
  }
  std::error_code error;
  auto space = std::filesystem::space(std::filesystem::temp_directory_path(error), error);
  if (not error && copy_bytes * static_cast<uintmax_t>(ranks) > space.available)
    throw config::ConfigError(fmt::format("-n {} needs {} MB in the temporary folder for the ranks' copies of the "
                                          "program, which has {} MB free; set TMPDIR to a folder with more space.",
                                          ranks, copy_bytes * static_cast<uintmax_t>(ranks) >> 20,
                                          space.available >> 20));
}

CpuSettings cpu_settings(const config::Parameters& parameters)
{
  CpuSettings settings;
  settings.simulate      = parameters.boolean("cpu.simulate");
  settings.factor        = parameters.real("cpu.factor");
  settings.threshold     = parameters.real("cpu.threshold");
  settings.mpi_library   = parameters.boolean("cpu.mpi_library");
  settings.mpi_threshold = parameters.real("cpu.mpi_threshold");
  return settings;
}

/** Whether --log chose an appender of its own (--log=CATEGORY.app:file:NAME, rollfile, splitfile). */
bool log_has_appender(const platform::SimulatorOptions& simulator_options)
{
  return std::any_of(simulator_options.log.begin(), simulator_options.log.end(),
                     [](const std::string& setting) { return setting.find(".app") != std::string::npos; });
}

/** SimGrid's messages go to the real stderr rather than into a rank's output, unless --log chose an appender. */
void send_simulator_logs_to_original_stderr(const platform::SimulatorOptions& simulator_options)
{
  if (not log_has_appender(simulator_options))
    xbt_log_appender_set(&_XBT_LOGV(root), xbt_log_appender_stream(OutputRouter::original_stderr()));
}

/** Whether SimGrid opens files of its own as the engine starts: a log appender or its tracing (--cfg=tracing...). */
bool simgrid_opens_files(const platform::SimulatorOptions& simulator_options)
{
  return log_has_appender(simulator_options) or
         std::any_of(simulator_options.cfg.begin(), simulator_options.cfg.end(),
                     [](const std::string& setting) { return setting.rfind("tracing", 0) == 0; });
}

/** Whether `rank` ended with an exit code other than 0 (not by a signal). */
bool exited_non_zero(const Rank& rank)
{
  return rank.state() == RankState::Ended && rank.end_signal() == 0 && rank.exit_code() != 0;
}

void report_deadlock(const std::vector<std::unique_ptr<Rank>>& ranks, const std::function<std::string(int)>& mpi_call)
{
  FILE* out = OutputRouter::original_stderr();
  std::vector<int> not_loaded; // the others wait for them in MPI_Init or a first exchange: not the program's deadlock
  for (const auto& rank : ranks)
    if (rank->load_failed())
      not_loaded.push_back(rank->index());
  if (not not_loaded.empty()) {
    fmt::print(out,
               "bxisim: {} could not load the program (the errors above); the other ranks waited for {} and were "
               "stopped.\n",
               rank_ranges(not_loaded), not_loaded.size() == 1 ? "it" : "them");
    return;
  }
  fmt::print(out, "bxisim: deadlock at simulated time {:.9f} s: no rank can progress anymore.\n",
             simgrid::s4u::Engine::get_clock());
  for (const auto& rank : ranks)
    if (rank->state() == RankState::Running) {
      std::string what         = rank->waiting_for();
      std::string call         = mpi_call ? mpi_call(rank->index()) : std::string();
      const std::string advice = "check that every rank makes the same collective and matching sends";
      if (what.empty() && not call.empty())
        what = "the end of " + call + " (" + advice + ")";
      else if (not call.empty() && what.rfind("Ptl", 0) == 0) // OpenMPI's own wait for the NIC, inside the call
        what = "the end of " + call + " (in " + what + "; " + advice + ")";
      else if (not call.empty())
        what += ", inside " + call;
      fmt::print(out, "bxisim:   rank {} waits for {}\n", rank->index(), what.empty() ? "a simulator operation" : what);
    }
  std::vector<int> ended; // a message or a collective of a rank that left the job never comes
  for (const auto& rank : ranks)
    if (rank->state() == RankState::Ended)
      ended.push_back(rank->index());
  if (not ended.empty())
    fmt::print(out,
               "bxisim: {} had already ended (the summary gives how): a rank that waits for a message from a rank "
               "that ended, or for it in a collective, waits for ever (mpirun would have stopped the job when it "
               "ended{}).\n",
               rank_ranges(ended),
               std::any_of(ranks.begin(), ranks.end(), [](const auto& rank) { return exited_non_zero(*rank); })
                   ? "; the run ends with the exit code of the first that failed, as mpirun's"
                   : "");
  std::vector<int> with_library_threads;
  for (const auto& rank : ranks)
    if (rank->state() == RankState::Running && rank->has_library_threads())
      with_library_threads.push_back(rank->index());
  if (not with_library_threads.empty())
    fmt::print(out,
               "bxisim: {} {} threads that a library created (an OpenMP team): they run outside the simulation, so a "
               "rank waiting for what they do (memory they write, an MPI call they would make) waits for ever. Make "
               "such waits and calls from the rank's main thread or from threads the program creates "
               "(docs/running.md, \"Threads\").\n",
               rank_ranges(with_library_threads), with_library_threads.size() == 1 ? "has" : "have");
  fmt::print(out, "bxisim: (SimGrid lists every actor, NIC actors included, with --log=ker_engine.thres:info)\n");
  std::fflush(out);
}

/** Whether a thread of this process other than the calling one is running (not waiting): /proc's state R. */
bool another_thread_runs()
{
  std::error_code error;
  std::string self = std::to_string(syscall(SYS_gettid));
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task", error)) {
    if (task.path().filename() == self)
      continue;
    std::ifstream stat(task.path() / "stat");
    std::string line;
    std::getline(stat, line);
    auto end_of_name = line.rfind(')'); // the name, in parentheses, may hold spaces
    if (end_of_name != std::string::npos && end_of_name + 2 < line.size() && line[end_of_name + 2] == 'R')
      return true;
  }
  return false;
}

/** At a deadlock, threads of a library (an OpenMP team) may still run a rank's code: in real time, outside the
 * simulation, about to make a call that bxisim refuses with a message that says more than the deadlock (an MPI call,
 * which the rank's main thread then waits for). They get up to a second of real time while any of them runs. */
void let_library_threads_run(const std::vector<std::unique_ptr<Rank>>& ranks)
{
  if (std::none_of(ranks.begin(), ranks.end(), [](const auto& rank) { return rank->has_library_threads(); }))
    return;
  for (int step = 0; step < 100 && another_thread_runs(); ++step)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  // A refused call of theirs ends the run: it may still be removing the run's folder (its thread then waits on the
  // disk, not running), and exits when done.
  for (int step = 0; step < 1000 && run_ending_by_refusal(); ++step)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

/** At --sim-time-limit: says where each rank was and ends them all. */
void stop_at_simulated_time(double limit, const std::vector<std::unique_ptr<Rank>>& ranks, const MpiCallOf& mpi_call,
                            bool& reached)
{
  simgrid::s4u::this_actor::sleep_until(limit);
  reached   = true;
  FILE* out = OutputRouter::original_stderr();
  fmt::print(out, "bxisim: the simulated time limit is reached (--sim-time-limit {}). Where each rank was:\n{}", limit,
             describe_ranks(ranks, nullptr, mpi_call));
  std::fflush(out);
  os::kill_every_actor();
}

/** The exit code of the run, after telling which ranks failed. */
int summarize(const std::vector<std::unique_ptr<Rank>>& ranks, bool deadlock, bool limit_reached, const JobAbort& abort)
{
  if (abort.rank >= 0) { // MPI_Abort, or a refused MPI call: the job's code is the one given
    fmt::print(stderr, "bxisim: rank {} ended the job with code {}; the other ranks were stopped.\n", abort.rank,
               abort.code);
    return abort.code & 0xff;
  }
  // Ranks that failed alike are named together ("ranks 512-599 (exit code 134)").
  std::vector<std::pair<std::string, std::vector<int>>> failed;
  size_t failed_count = 0;
  // As mpirun, the run ends with the code of the first process that exited non-zero (automake's 77, "skipped", stays
  // 77); of those that ended at one simulated time, the lowest rank's.
  const Rank* first_exited = nullptr;
  for (const auto& rank : ranks) {
    std::string how;
    if (rank->state() == RankState::Ended && rank->end_signal() != 0) {
      how = fmt::format("killed by SIG{}", sigabbrev_np(rank->end_signal()));
    } else if (exited_non_zero(*rank)) {
      how = fmt::format("exit code {}", rank->exit_code());
      if (first_exited == nullptr || rank->end_time() < first_exited->end_time())
        first_exited = rank.get();
    }
    if (how.empty())
      continue;
    ++failed_count;
    auto group = std::find_if(failed.begin(), failed.end(), [&](const auto& entry) { return entry.first == how; });
    if (group == failed.end())
      group = failed.insert(failed.end(), {how, {}});
    group->second.push_back(rank->index());
  }
  std::vector<std::string> groups;
  for (const auto& [how, indices] : failed)
    groups.push_back(fmt::format("{} ({})", rank_ranges(indices), how));
  if (failed_count > 0)
    fmt::print(stderr, "bxisim: {} of {} rank(s) failed: {}\n", failed_count, ranks.size(), fmt::join(groups, ", "));
  for (const auto& rank : ranks)
    if (rank->load_failed())
      return config::kUsageExitCode;
  for (const auto& rank : ranks)
    if (rank->crashed())
      return kCrashExitCode;
  if (limit_reached)
    return kLimitExitCode;
  // A rank that exited non-zero is why the others wait: mpirun would have ended the job then, with its code.
  if (deadlock)
    return first_exited != nullptr ? first_exited->exit_code() : kDeadlockExitCode;
  if (failed.empty())
    return 0;
  return first_exited != nullptr ? first_exited->exit_code() : kRankFailedExitCode;
}
} // namespace

int launch(const LaunchOptions& given_options, const config::Parameters& parameters,
           const platform::SimulatorOptions& simulator_options)
{
  auto wall_start = std::chrono::steady_clock::now();
  if (given_options.command.empty())
    throw config::ConfigError("bxisim run: give the program to run, for example `bxisim run -n 4 ./a.out`.");
  LaunchOptions options = given_options;
  // A bare name that is no file here is looked for in PATH, as mpirun does (`bxisim run -n 2 hostname`).
  if (std::string& name = options.command.front();
      name.find('/') == std::string::npos && not std::filesystem::exists(name))
    if (const char* path = std::getenv("PATH")) {
      std::vector<std::string> folders;
      boost::split(folders, std::string(path), boost::is_any_of(":"));
      for (const auto& folder : folders)
        if (not folder.empty() && access((std::filesystem::path(folder) / name).c_str(), X_OK) == 0) {
          name = (std::filesystem::path(folder) / name).string();
          break;
        }
    }
  if (is_libtool_wrapper(options.command.front())) // as mpirun runs it: its program, with its LD_LIBRARY_PATH
    options.command.front() = libtool_wrapped_program(options.command.front());
  const std::string& program = options.command.front();
  check_level(options.level, "--level");
  if (is_plain_executable(program)) // mpirun starts any program: so does bxisim, natively (NativeRun.hpp)
    return run_natively(options.command, options.ranks);
  check_program(program);
  check_simulator_settings(simulator_options);
  Regions regions(options.level, options.regions, options.ranks);
  Rank::set_cpu_settings(cpu_settings(parameters));
  auto platform_config = platform::PlatformConfig::from_parameters(parameters);
  bool smpi_level      = options.level == "smpi";
  // A program that annotates regions gets both MPI back ends, and switches between them at boundaries,
  // when the platform is one of bxisim's topologies (the node model: NICs for OpenMPI's Portals) and
  // bxisim's OpenMPI is built. On a SimGrid XML platform, regions run at the run's level.
  bool mixed = program_uses_mpi(program) && program_uses_regions(program) && platform_config.xml_file.empty() &&
               std::filesystem::exists(openmpi_prefix() + "/complete");
  if (mixed)
    smpi_level = false;
  if (smpi_level && platform::FaultSpec::from_parameters(parameters).any())
    throw config::ConfigError("--level smpi has no NIC and no E2E: network faults (--fault, fault.loss_rate, "
                              "fault.links) are modelled at --level message and cycle; run at one of those.");

  std::vector<PrivatizedLibrary> libraries;
  for (const auto& name : options.privatized_libraries)
    libraries.push_back(find_privatized_library(name, program));
  std::vector<std::string> openmp_runtimes = openmp_runtimes_needed(program);
  // Idle OpenMP threads spin by default: those of the ranks that wait in simulated time would take this
  // machine's cores from the rank that runs, and its regions would be measured that much slower.
  if (not openmp_runtimes.empty() && std::getenv("OMP_WAIT_POLICY") == nullptr)
    setenv("OMP_WAIT_POLICY", "passive", 1);
  // LLVM's libomp registers itself by process id (getpid(): 1000 + rank, the same in every run) in /dev/shm and stops
  // when it finds another copy of itself alive in the process: each rank has one here, by design.
  if (not openmp_runtimes.empty())
    setenv("KMP_DUPLICATE_LIB_OK", "TRUE", 0);
  std::vector<std::string> why_private; // logged once the engine has read --log
  for (const auto& runtime : openmp_runtimes)
    if (std::none_of(libraries.begin(), libraries.end(), [&](const auto& l) { return l.soname == runtime; })) {
      why_private.push_back(fmt::format("each rank gets its own copy of {} (OpenMP's runtime keeps its state per OS "
                                        "thread, which all ranks share)",
                                        runtime));
      libraries.push_back(find_privatized_library(runtime, program));
    }
  for (const auto& path : libraries_built_for_bxisim(program)) {
    PrivatizedLibrary library = find_privatized_library(path, program);
    if (std::none_of(libraries.begin(), libraries.end(), [&](const auto& l) {
          return (not library.soname.empty() && l.soname == library.soname) ||
                 std::filesystem::equivalent(l.path, library.path);
        })) {
      why_private.push_back(fmt::format("each rank gets its own copy of {} (built for bxisim: it calls MPI, "
                                        "Portals or PMI, or needs a library that does)",
                                        path));
      libraries.push_back(library);
    }
  }

  bool fortran_private =
      std::any_of(libraries.begin(), libraries.end(), [](const auto& l) { return l.soname == kFortranRuntime; });
  if (not fortran_private && fortran_runtime_needed(program, libraries)) {
    why_private.push_back(fmt::format("each rank gets its own copy of {} (Fortran's units, their buffers and locks: "
                                      "a unit one rank opened was every rank's)",
                                      kFortranRuntime));
    libraries.push_back(find_privatized_library(kFortranRuntime, program));
    fortran_private = true;
  }
  // The ranks' copies of libgfortran see a pipe on stdout (the output's router) and would buffer their preconnected
  // units until they end: unbuffered, as on a terminal, each rank's lines are its own as they are written.
  if (fortran_private)
    setenv("GFORTRAN_UNBUFFERED_PRECONNECTED", "y", 0);

  // Before anything of the run exists: bxisim may have to start again (StaticTls.hpp).
  uint64_t static_tls = static_tls_bytes(program);
  for (const auto& library : libraries)
    static_tls += static_tls_bytes(library.path);
  reserve_static_tls(static_tls * static_cast<uint64_t>(options.ranks));

  std::unique_ptr<simgrid::s4u::Engine> engine;
  std::optional<platform::Machine> machine;
  {
    platform::SetupAbortGuard guard;
    // SimGrid's list of every actor at a deadlock (NIC actors included) is long: shown on request only.
    platform::SimulatorOptions engine_options = simulator_options;
    engine_options.log.insert(engine_options.log.begin(), "ker_engine.thres:warning");
    if (smpi_level || mixed)
      SmpiLevel::declare_options(); // before the engine: --cfg smpi/... must be known
    if (smpi_level)
      engine_options.smpi_defaults = true; // a mixed run keeps the node model's network model at every level
    auto create = [&] {
      engine = platform::create_engine(engine_options);
      machine.emplace(platform::build_machine(platform_config));
    };
    if (simgrid_opens_files(engine_options))
      os::open_above_ranks(create); // not where the ranks' descriptors go (os/SimulatorDescriptors.hpp)
    else
      create();
  }
  for (const auto& note : why_private)
    XBT_VERB("%s", note.c_str());
  auto placements = map_ranks(*machine, options.ranks, options.ranks_per_node, options.map_by, options.core_sharing);

  uintmax_t copy_bytes = std::filesystem::file_size(program);
  for (const auto& library : libraries)
    copy_bytes += std::filesystem::file_size(library.path);
  bool loads_openmpi = (not smpi_level || mixed) && program_uses_mpi(program);
  check_system_limits(options.ranks, machine->nodes().size(), program, libraries, copy_bytes, loads_openmpi);

  RunFolder folder(options.keep_temps);
  RunSupervisor::block_stop_signals(); // a Ctrl-C while the copies are made waits for the supervisor
  os::reserve_rank_heaps(options.ranks);
  std::vector<std::unique_ptr<Rank>> ranks;
  std::vector<std::string> copies;
  timespec copies_start{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &copies_start);
  for (const auto& placement : placements) {
    const auto& node = machine->nodes()[static_cast<size_t>(placement.node)];
    ranks.push_back(
        std::make_unique<Rank>(placement, options.ranks, node.cores[static_cast<size_t>(placement.core)], node.name));
    copies.push_back(make_rank_copies(folder, placement.rank, program, libraries));
  }
  timespec copies_end{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &copies_end);
  double copies_cpu = static_cast<double>(copies_end.tv_sec - copies_start.tv_sec) +
                      static_cast<double>(copies_end.tv_nsec - copies_start.tv_nsec) * 1e-9;
  XBT_VERB("%d rank(s) of %s, copies in %s, made in %.3f s of CPU (%.1f us per rank)", options.ranks, program.c_str(),
           folder.path().c_str(), copies_cpu, copies_cpu / options.ranks * 1e6);

  bool uses_mpi = program_uses_mpi(program) || std::any_of(libraries.begin(), libraries.end(), [](const auto& library) {
                    return program_uses_mpi(library.path);
                  });
  std::unique_ptr<OpenMpiJob> mpi;
  std::unique_ptr<SmpiLevel> smpi;
  std::unique_ptr<PortalsLevel> portals;
  std::function<bool(Rank&)> load_first;
  std::function<int(Rank&, int)> after_main;
  std::function<std::string(int)> mpi_call;
  std::vector<std::unique_ptr<mw::RankMpi>> switching; // per rank, in a mixed run
  if (mixed) { // both back ends: SMPI processes that also have their OpenMPI copy and a NIC
    smpi = std::make_unique<SmpiLevel>(ranks, parameters, true);
    mpi  = std::make_unique<OpenMpiJob>(ranks, options.mca, parameters, folder);
    switching.resize(ranks.size());
    std::string nic_level = options.level == "smpi" ? "message" : options.level;
    portals = std::make_unique<PortalsLevel>(nic_level, *machine, ranks, parameters, options.trace_csv, options.vcd,
                                             options.vcd_signals);
    portals->enable_level("message");
    portals->enable_level("cycle");
    portals->set_poll_blocking(mpi->poll_blocking_rule());
    load_first = [&switching, job = mpi.get(), level = smpi.get(), start = options.level](Rank& r) {
      if (not level->load(r) || not job->load(r))
        return false;
      switching[static_cast<size_t>(r.index())] = mw::make_switching_rank(
          r.index(), level->dispatch(r.index()), SmpiLevel::call_hooks(), job->dispatch(r.index()), start == "smpi");
      return true;
    };
    after_main = [&switching, job = mpi.get(), level = smpi.get()](Rank& r, int code) {
      const auto& dispatch = switching[static_cast<size_t>(r.index())];
      bool aborted         = job->abort_state().rank == r.index() || level->abort_state().rank == r.index();
      if (dispatch != nullptr && dispatch->initialized() && not dispatch->finalized() && not aborted) {
        FILE* out = OutputRouter::original_stderr();
        fmt::print(out,
                   "bxisim: rank {} ended without MPI_Finalize (it called MPI_Init): call MPI_Finalize before "
                   "leaving main.\n",
                   r.index());
        std::fflush(out);
        return code != 0 ? code : 1;
      }
      return code;
    };
    mpi_call = [&switching](int r) {
      const auto& dispatch = switching[static_cast<size_t>(r)];
      if (dispatch == nullptr || dispatch->current_call() == nullptr)
        return std::string();
      std::string detail = mw::switch_wait_detail(*dispatch); // a receive of the other level
      return detail.empty() ? std::string(dispatch->current_call()) : detail;
    };
    // By actor: SMPI calls the program back (user operations) inside MPI calls, where no rank code runs.
    mw::set_rank_provider([&switching, &ranks]() -> mw::RankMpi* {
      if (on_library_thread())
        refuse_library_thread_call("an MPI function");
      Rank* rank = SmpiLevel::rank_of_calling_actor();
      (void)ranks;
      return rank != nullptr ? switching[static_cast<size_t>(rank->index())].get() : nullptr;
    });
    regions.set_placer([&switching](Rank& rank, const std::string& place) {
      if (const auto& dispatch = switching[static_cast<size_t>(rank.index())])
        mw::set_region_place(*dispatch, place);
    });
    regions.set_switcher(
        [&switching, portals_level = portals.get()](Rank& rank, const std::string& level, const std::string& place) {
          if (level != "smpi") {
            os::SimulatorCall call;
            portals_level->switch_level(level); // every rank met at the boundary: nothing new started in the old model
          }
          int code = mw::switch_back_end(*switching[static_cast<size_t>(rank.index())], level == "smpi", place);
          if (code != 0) {
            FILE* out = OutputRouter::original_stderr();
            fmt::print(out, "bxisim: rank {} could not start MPI at the {} level (MPI error {}).\n", rank.index(),
                       level, code);
            std::fflush(out);
            std::exit(1); // bxisim's exit: ends the rank
          }
        });
  } else if (smpi_level) { // SMPI is the network model: no NIC, no Portals
    smpi       = std::make_unique<SmpiLevel>(ranks, parameters);
    load_first = [job = smpi.get()](Rank& r) { return job->load(r); };
    after_main = [job = smpi.get()](Rank& r, int code) { return job->check_end(r, code); };
    mpi_call   = [job = smpi.get()](int r) { return job->mpi_call(r); };
  } else {
    if (uses_mpi) {
      mpi        = std::make_unique<OpenMpiJob>(ranks, options.mca, parameters, folder);
      load_first = [job = mpi.get()](Rank& r) { return job->load(r); };
      mpi_call   = [job = mpi.get()](int r) { return job->mpi_call(r); };
    }
    portals = std::make_unique<PortalsLevel>(options.level, *machine, ranks, parameters, options.trace_csv, options.vcd,
                                             options.vcd_signals);
    if (mpi)
      portals->set_poll_blocking(mpi->poll_blocking_rule());
  }
  std::vector<std::string> node_names;
  for (const auto& node : machine->nodes())
    node_names.push_back(node.name);
  RunRecorder recorder(ranks, options.level, options.trace, node_names);
  regions.set_boundary_observer([&recorder](int rank, const std::string& name, bool begin, const std::string& level,
                                            double time) { recorder.region_boundary(rank, name, begin, level, time); });
  regions.set_level_observer(
      [&recorder](int rank, const std::string& level, double time) { recorder.level_switched(rank, level, time); });
  recorder.observe_mpi_calls();
  if (portals && recorder.has_timeline())
    portals->observe_operations(
        [&recorder](const char* operation, int initiator, int target, double start, double end) {
          recorder.nic_operation(operation, initiator, target, start, end);
        },
        [&recorder](int node, const char* lane, const std::string& name, double start, double end) {
          recorder.nic_stage(node, lane, name, start, end);
        },
        [&recorder](int node, const char* counter, double time, double value) {
          recorder.nic_counter(node, counter, time, value);
        });
  mw::set_wtime_function(&os::rank_clock);
  mw::set_message_stream(&OutputRouter::original_stderr);
  prepare_rank_services();
  prepare_pmi(ranks, parameters.real("pmi.barrier_latency"));
  install_crash_report(folder);
  os::set_endless_lock_wait_handler(abort_unsupported);
  RunSupervisor supervisor({options.watchdog, options.wall_limit, options.preempt_after}, ranks, folder);
  supervisor.set_mpi_call(mpi_call);
  bool deadlock      = false;
  bool limit_reached = false;
  simgrid::s4u::Engine::on_deadlock_cb([&ranks, &deadlock, &mpi_call] {
    deadlock = true;
    let_library_threads_run(ranks);
    note_simulation_over();
    os::note_every_actor_killed(); // the engine kills them next: their unwinding may call std::terminate
    report_deadlock(ranks, mpi_call);
  });
  {
    std::optional<OutputRouter> router;
    if (options.rank_prefix || not options.output_dir.empty())
      router.emplace(options.ranks, options.output_dir);
    send_simulator_logs_to_original_stderr(simulator_options);
    std::string program_path = std::filesystem::absolute(options.command.front()).lexically_normal().string();
    name_the_process_after(options.command.front());
    for (size_t i = 0; i < ranks.size(); ++i) {
      Rank* rank = ranks[i].get();
      rank->process_state().set_program_path(program_path);
      rank->process_state().set_command_line(&options.command);
      auto code = [rank, copy = copies[i], argv = options.command, &load_first, &after_main, &portals, &recorder,
                   &regions] {
        auto ended = [rank, &recorder, &regions] {
          recorder.rank_ended(rank->index(), simgrid::s4u::Engine::get_clock());
          regions.rank_ended(rank->index(), simgrid::s4u::Engine::get_clock());
        };
        try {
          run_rank(*rank, copy, argv, load_first, after_main);
        } catch (const simgrid::ForcefulKillException&) { // stopped: the summary says when
          ended();
          throw;
        }
        ended();
        if (portals)
          portals->rank_ended(*rank); // what it left in flight is finalized (portals/README.md, "Misuse")
      };
      simgrid::s4u::ActorPtr actor;
      if (smpi)
        actor = smpi->create_actor(*rank, code);
      else
        actor = simgrid::s4u::Actor::create(fmt::format("rank{}", i), rank->host(), code);
      if (portals)
        portals->register_rank_actor(actor->get_pid(), *rank);
      note_rank_actor(actor->get_pid(), *rank);
    }
    if (options.sim_time_limit > 0)
      simgrid::s4u::Actor::create("sim-time-limit", ranks.front()->host(), [&] {
        stop_at_simulated_time(options.sim_time_limit, ranks, mpi_call, limit_reached);
      })->daemonize();
    if (Rank::cpu_settings().simulate && Rank::cpu_settings().measure)
      os::populate_loaded_code(); // the first call of each bxisim entry point is not a rank's computation
    std::optional<Progress> progress;
    if (Progress::wanted(options.quiet, OutputRouter::original_stderr()))
      progress.emplace(recorder, options.ranks, OutputRouter::original_stderr());
    os::install_killed_rank_termination(); // after SimGrid's own handler, which it calls for any other
    engine->run();
    note_simulation_over();
    os::note_every_actor_killed(); // those still there are ended with the engine
  }
  XBT_VERB("simulation ended at %.9f s; loading the ranks' copies took %.3f s of CPU (%.1f us per rank)",
           simgrid::s4u::Engine::get_clock(), loading_cpu_seconds(), loading_cpu_seconds() / options.ranks * 1e6);
  if (portals) {
    portals->finish();
    if (options.nic_stats)
      portals->print_statistics();
  }
  if (folder.kept())
    fmt::print(stderr, "bxisim: kept the temporary folder {} (--keep-temps).\n", folder.path());
  JobAbort abort = mpi ? mpi->abort_state() : (smpi ? smpi->abort_state() : JobAbort{});
  if (mixed && abort.rank < 0)
    abort = smpi->abort_state();
  if (abort.rank < 0)
    abort = pmi_abort_state();
  bool lost_frame = portals && not portals->lost_for_good().empty(); // said when it happened
  int code        = summarize(ranks, deadlock || lost_frame, limit_reached, abort);
  if (not regions.finish(options.regions_json, simgrid::s4u::Engine::get_clock()) && code == 0)
    code = kRankFailedExitCode;
  SummaryFacts facts;
  facts.program        = program;
  facts.level          = options.level;
  facts.ranks_per_node = placements.front().local_size;
  facts.map_by         = options.map_by == MapBy::Node ? "node" : "core";
  facts.platform       = parameters.text("platform.topology");
  facts.nodes          = static_cast<int>(machine->nodes().size());
  std::set<int> nodes_used;
  for (const auto& placement : placements)
    nodes_used.insert(placement.node);
  facts.nodes_used     = static_cast<int>(nodes_used.size());
  facts.cores_per_node = static_cast<int>(machine->nodes().front().cores.size());
  facts.nic_model      = portals != nullptr;
  if (portals)
    facts.nic = portals->statistics();
  facts.exit_code      = code;
  std::string timeline = recorder.finish_timeline();
  if (not timeline.empty())
    facts.outputs.emplace_back("trace", timeline);
  if (not options.trace_csv.empty())
    facts.outputs.emplace_back("trace_csv", (std::filesystem::path(options.trace_csv) / "operations.csv").string());
  if (not options.regions_json.empty())
    facts.outputs.emplace_back("regions_json", options.regions_json);
  std::string summary_path = options.summary;
  if (summary_path.empty())
    summary_path = (std::filesystem::path(options.output_dir.empty() ? "." : options.output_dir) / "summary.json")
                       .lexically_normal()
                       .string();
  if (not options.no_summary)
    facts.outputs.emplace_back("summary", summary_path);
  facts.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  auto summary       = make_summary(facts, parameters, ranks, recorder);
  if (not options.no_summary && not write_summary(summary, summary_path) && code == 0)
    code = config::kUsageExitCode;
  if (not options.quiet)
    print_summary_table(summary, stderr);
  return code;
}

} // namespace bxisim::runtime
