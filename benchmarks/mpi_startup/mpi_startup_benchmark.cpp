// Cost of one OpenMPI copy per rank (issue 10, items 5 and 6), not a test:
//  - start-up: MPI_Init + MPI_Finalize of 16, 64 and 256 ranks (8 per node, single switch): wall time
//    of the run, wall time of MPI_Init (first rank entering to last rank leaving, read with a raw
//    system call), peak resident memory, the memory in use at the end (the summary's proportional set
//    size: the code the OpenMPI copies share counts once, where the resident peak counts it per rank), and
//    the same run of a program without MPI for the baseline; memory per rank = (in use with MPI - in use
//    without) / ranks;
//  - polling: a 64 KiB ring exchange on 16 ranks with mpi.polling=block and =delay, wall and simulated
//    times, for both Portals paths.
// Each run is a child process; its peak memory is the kernel's ru_maxrss for it.

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <limits>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace
{
constexpr int kCoresPerNode = 8;

struct Run {
  double seconds    = 0;
  long peak_kib     = 0;
  double in_use_mib = -1; // from the summary table: "(X MiB in use at the end)"
  int exit_code     = 0;
  std::string output;
};

Run run(const std::vector<std::string>& arguments)
{
  std::vector<char*> argv;
  std::vector<std::string> copy = arguments;
  for (auto& argument : copy)
    argv.push_back(argument.data());
  argv.push_back(nullptr);
  char path[] = "/tmp/bxisim-mpi-startup-XXXXXX";
  int out     = mkstemp(path);
  auto start  = std::chrono::steady_clock::now();
  pid_t child = fork();
  if (child == 0) {
    dup2(out, 1);
    dup2(out, 2);
    execv(argv[0], argv.data());
    std::perror("execv");
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  wait4(child, &status, 0, &usage);
  Run result;
  result.seconds   = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.peak_kib  = usage.ru_maxrss;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  result.output = text.str();
  std::smatch in_use;
  if (std::regex_search(result.output, in_use, std::regex("\\(([0-9.]+) (B|KiB|MiB|GiB) in use at the end\\)"))) {
    static const std::map<std::string, double> mib = {
        {"B", 1.0 / 1048576}, {"KiB", 1.0 / 1024}, {"MiB", 1}, {"GiB", 1024}};
    result.in_use_mib = std::stod(in_use[1]) * mib.at(in_use[2]);
  }
  close(out);
  unlink(path);
  return result;
}

std::vector<std::string> bxisim_run(int ranks, const std::vector<std::string>& options, const std::string& program,
                                    const std::vector<std::string>& program_arguments)
{
  int nodes                     = (ranks + kCoresPerNode - 1) / kCoresPerNode;
  std::vector<std::string> args = {BXISIM_BINARY, "run",
                                   "--platform",  "single-switch",
                                   "--set",       "platform.nodes=" + std::to_string(nodes),
                                   "--set",       "node.cores=" + std::to_string(kCoresPerNode),
                                   "-n",          std::to_string(ranks)};
  args.insert(args.end(), options.begin(), options.end());
  args.push_back(program);
  args.insert(args.end(), program_arguments.begin(), program_arguments.end());
  return args;
}

/** Every value of `key=<number>` in the output. */
std::vector<double> values(const std::string& output, const std::string& key)
{
  std::vector<double> found;
  std::regex pattern("\\b" + key + "=([0-9.eE+-]+)");
  for (auto it = std::sregex_iterator(output.begin(), output.end(), pattern); it != std::sregex_iterator(); ++it)
    found.push_back(std::stod((*it)[1]));
  return found;
}
} // namespace

int main()
{
  int failures = 0;
  std::printf("start-up (MPI_Init + MPI_Finalize), %d ranks per node, pml ob1:\n", kCoresPerNode);
  std::printf("%6s %10s %12s %12s %12s %14s %14s\n", "ranks", "run wall s", "MPI_Init s", "peak MiB", "in use MiB",
              "baseline MiB", "MiB per rank");
  double per_rank_at_largest = 0;
  double baseline_at_largest = 0;
  for (int ranks : {16, 64, 256}) {
    Run mpi      = run(bxisim_run(ranks, {}, BXISIM_OPENMPI_COPY_PROGRAM, {"init"}));
    Run baseline = run(bxisim_run(ranks, {}, BXISIM_TRIVIAL_PROGRAM, {}));
    auto starts = values(mpi.output, "wall_init_start"), ends = values(mpi.output, "wall_init_end");
    double init     = starts.empty() || ends.empty()
                          ? -1
                          : *std::max_element(ends.begin(), ends.end()) - *std::min_element(starts.begin(), starts.end());
    double per_rank = (mpi.in_use_mib - baseline.in_use_mib) / ranks;
    std::printf("%6d %10.2f %12.2f %12.1f %12.1f %14.1f %14.2f%s\n", ranks, mpi.seconds, init, mpi.peak_kib / 1024.0,
                mpi.in_use_mib, baseline.in_use_mib, per_rank,
                mpi.exit_code != 0 || static_cast<int>(starts.size()) != ranks ? "  (run FAILED)" : "");
    if (mpi.exit_code != 0 || static_cast<int>(starts.size()) != ranks) {
      ++failures;
      std::fputs(mpi.output.substr(0, 4000).c_str(), stdout);
    }
    per_rank_at_largest = per_rank;
    baseline_at_largest = baseline.in_use_mib / ranks;
  }
  double budget = 24.0 * 1024; // MiB
  std::printf("largest job in 24 GiB at %.2f MiB per rank (+%.2f MiB of bxisim per rank): about %.0f ranks\n",
              per_rank_at_largest, baseline_at_largest, budget / (per_rank_at_largest + baseline_at_largest));

  std::printf("\npolling: 64 KiB ring on 16 ranks (2 nodes), CPU simulation off:\n");
  std::printf("%5s %8s %10s %16s %16s\n", "pml", "polling", "wall s", "ring sim s (max)", "end sim s (max)");
  for (const char* pml : {"ob1", "cm"})
    for (const char* polling : {"block", "delay"}) {
      Run ring =
          run(bxisim_run(16, {"--no-cpu-simulation", "--pml", pml, "--set", std::string("mpi.polling=") + polling},
                         BXISIM_OPENMPI_COPY_PROGRAM, {"ring", "65536"}));
      auto ring_times = values(ring.output, "ring_time"), end_times = values(ring.output, "end_time");
      bool ok = ring.exit_code == 0 && ring_times.size() == 16;
      std::printf("%5s %8s %10.2f %16.9f %16.9f%s\n", pml, polling, ring.seconds,
                  ok ? *std::max_element(ring_times.begin(), ring_times.end()) : -1.0,
                  ok ? *std::max_element(end_times.begin(), end_times.end()) : -1.0, ok ? "" : "  (run FAILED)");
      if (not ok) {
        ++failures;
        std::fputs(ring.output.substr(0, 4000).c_str(), stdout);
      }
    }
  return failures == 0 ? 0 : 1;
}
