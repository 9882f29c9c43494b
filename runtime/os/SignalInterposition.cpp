// Signals as a rank sees them: the dispositions it installs (signal, sigaction) are its own, and
// kill, raise, sigqueue and pthread_kill aimed at itself act on it alone: its handler runs, or an
// unhandled signal ends the rank as it would end a process (reported with the signal's name). A rank
// can never signal a process of the host machine. Signals the hardware raises (SIGSEGV, ...) and
// those sent to bxisim from outside still go to bxisim's own handlers (a crash, a clean stop).

#include "ProcessState.hpp"
#include "RankEnd.hpp"
#include "RealFunctions.hpp"
#include "SimulatorCall.hpp"
#include "SimulatorSignals.hpp"
#include "runtime/launch/Rank.hpp"

#include <xbt/log.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <pthread.h>
#include <unistd.h>

XBT_LOG_EXTERNAL_DEFAULT_CATEGORY(bxisim_process);

namespace
{
using bxisim::os::running_rank;
using bxisim::runtime::Rank;

bool valid_signal(int signal_number)
{
  return signal_number >= 0 && signal_number < NSIG;
}

bool ignored_by_default(int signal_number)
{
  return signal_number == SIGCHLD || signal_number == SIGCONT || signal_number == SIGURG || signal_number == SIGWINCH;
}

bool stops_by_default(int signal_number)
{
  return signal_number == SIGSTOP || signal_number == SIGTSTP || signal_number == SIGTTIN || signal_number == SIGTTOU;
}

/** sigprocmask or pthread_sigmask (`real`) of the calling rank, without bxisim's own signals. */
int change_mask(int (*real)(int, const sigset_t*, sigset_t*), int how, const sigset_t* set, sigset_t* old_set)
{
  if (running_rank() == nullptr || set == nullptr || how == SIG_UNBLOCK)
    return real(how, set, old_set);
  sigset_t allowed = *set;
  bxisim::os::remove_simulator_signals(allowed);
  return real(how, &allowed, old_set);
}

/** What the kernel would do when `signal_number` reaches the rank, done on the rank. */
void deliver(Rank& rank, int signal_number, int code, sigval value)
{
  if (signal_number == 0)
    return; // only a check that the process exists
  struct sigaction& action = rank.process_state().signal_actions[static_cast<size_t>(signal_number)];
  bool with_info           = (action.sa_flags & SA_SIGINFO) != 0;
  if (not with_info && action.sa_handler == SIG_IGN)
    return;
  if (not with_info && action.sa_handler == SIG_DFL) {
    if (ignored_by_default(signal_number))
      return;
    if (stops_by_default(signal_number)) {
      XBT_WARN("rank %d: %s would stop the process; stopping a rank is not simulated, the signal is ignored.",
               rank.index(), sigabbrev_np(signal_number));
      return;
    }
    bxisim::os::end_rank_by_signal(rank, signal_number);
    XBT_WARN("rank %d: %s outside main (in a constructor of the program?) is ignored.", rank.index(),
             sigabbrev_np(signal_number));
    return;
  }
  struct sigaction handler = action;
  if ((action.sa_flags & SA_RESETHAND) != 0) {
    action.sa_handler = SIG_DFL;
    action.sa_flags &= ~SA_SIGINFO;
  }
  if (with_info) {
    siginfo_t info{};
    info.si_signo = signal_number;
    info.si_code  = code;
    info.si_pid   = rank.simulated_pid();
    info.si_uid   = getuid();
    info.si_value = value;
    handler.sa_sigaction(signal_number, &info, nullptr);
  } else {
    handler.sa_handler(signal_number);
  }
}

/** kill() and sigqueue() from a rank; `call` names the function in messages. */
int send(Rank& rank, pid_t pid, int signal_number, int code, sigval value, const char* call)
{
  if (not valid_signal(signal_number)) {
    errno = EINVAL;
    return -1;
  }
  if (pid == rank.simulated_pid()) {
    deliver(rank, signal_number, code, value);
    return 0;
  }
  int first_pid = Rank::kFirstSimulatedPid;
  if (pid >= first_pid && pid < first_pid + rank.size()) {
    if (signal_number == 0)
      return 0; // the other rank exists
    XBT_WARN("rank %d: %s(%d, SIG%s): signals between ranks are not simulated; the call fails with EPERM.",
             rank.index(), call, pid, sigabbrev_np(signal_number));
    errno = EPERM;
    return -1;
  }
  if (pid <= 0) {
    XBT_WARN("rank %d: %s(%d, SIG%s): signals to process groups are not simulated (bxisim never signals processes "
             "of the host); the call fails with EPERM.",
             rank.index(), call, pid, valid_signal(signal_number) ? sigabbrev_np(signal_number) : "?");
    errno = EPERM;
    return -1;
  }
  XBT_WARN("rank %d: %s(%d, ...): no rank has this pid (ranks have pids %d to %d); bxisim never signals processes of "
           "the host. The call fails with ESRCH.",
           rank.index(), call, pid, first_pid, first_pid + rank.size() - 1);
  errno = ESRCH;
  return -1;
}
} // namespace

