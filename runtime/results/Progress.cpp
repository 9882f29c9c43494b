#include "Progress.hpp"

#include "RunRecorder.hpp"

#include <simgrid/s4u/Engine.hpp>

#include <fmt/format.h>

#include <cstdlib>
#include <mutex>
#include <unistd.h>

namespace bxisim::runtime
{

namespace
{
Progress* the_progress = nullptr;
// The line is drawn by the simulator's thread and erased by the output router's, which writes the
// ranks' output: one at a time.
std::mutex line_mutex;
} // namespace

bool Progress::wanted(bool quiet, std::FILE* out)
{
  const char* ci = std::getenv("CI");
  return not quiet && (ci == nullptr || *ci == '\0') && isatty(fileno(out)) == 1;
}

Progress::Progress(const RunRecorder& recorder, int ranks, std::FILE* out)
    : recorder_(recorder), ranks_(ranks), out_(out), start_(Clock::now())
{
  // Tests (and users who want the line at once) set BXISIM_PROGRESS_AFTER=0: a test must not depend
  // on how many wall seconds a run lasts on the machine that runs it.
  if (const char* after = std::getenv("BXISIM_PROGRESS_AFTER")) {
    char* end    = nullptr;
    double value = std::strtod(after, &end);
    if (end != after && *end == '\0' && value >= 0)
      first_after_ = value;
  }
  {
    std::lock_guard<std::mutex> lock(line_mutex);
    the_progress = this;
  }
  static bool connected = false;
  if (not connected) {
    connected = true;
    simgrid::s4u::Engine::on_time_advance_cb([](double) {
      if (the_progress != nullptr)
        the_progress->tick(simgrid::s4u::Engine::get_clock());
    });
  }
}

Progress::~Progress()
{
  clear();
  std::lock_guard<std::mutex> lock(line_mutex);
  the_progress = nullptr;
}

void Progress::tick(double simulated_time)
{
  if (++calls_ % 64 != 0 && shown_) // reading the wall clock costs; the engine advances often
    return;
  double wall = std::chrono::duration<double>(Clock::now() - start_).count();
  if (wall < first_after_ || (shown_ && wall - last_draw_ < kRefreshEvery))
    return;
  last_draw_   = wall;
  int finished = 0;
  for (int r = 0; r < ranks_; ++r)
    finished += recorder_.rank_end(r) >= 0 ? 1 : 0;
  const auto& a = recorder_.activities();
  double events = static_cast<double>(a.communications + a.executions + a.sleeps + a.time_steps);
  std::lock_guard<std::mutex> lock(line_mutex);
  fmt::print(out_,
             "\r\033[Kbxisim: simulated {:.6f} s | wall {:.1f} s | sim/wall {:.3g} | ranks finished {}/{} | {:.0f} "
             "events/s",
             simulated_time, wall, simulated_time / wall, finished, ranks_, events / wall);
  std::fflush(out_);
  shown_ = true;
}

void Progress::clear()
{
  std::lock_guard<std::mutex> lock(line_mutex);
  if (not shown_)
    return;
  fmt::print(out_, "\r\033[K");
  std::fflush(out_);
  shown_ = false;
}

void Progress::clear_for_output()
{
  std::lock_guard<std::mutex> lock(line_mutex);
  if (the_progress == nullptr || not the_progress->shown_)
    return;
  fmt::print(the_progress->out_, "\r\033[K");
  std::fflush(the_progress->out_);
  the_progress->shown_ = false;
}

} // namespace bxisim::runtime
