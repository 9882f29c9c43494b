#include "Launcher.hpp"

#include "CrashReport.hpp"
#include "ExitCodes.hpp"
#include "OutputRouter.hpp"
#include "PortalsLevel.hpp"
#include "ProgramCopies.hpp"
#include "RankActor.hpp"
#include "RankServices.hpp"
#include "RunFolder.hpp"
#include "platforms/Machine.hpp"
#include "platforms/PlatformConfig.hpp"
#include "platforms/Topologies.hpp"
#include "runtime/config/ConfigError.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <xbt/log.h>

#include <fmt/format.h>

#include <cstring>
#include <elf.h>
#include <filesystem>
#include <fstream>
#include <memory>

XBT_LOG_EXTERNAL_CATEGORY(bxisim_runtime);
XBT_LOG_NEW_DEFAULT_SUBCATEGORY(bxisim_launch, bxisim_runtime, "bxisim run: placing, starting and ending ranks");

namespace bxisim::runtime
{

namespace
{
/** The program must be a shared object, as bxicc/bxicxx build it: an executable cannot be dlopen'ed. */
void check_program(const std::string& program)
{
  std::error_code error;
  if (not std::filesystem::is_regular_file(program, error))
    throw config::ConfigError(fmt::format("{}: no such program. Give the path of a program built with bxicc or bxicxx "
                                          "(for example ./a.out).",
                                          program));
  std::ifstream file(program, std::ios::binary);
  Elf64_Ehdr header{};
  file.read(reinterpret_cast<char*>(&header), sizeof(header));
  bool shared_object = file && std::memcmp(header.e_ident, ELFMAG, SELFMAG) == 0 &&
                       header.e_ident[EI_CLASS] == ELFCLASS64 && header.e_type == ET_DYN;
  for (int i = 0; shared_object && i < header.e_phnum; ++i) {
    Elf64_Phdr segment{};
    file.seekg(static_cast<std::streamoff>(header.e_phoff + static_cast<Elf64_Off>(i) * header.e_phentsize));
    file.read(reinterpret_cast<char*>(&segment), sizeof(segment));
    shared_object = file && segment.p_type != PT_INTERP; // an executable names its dynamic loader
  }
  if (not shared_object)
    throw config::ConfigError(fmt::format("{} is not a program built with bxicc or bxicxx (bxisim runs shared objects "
                                          "that keep main exported). Rebuild it with bxicc/bxicxx in place of cc/c++.",
                                          program));
}

CpuSettings cpu_settings(const config::Parameters& parameters)
{
  return {parameters.boolean("cpu.simulate"), parameters.real("cpu.factor"), parameters.real("cpu.threshold")};
}

/** SimGrid's messages go to the real stderr rather than into a rank's output, unless --log chose an appender. */
void send_simulator_logs_to_original_stderr(const platform::SimulatorOptions& simulator_options)
{
  for (const auto& setting : simulator_options.log)
    if (setting.find(".app") != std::string::npos)
      return;
  xbt_log_appender_set(&_XBT_LOGV(root), xbt_log_appender_stream(OutputRouter::original_stderr()));
}

void report_deadlock(const std::vector<std::unique_ptr<Rank>>& ranks)
{
  FILE* out = OutputRouter::original_stderr();
  fmt::print(out, "bxisim: deadlock at simulated time {:.9f} s: no rank can progress anymore.\n",
             simgrid::s4u::Engine::get_clock());
  for (const auto& rank : ranks)
    if (rank->state() == RankState::Running)
      fmt::print(out, "bxisim:   rank {} waits for {}\n", rank->index(),
                 rank->waiting_for().empty() ? "a simulator operation" : rank->waiting_for());
  std::fflush(out);
}

/** The exit code of the run, after telling which ranks failed. */
int summarize(const std::vector<std::unique_ptr<Rank>>& ranks, bool deadlock)
{
  std::vector<std::string> failed;
  for (const auto& rank : ranks)
    if (rank->state() == RankState::Ended && rank->exit_code() != 0)
      failed.push_back(fmt::format("rank {} (exit code {})", rank->index(), rank->exit_code()));
  if (not failed.empty())
    fmt::print(stderr, "bxisim: {} of {} rank(s) failed: {}\n", failed.size(), ranks.size(), fmt::join(failed, ", "));
  if (deadlock)
    return kDeadlockExitCode;
  return failed.empty() ? 0 : kRankFailedExitCode;
}
} // namespace

int launch(const LaunchOptions& options, const config::Parameters& parameters,
           const platform::SimulatorOptions& simulator_options)
{
  if (options.command.empty())
    throw config::ConfigError("bxisim run: give the program to run, for example `bxisim run -n 4 ./a.out`.");
  const std::string& program = options.command.front();
  check_program(program);
  Rank::set_cpu_settings(cpu_settings(parameters));
  auto platform_config = platform::PlatformConfig::from_parameters(parameters);

  std::unique_ptr<simgrid::s4u::Engine> engine;
  std::optional<platform::Machine> machine;
  {
    platform::SetupAbortGuard guard;
    engine = platform::create_engine(simulator_options);
    machine.emplace(platform::build_machine(platform_config));
  }
  auto placements = map_ranks(*machine, options.ranks, options.ranks_per_node, options.map_by);

  std::vector<PrivatizedLibrary> libraries;
  for (const auto& name : options.privatized_libraries)
    libraries.push_back(find_privatized_library(name, program));

  RunFolder folder(options.keep_temps);
  std::vector<std::unique_ptr<Rank>> ranks;
  std::vector<std::string> copies;
  for (const auto& placement : placements) {
    const auto& node = machine->nodes()[static_cast<size_t>(placement.node)];
    ranks.push_back(
        std::make_unique<Rank>(placement, options.ranks, node.cores[static_cast<size_t>(placement.core)], node.name));
    copies.push_back(make_rank_copies(folder, placement.rank, program, libraries));
  }
  XBT_VERB("%d rank(s) of %s, copies in %s", options.ranks, program.c_str(), folder.path().c_str());

  PortalsLevel portals(options.level, *machine, ranks, parameters, options.trace_csv, options.vcd, options.vcd_signals);
  prepare_rank_services();
  install_crash_report(folder);
  bool deadlock = false;
  simgrid::s4u::Engine::on_deadlock_cb([&ranks, &deadlock] {
    deadlock = true;
    report_deadlock(ranks);
  });
  {
    OutputRouter router(options.ranks, options.output_dir);
    send_simulator_logs_to_original_stderr(simulator_options);
    for (size_t i = 0; i < ranks.size(); ++i) {
      Rank* rank = ranks[i].get();
      auto actor = simgrid::s4u::Actor::create(fmt::format("rank{}", i), rank->host(),
                                               [rank, copy = copies[i], argv = options.command, &portals] {
                                                 run_rank(*rank, copy, argv);
                                                 portals.rank_ended(*rank);
                                               });
      portals.register_rank_actor(actor->get_pid(), *rank);
    }
    engine->run();
  }
  XBT_VERB("simulation ended at %.9f s", simgrid::s4u::Engine::get_clock());
  portals.finish();
  if (options.nic_stats)
    portals.print_statistics();
  if (folder.kept())
    fmt::print(stderr, "bxisim: kept the temporary folder {} (--keep-temps).\n", folder.path());
  return summarize(ranks, deadlock);
}

} // namespace bxisim::runtime