extern "C" {

int sigaction(int signal_number, const struct sigaction* action, struct sigaction* old_action) noexcept
{
  Rank* rank = running_rank();
  if (rank == nullptr)
    return BXISIM_REAL(sigaction)(signal_number, action, old_action);
  if (signal_number <= 0 || signal_number >= NSIG ||
      (action != nullptr && (signal_number == SIGKILL || signal_number == SIGSTOP))) {
    errno = EINVAL;
    return -1;
  }
  auto& entry = rank->process_state().signal_actions[static_cast<size_t>(signal_number)];
  if (old_action != nullptr)
    *old_action = entry;
  if (action != nullptr)
    entry = *action;
  return 0;
}

sighandler_t signal(int signal_number, sighandler_t handler) noexcept
{
  if (running_rank() == nullptr)
    return BXISIM_REAL(signal)(signal_number, handler);
  struct sigaction action {
  };
  action.sa_handler = handler;
  action.sa_flags   = SA_RESTART; // BSD semantics, as glibc's signal()
  sigemptyset(&action.sa_mask);
  struct sigaction old_action {
  };
  if (sigaction(signal_number, &action, &old_action) != 0)
    return SIG_ERR;
  return old_action.sa_handler;
}

int kill(pid_t pid, int signal_number) noexcept
{
  Rank* rank = running_rank();
  if (rank == nullptr)
    return BXISIM_REAL(kill)(pid, signal_number);
  return send(*rank, pid, signal_number, SI_USER, sigval{}, "kill");
}

int sigqueue(pid_t pid, int signal_number, const sigval value) noexcept
{
  Rank* rank = running_rank();
  if (rank == nullptr)
    return BXISIM_REAL(sigqueue)(pid, signal_number, value);
  return send(*rank, pid, signal_number, SI_QUEUE, value, "sigqueue");
}

int raise(int signal_number) noexcept
{
  Rank* rank = running_rank();
  if (rank == nullptr)
    return BXISIM_REAL(raise)(signal_number);
  return send(*rank, rank->simulated_pid(), signal_number, SI_TKILL, sigval{}, "raise");
}

int killpg(pid_t group, int signal_number) noexcept
{
  Rank* rank = running_rank();
  if (rank == nullptr)
    return BXISIM_REAL(killpg)(group, signal_number);
  return send(*rank, group > 0 ? -group : group, signal_number, SI_USER, sigval{}, "killpg");
}

// A rank's mask is the simulator thread's: bxisim's own signals stay deliverable whatever the rank blocks.
int sigprocmask(int how, const sigset_t* set, sigset_t* old_set) noexcept
{
  return change_mask(BXISIM_REAL(sigprocmask), how, set, old_set);
}

int pthread_sigmask(int how, const sigset_t* set, sigset_t* old_set) noexcept
{
  return change_mask(BXISIM_REAL(pthread_sigmask), how, set, old_set);
}

// Every rank runs on the simulator's thread: pthread_self() in a rank is the rank's main thread.
int pthread_kill(pthread_t thread, int signal_number) noexcept
{
  Rank* rank = running_rank();
  if (rank == nullptr || not pthread_equal(thread, pthread_self()))
    return BXISIM_REAL(pthread_kill)(thread, signal_number);
  if (not valid_signal(signal_number))
    return EINVAL;
  deliver(*rank, signal_number, SI_TKILL, sigval{});
  return 0;
}

} // extern "C"
