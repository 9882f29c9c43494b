#pragma once
// Runs one fuzzer input in a child process, for code that can run once per process only: SimGrid
// loads one platform, and takes its settings once, per process (and stops the process when it
// rejects them). The child's exit code says how the input went:
//   0                    accepted;
//   config::kUsageExitCode  refused cleanly (a ConfigError, or SimGrid's own refusal through
//                        SetupAbortGuard): both are what bxisim shows a user as bad input;
// anything else (a signal, a sanitizer report, an exception that is not a ConfigError, a hang) is a
// finding: the parent prints what the child printed and aborts, so that libFuzzer (or
// fuzz_replay_<target>) records the input.
// A hang is a child that spins for kChildCpuSeconds of CPU time (SIGXCPU), or that is still running
// after kChildWallSeconds of wall time (SIGALRM: blocked). The CPU limit is the tight one: on a loaded
// machine, at `nice -n 19`, a child that needs 1 s of CPU can take more than 5 s of wall time, which
// a wall-clock limit alone took for a hang.
// libFuzzer does not see the child's coverage: these targets mutate their corpus without feedback.

#include "config/ConfigError.hpp"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace bxisim::fuzz
{

inline constexpr rlim_t kChildCpuSeconds    = 5;  // a child that used this much CPU spins
inline constexpr unsigned kChildWallSeconds = 60; // a child still running then is blocked (fuzz.sh: -timeout=90)
inline constexpr int kUnexpectedException   = 99; // exit code of a child that caught a foreign exception

/** Calls `body()` (returns an exit code; may throw) in a child; aborts this process on a finding. */
template <typename Body>
void run_in_child(Body body)
{
  int output = memfd_create("fuzz-child-output", 0);
  if (output < 0) {
    std::perror("memfd_create");
    std::abort();
  }
  std::fflush(nullptr);
  pid_t child = fork();
  if (child < 0) {
    std::perror("fork");
    std::abort();
  }
  if (child == 0) {
    dup2(output, STDOUT_FILENO);
    dup2(output, STDERR_FILENO);
    std::signal(SIGALRM, SIG_DFL); // libFuzzer's timeout handler is the parent's business
    std::signal(SIGXCPU, SIG_DFL);
    rlimit cpu{kChildCpuSeconds, kChildCpuSeconds + 1};
    setrlimit(RLIMIT_CPU, &cpu);
    alarm(kChildWallSeconds);
    int code = kUnexpectedException;
    try {
      code = body();
    } catch (const config::ConfigError&) {
      code = config::kUsageExitCode;
    } catch (const std::exception& error) {
      std::fprintf(stderr, "fuzz child: unexpected exception: %s\n", error.what());
    } catch (...) {
      std::fprintf(stderr, "fuzz child: unexpected exception of a foreign type\n");
    }
    std::fflush(nullptr);
    _exit(code); // no atexit handlers: they are the parent's (libFuzzer's)
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0) {
  }
  bool clean = WIFEXITED(status) && (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == config::kUsageExitCode);
  if (not clean) {
    std::string text(64 * 1024, '\0');
    ssize_t size = pread(output, text.data(), text.size(), 0);
    text.resize(size > 0 ? static_cast<size_t>(size) : 0);
    if (WIFEXITED(status))
      std::fprintf(stderr, "fuzz child: exit code %d; it printed:\n%s\n", WEXITSTATUS(status), text.c_str());
    else
      std::fprintf(stderr, "fuzz child: killed by signal %d (%s)%s; it printed:\n%s\n", WTERMSIG(status),
                   strsignal(WTERMSIG(status)),
                   WTERMSIG(status) == SIGALRM   ? ", a hang (blocked)"
                   : WTERMSIG(status) == SIGXCPU ? ", a hang (spins)"
                                                 : "",
                   text.c_str());
    close(output);
    std::abort();
  }
  close(output);
}

} // namespace bxisim::fuzz
