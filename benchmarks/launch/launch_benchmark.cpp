// Launch time and peak memory of `bxisim run` for 1, 64 and 1024 ranks of a trivial program.
//
// Each run is a child process: its wall time is measured around fork/exec/wait, its peak resident
// memory is the kernel's ru_maxrss of that child. The machine is a single switch with 8 cores per
// node and as many nodes as the ranks need. Prints one line per rank count (and a CSV with --csv).

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace
{
constexpr int kCoresPerNode = 8;

struct Measure {
  int ranks;
  double seconds;
  long peak_kib;
  int exit_code;
};

Measure run_once(const std::string& bxisim, const std::string& program, int ranks)
{
  int nodes                          = (ranks + kCoresPerNode - 1) / kCoresPerNode;
  std::vector<std::string> arguments = {bxisim,       "run",
                                        "--platform", "single-switch",
                                        "--set",      "platform.nodes=" + std::to_string(nodes),
                                        "--set",      "node.cores=" + std::to_string(kCoresPerNode),
                                        "-n",         std::to_string(ranks),
                                        program};
  std::vector<char*> argv;
  for (auto& argument : arguments)
    argv.push_back(argument.data());
  argv.push_back(nullptr);

  auto start  = std::chrono::steady_clock::now();
  pid_t child = fork();
  if (child == 0) {
    execv(argv[0], argv.data());
    std::perror("execv");
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  wait4(child, &status, 0, &usage);
  std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  return {ranks, elapsed.count(), usage.ru_maxrss, WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status)};
}
} // namespace

int main(int argc, char** argv)
{
  std::string bxisim  = BXISIM_BINARY;
  std::string program = BXISIM_TRIVIAL_PROGRAM;
  bool csv            = argc > 1 && std::strcmp(argv[1], "--csv") == 0;
  int failures        = 0;
  if (csv)
    std::printf("ranks,seconds,peak_memory_kib\n");
  for (int ranks : {1, 64, 1024}) {
    Measure best = run_once(bxisim, program, ranks);
    for (int repeat = 1; repeat < 3; ++repeat) { // the best of three: launch time, not machine noise
      Measure again = run_once(bxisim, program, ranks);
      if (again.seconds < best.seconds)
        best = again;
    }
    failures += best.exit_code != 0;
    if (csv)
      std::printf("%d,%.4f,%ld\n", ranks, best.seconds, best.peak_kib);
    else
      std::printf("%5d ranks: %8.3f s wall, %8.1f MiB peak resident memory%s\n", ranks, best.seconds,
                  static_cast<double>(best.peak_kib) / 1024.0, best.exit_code != 0 ? " (run FAILED)" : "");
  }
  return failures == 0 ? 0 : 1;
}
