#include "RunCommand.hpp"

#include "config/ConfigError.hpp"
#include "config/Spelling.hpp"
#include "platforms/WireFaults.hpp"
#include "runtime/launch/Launcher.hpp"
#include "runtime/launch/StartAgain.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <memory>
#include <regex>
#include <unistd.h>

namespace bxisim::runtime
{

namespace
{
struct RunCommandOptions {
  LaunchOptions launch;
  std::string map_by = "core";
  std::string cpu_factor;
  std::string cpu_threshold;
  bool no_cpu_simulation = false;
  std::string e2e;
  std::vector<std::string> mca;      // KEY VALUE pairs
  std::vector<std::string> exported; // -x VAR=VALUE or VAR, as mpirun's
  std::string pml;
  std::string working_folder;       // --wdir
  std::vector<std::string> regions; // name=level
  std::vector<std::string> faults;  // link=NAME,down=T1[,up=T2] or link=NAME,profile=FILE
};
/**
 * What to say when the word where the program should be is an option: options of mpirun and smpirun
 * a user may try, with bxisim's way of doing the same.
 */
std::string unknown_option_message(const std::string& word, const CLI::App& run)
{
  std::string name = word.substr(0, word.find('='));
  std::string hint;
  if (name == "-H" || name == "--host" || name == "-host" || name == "--hostfile" || name == "-hostfile" ||
      name == "--machinefile" || name == "-machinefile")
    hint = " The machine is the simulated platform: choose it with --platform (and its size with --set "
           "platform.nodes=N; `bxisim platform --help`).";
  else if (name == "--output-filename" || name == "-output-filename")
    hint = " Each rank's output to files of its own: --output-dir DIR.";
  else if (name == "--timestamp-output" || name == "-timestamp-output")
    hint = " Leave it out: lines carry no wall-clock time in bxisim; --tag-output prefixes each with its rank.";
  else if (name == "-trace")
    hint = " smpirun's -trace is --trace DIR here: a timeline of the run in DIR/trace.json.";
  else if (name == "-c" || name == "--cpus-per-proc" || name == "--cpus-per-rank")
    hint = " The number of ranks is -n N; a rank runs on one simulated core (its OpenMP threads on the node's).";
  else if (name.compare(0, 2, "--") == 0) {
    std::vector<std::string> names;
    for (const CLI::Option* option : run.get_options())
      for (const std::string& long_name : option->get_lnames())
        names.push_back("--" + long_name);
    hint = config::did_you_mean(name, std::vector<std::string_view>(names.begin(), names.end()));
  }
  return fmt::format("{}: not an option of bxisim run; its options come before the program (bxisim run --help lists "
                     "them).{}",
                     word, hint);
}

/** A long option of `bxisim run` among the program's arguments: as with mpirun it is the program's, which users
 *  mistake (`bxisim run -n 2 ./app --level cycle` runs at the default level). Said once, not refused: the program
 *  may take an option of that name. */
void note_options_after_the_program(const CLI::App& run, const std::vector<std::string>& command)
{
  for (size_t i = 1; i < command.size(); ++i) {
    const std::string& word = command[i];
    if (word.size() < 3 || word.compare(0, 2, "--") != 0)
      continue;
    std::string name = word.substr(0, word.find('='));
    for (const CLI::Option* option : run.get_options())
      for (const std::string& long_name : option->get_lnames())
        if ("--" + long_name == name) {
          std::fprintf(stderr,
                       "bxisim: note: %s comes after the program %s, so it is the program's argument, not bxisim's "
                       "option; put bxisim's options before the program (as with mpirun).\n",
                       name.c_str(), command.front().c_str());
          return;
        }
  }
}
} // namespace

void accept_mpirun_spellings(const CLI::App& app, int argc, char** argv)
{
  static char kRanks[]        = "-n";
  static char kRanksPerNode[] = "--ppn";
  static char kWallLimit[]    = "--wall-limit";
  static std::deque<std::string> rewritten; // argv points into it for the rest of the run
  const CLI::App* run = nullptr;
  int i               = 1;
  for (; i < argc && run == nullptr; ++i)
    if (std::string(argv[i]) == "run")
      run = app.get_subcommand("run");
  if (run == nullptr)
    return;
  // Walk run's options up to the program: each option takes its values with it.
  while (i < argc) {
    std::string word = argv[i];
    std::string name = word.substr(0, word.find('='));
    bool attached    = name.size() < word.size();
    if (name == "-np" || name == "--np" || name == "--n") // mpirun's and smpirun's spellings of -n
      argv[i] = attached ? rewritten.emplace_back("-n" + word.substr(name.size() + 1)).data() : kRanks;
    else if (name == "-N" || name == "--npernode" || name == "-npernode") // mpirun's ranks per node
      argv[i] = attached ? rewritten.emplace_back("--ppn" + word.substr(name.size())).data() : kRanksPerNode;
    else if (name == "--timeout" || name == "-timeout") // mpirun's: end the job after so many wall seconds
      argv[i] = attached ? rewritten.emplace_back("--wall-limit" + word.substr(name.size())).data() : kWallLimit;
    else if (std::regex_match(word, std::regex("-N[0-9]+")))
      argv[i] = rewritten.emplace_back("--ppn=" + word.substr(2)).data();
    else if ((name == "--map-by" || name == "-map-by") && (attached || i + 1 < argc)) {
      // mpirun's ppr:N:node is N ranks per node, filled in order; its slot is bxisim's core
      std::string mapping = attached ? word.substr(name.size() + 1) : argv[i + 1];
      std::string option  = "--map-by";
      std::smatch per_node;
      if (std::regex_match(mapping, per_node, std::regex("ppr:([0-9]+):node")))
        std::tie(option, mapping) = std::pair<std::string, std::string>("--ppn", per_node[1].str());
      else if (mapping == "slot")
        mapping = "core";
      else if (mapping != "core" && mapping != "node")
        throw config::ConfigError(fmt::format("--map-by {}: bxisim maps ranks by core (fill a node, then the next; "
                                              "mpirun's slot) or by node (round-robin). For P ranks per node give "
                                              "--ppn P (mpirun's ppr:P:node).",
                                              mapping));
      if (attached) {
        argv[i] = rewritten.emplace_back(option + "=" + mapping).data();
      } else {
        argv[i]     = rewritten.emplace_back(option).data();
        argv[i + 1] = rewritten.emplace_back(mapping).data();
      }
    } else if (name.size() > 2 && name[1] != '-' && name[0] == '-' && name != "-trace" && // smpirun's: a flag
               run->get_option_no_throw("-" + name) != nullptr)
      argv[i] = rewritten.emplace_back("-" + word).data(); // mpirun's one-dash long options: -mca, -oversubscribe
    word = argv[i];
    if (word.size() < 2 || word[0] != '-')
      return; // the program
    name = word.substr(0, word.find('='));
    if ((name == "--wdir" || name == "--wd") && (name.size() < word.size() || i + 1 < argc)) {
      // As a cd before the run: every path after it, bxisim's options' too, is taken from there
      std::string folder = name.size() < word.size() ? word.substr(name.size() + 1) : argv[i + 1];
      std::error_code error;
      runtime::note_start_folder(std::filesystem::current_path(error).string()); // to start again from there
      if (chdir(folder.c_str()) != 0)
        throw config::ConfigError(
            fmt::format("{} {}: cannot go there ({}); give an existing folder.", name, folder, std::strerror(errno)));
    }
    const CLI::Option* option = run->get_option_no_throw(name);
    if (option == nullptr)
      option = app.get_option_no_throw(name); // bxisim's common options (--platform, --set...), accepted after run
    if (option == nullptr && name.size() > 2 && name[1] != '-' &&
        run->get_option_no_throw(name.substr(0, 2)) != nullptr)
      attached = true;          // -n4: a short option and its value
    else if (option == nullptr) // before -n too (CLI11 would only say that -n is missing)
      throw config::ConfigError(unknown_option_message(word, *run));
    if (attached || name.size() < word.size() || option->get_expected_max() == 0) // a flag takes no word
      i += 1;
    else
      i += 1 + std::max(0, option->get_type_size_max());
  }
}

void add_run_command(CLI::App& app, CommonOptions& common, int& exit_code, RunManners manners)
{
  auto options = std::make_shared<RunCommandOptions>();
  if (manners == RunManners::Mpirun) {
    options->launch.rank_prefix = false;
    options->launch.quiet       = true;
  }
  auto* command = app.add_subcommand(
      "run",
      "Run a program built with bxicc/bxicxx as N simulated ranks: bxisim run -n N [options] ./program [arguments...]");
  command->add_option("-n,--ranks", options->launch.ranks, "Number of ranks (-np N too, as for mpirun)")->required();
  command->add_option("--ppn", options->launch.ranks_per_node, "Ranks per node (default: one per core of a node)");
  command->add_option("--map-by", options->map_by, "core: fill a node before the next (default); node: round-robin")
      ->check(CLI::IsMember({"core", "node"}));
  command->add_option("--privatize-lib", options->launch.privatized_libraries,
                      "Give each rank its own copy of this shared library, as of the program (repeatable)");
  command->add_flag("--keep-temps", options->launch.keep_temps,
                    "Keep the temporary folder holding the ranks' copies of the program");
  command
      ->add_option("--output-dir", options->launch.output_dir,
                   "Write each rank's output to DIR/rank-N.stdout and DIR/rank-N.stderr instead of prefixing it "
                   "(DIR is made if missing, as mpirun's --output-filename does)")
      ->check([](const std::string& folder) -> std::string {
        std::error_code error;
        std::filesystem::create_directories(folder, error);
        if (error || not std::filesystem::is_directory(folder))
          return "cannot make the folder " + folder + (error ? ": " + error.message() : std::string()) +
                 "; name a folder bxisim may write in";
        return {};
      });
  command
      ->add_flag_function(
          "--no-rank-prefix", [options](int64_t) { options->launch.rank_prefix = false; },
          "Let ranks write to bxisim's stdout and stderr as they are, without the [rank N] prefix, as smpirun and "
          "mpirun do: no pipe and no check at each switch between ranks (faster for programs that exchange many "
          "small messages); lines of different ranks may mix")
      ->excludes("--output-dir");
  command->add_flag_function(
      "--tag-output", [options](int64_t) { options->launch.rank_prefix = true; },
      "Prefix each line with its rank ([rank N]), as mpirun's --tag-output (bxisim run's default; bxirun's is the "
      "output as the ranks write it)");
  command
      ->add_option(
          "--level", options->launch.level,
          "Accuracy level: smpi (MPI calls to SimGrid's SMPI, any platform, no NIC model), message "
          "(OpenMPI per rank over Portals, SimGrid actors per NIC) or cycle (the SystemC cycle-approximate NIC)")
      ->default_str("message");
  command->add_option("--region", options->regions,
                      "Run region NAME (bxisim/region.h) at LEVEL whatever the code says: --region NAME=LEVEL "
                      "(repeatable)");
  command->add_option("--regions-json", options->launch.regions_json,
                      "Write the regions' simulated and wall times to FILE as JSON");
  command->add_option("--trace-csv", options->launch.trace_csv,
                      "Write an S4BXI-compatible trace of the NIC operations to DIR/operations.csv");
  command->add_option("--vcd", options->launch.vcd,
                      "Write a VCD of the cycle NIC's signals (queue occupancy, credits, busy stages) to FILE.vcd "
                      "(--level cycle), for GTKWave");
  command->add_option("--vcd-signals", options->launch.vcd_signals,
                      "Trace only the signals whose name contains PATTERN (e.g. node0.link_port)");
  command->add_option("--summary", options->launch.summary,
                      "Write the run's summary (JSON, docs/outputs.md) to FILE instead of summary.json in --output-dir "
                      "or the current folder");
  command->add_flag("--no-summary", options->launch.no_summary, "Write no summary.json");
  command->add_flag("-q,--quiet", options->launch.quiet,
                    "No summary table and no progress line on stderr at the end (summary.json is still written)");
  command->add_option("--trace", options->launch.trace,
                      "Write a timeline of the run to DIR/trace.json (Chrome trace events: open it in Perfetto or "
                      "chrome://tracing, or draw it with `bxisim trace render DIR`)");
  command->add_flag("--nic-stats", options->launch.nic_stats,
                    "At the end, print the NIC models' counters on stderr (flow-control and credit stalls, TLB "
                    "hits, retransmissions...)");
  command
      ->add_option("--e2e", options->e2e,
                   "End-to-end reliability of the NICs: on (default) or off; shorthand for "
                   "--set nic.e2e=...")
      ->check(CLI::IsMember({"on", "off"}));
  command
      ->add_option("--watchdog", options->launch.watchdog,
                   "Warn (once, with a backtrace) when a rank runs this many wall seconds without calling the "
                   "simulator; 0: never")
      ->check(CLI::NonNegativeNumber)
      ->default_str("10");
  command
      ->add_option("--preempt-after", options->launch.preempt_after,
                   "When no rank has called the simulator for this many wall seconds, the rank running its own "
                   "code is busy-waiting (on memory a NIC or another rank writes): pause it after every millisecond "
                   "of its code, each pause adding 100 ns of simulated time when its computation is not simulated, "
                   "so that the others run. 0: never")
      ->check(CLI::NonNegativeNumber)
      ->default_str("1");
  command
      ->add_option("--wall-limit", options->launch.wall_limit,
                   "Stop the run after this many wall-clock seconds, saying where each rank was (exit code 5)")
      ->check(CLI::PositiveNumber);
  command
      ->add_option("--sim-time-limit", options->launch.sim_time_limit,
                   "Stop the run at this simulated time in seconds, saying where each rank was (exit code 5)")
      ->check(CLI::PositiveNumber);
  command->add_option("--fault", options->faults,
                      "Take a link down: link=NAME,down=T1[,up=T2] (times such as 10us), or "
                      "link=NAME,profile=FILE (a SimGrid state profile); repeatable; adds to fault.links. Random "
                      "losses: --set fault.loss_rate=P (fault.seed=S)");
  command->add_option("--cpu-factor", options->cpu_factor, "Shorthand for --set cpu.factor=X");
  command->add_option("--cpu-threshold", options->cpu_threshold, "Shorthand for --set cpu.threshold=T");
  command->add_flag("--no-cpu-simulation", options->no_cpu_simulation, "Shorthand for --set cpu.simulate=false");
  command->add_option("-x", options->exported,
                      "Set an environment variable for the ranks, as mpirun's -x: -x VAR=VALUE (every rank shares "
                      "bxisim's environment; -x VAR, which mpirun needs to pass VAR on, changes nothing)");
  command->add_option("--mca", options->mca,
                      "Set an MCA parameter of the ranks' OpenMPI: --mca KEY VALUE (repeatable; see docs/mpi.md)");
  command
      ->add_option("--pml", options->pml,
                   "OpenMPI's Portals path: ob1 (btl portals4, default) or cm (mtl "
                   "portals4); shorthand for --set mpi.pml=...")
      ->check(CLI::IsMember({"ob1", "cm"}));
  // Taken, as a cd, by accept_mpirun_spellings before any path is read; declared here for --help and the parse.
  command->add_option(
      "--wdir,--wd", "Run in folder DIR, as mpirun's -wdir: the program, its input files and the paths given to bxisim "
                     "are then taken from there, as after a cd");
  command->add_flag_function(
      "--oversubscribe", [options](int64_t) { options->launch.core_sharing = CoreSharing::Allowed; },
      "Let ranks outnumber their node's cores, as mpirun's --oversubscribe: ranks beyond a node's cores share them "
      "round-robin (SimGrid splits a core between the computations on it), and -n beyond the platform's cores "
      "spreads the ranks over every node. Without it each rank has a core of its own");
  // mpirun's options that scripts pass out of habit and that have nothing to do in a simulation: accepted, so that
  // `MPIEXEC=bxirun` works with them, and said so in the help.
  const char* kNothingToDo = "mpirun's options that change nothing here";
  command->add_flag("--allow-run-as-root", "Accepted as mpirun's; bxisim runs as any user")->group(kNothingToDo);
  command->add_option("--bind-to", "Accepted as mpirun's (any value); ranks run on simulated cores, nothing to bind")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)
      ->group(kNothingToDo);
  command->add_flag("--report-bindings", "Accepted as mpirun's; nothing is bound, nothing to report")
      ->group(kNothingToDo);
  command->add_flag("--use-hwthread-cpus", "Accepted as mpirun's; the simulated nodes' cores are --set node.cores")
      ->group(kNothingToDo);
  // Everything from the program on belongs to the program, options included. CLI11 hands unknown
  // words to the parent command before it honours prefix_command, so `run` takes no fallthrough and
  // declares the common options itself.
  common.declare(*command);
  command->fallthrough(false);
  command->prefix_command();
  // A repeatable option takes one value per occurrence: `--set a=1 ./program` must leave the program.
  for (auto* option : command->get_options())
    if (option->get_name() != "--mca")
      option->allow_extra_args(false);
  command->get_option("--mca")
      ->type_size(2)
      ->expected(1, CLI::detail::expected_max_vector_size)
      ->allow_extra_args(false);
  command->callback([command, &common, options, &exit_code, manners] {
    if (manners == RunManners::Mpirun && options->launch.summary.empty())
      options->launch.no_summary = true; // mpirun leaves no file behind
    if (command->count("--ppn") > 0 && options->launch.ranks_per_node < 1)
      throw config::ConfigError(fmt::format("--ppn {}: give at least one rank per node (or leave --ppn out for one "
                                            "rank per core).",
                                            options->launch.ranks_per_node));
    options->launch.command = command->remaining();
    if (not options->launch.command.empty() && options->launch.command.front().size() > 1 &&
        options->launch.command.front()[0] == '-')
      throw config::ConfigError(unknown_option_message(options->launch.command.front(), *command));
    note_options_after_the_program(*command, options->launch.command);
    for (const auto& variable : options->exported) {
      auto equal = variable.find('=');
      if (equal == 0)
        throw config::ConfigError(fmt::format("-x {}: give VAR=VALUE (or VAR).", variable));
      if (equal != std::string::npos) // before anything reads it: the ranks, OpenMPI's copies, OpenMP's runtime
        setenv(variable.substr(0, equal).c_str(), variable.substr(equal + 1).c_str(), 1);
    }
    // --level, else BXISIM_LEVEL from the environment, else message.
    const char* level_variable = std::getenv("BXISIM_LEVEL");
    if (command->get_option("--level")->count() == 0 && level_variable != nullptr && *level_variable != '\0') {
      options->launch.level = level_variable;
      if (options->launch.level != "smpi" && options->launch.level != "message" && options->launch.level != "cycle")
        throw config::ConfigError(fmt::format("BXISIM_LEVEL={} (from the environment): unknown level; the levels are "
                                              "smpi, message and cycle (or unset BXISIM_LEVEL, or give --level).",
                                              options->launch.level));
    }
    for (const auto& region : options->regions) {
      auto equal = region.find('=');
      if (equal == std::string::npos)
        throw CLI::ValidationError("--region", "expected NAME=LEVEL, for example --region solve=smpi");
      options->launch.regions.emplace_back(region.substr(0, equal), region.substr(equal + 1));
    }
    options->launch.map_by        = options->map_by == "node" ? MapBy::Node : MapBy::Core;
    config::Parameters parameters = common.parameters();
    if (not options->cpu_factor.empty())
      parameters.set("cpu.factor", options->cpu_factor, "--cpu-factor");
    if (not options->cpu_threshold.empty())
      parameters.set("cpu.threshold", options->cpu_threshold, "--cpu-threshold");
    if (not options->e2e.empty())
      parameters.set("nic.e2e", options->e2e, "--e2e");
    if (options->no_cpu_simulation)
      parameters.set("cpu.simulate", "false", "--no-cpu-simulation");
    if (not options->pml.empty())
      parameters.set("mpi.pml", options->pml, "--pml");
    if (not options->faults.empty()) {
      std::string links = parameters.text("fault.links");
      for (const auto& fault : options->faults) {
        platform::FaultSpec::parse_fault(fault, "--fault"); // its own message, before any other check
        links += (links.empty() ? "" : ";") + fault;
      }
      parameters.set("fault.links", links, "--fault");
    }
    for (size_t i = 0; i + 1 < options->mca.size(); i += 2)
      options->launch.mca.emplace_back(options->mca[i], options->mca[i + 1]);
    exit_code = launch(options->launch, parameters, common.simulator_options());
  });
}

} // namespace bxisim::runtime
