#pragma once
// Exit codes of `bxisim run` (2, a usage error, is config::kUsageExitCode).

namespace bxisim::runtime
{

constexpr int kRankFailedExitCode =
    1; // a rank failed otherwise than by its exit code (which is the run's, as mpirun's)
constexpr int kDeadlockExitCode    = 3; // the simulation ended with ranks still blocked
constexpr int kCrashExitCode       = 4; // a rank (or the simulator) received SIGSEGV, SIGABRT, ...
constexpr int kLimitExitCode       = 5; // --wall-limit or --sim-time-limit reached
constexpr int kUnsupportedExitCode = 6; // a rank did something bxisim cannot simulate (the message names it)
// Stopped by SIGINT, SIGTERM or SIGPIPE: 128 + the signal's number (130, 143, 141), as a shell reports it.

} // namespace bxisim::runtime
