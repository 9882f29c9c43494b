#pragma once
// The one-line progress display of long runs: after two wall seconds, a line on stderr refreshed in
// place (simulated time, wall time, their ratio, ranks finished, SimGrid events per second). Off when
// stderr is not a terminal, with --quiet, and when the CI environment variable is set.

#include <atomic>
#include <chrono>
#include <cstdio>

namespace bxisim::runtime
{

class RunRecorder;

class Progress
{
 public:
  /** Whether a run started now would show progress (`quiet`: --quiet). */
  static bool wanted(bool quiet, std::FILE* out);
  /** Shows progress on `out` while the engine runs, reading counts from `recorder`. */
  Progress(const RunRecorder& recorder, int ranks, std::FILE* out);
  ~Progress();
  Progress(const Progress&)            = delete;
  Progress& operator=(const Progress&) = delete;

  /** Called as simulated time advances: redraws the line when due. */
  void tick(double simulated_time);
  /** Removes the line (before the run's own messages follow). */
  void clear();
  /** Removes the line of the run in progress, if one is shown, before the ranks' output is written to the
   * terminal (from the output router's thread): ranks' lines must not be appended to it. */
  static void clear_for_output();

 private:
  using Clock                           = std::chrono::steady_clock;
  static constexpr double kFirstAfter   = 2.0;  // wall seconds before the line appears (BXISIM_PROGRESS_AFTER)
  static constexpr double kRefreshEvery = 0.25; // wall seconds between two redraws
  const RunRecorder& recorder_;
  int ranks_;
  std::FILE* out_;
  Clock::time_point start_;
  double first_after_ = kFirstAfter;
  double last_draw_   = 0;
  std::atomic<bool> shown_{false}; // also cleared by the output router's thread
  unsigned long calls_ = 0;
};

} // namespace bxisim::runtime
