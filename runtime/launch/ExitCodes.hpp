#pragma once
// Exit codes of `bxisim run` (2, a usage error, is config::kUsageExitCode).

namespace bxisim::runtime
{

constexpr int kRankFailedExitCode  = 1; // a rank returned or exited with a non-zero code
constexpr int kDeadlockExitCode    = 3; // the simulation ended with ranks still blocked
constexpr int kCrashExitCode       = 4; // a rank (or the simulator) received SIGSEGV, SIGABRT, ...
constexpr int kUnsupportedExitCode = 5; // a rank did something bxisim cannot simulate (the message names it)

} // namespace bxisim::runtime
