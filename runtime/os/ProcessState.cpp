#include "ProcessState.hpp"
#include "StandardInput.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <cxxabi.h>

namespace bxisim::os
{

ProcessState::ProcessState()
{
  initstate_r(1, random_table.data(), random_table.size(), &random);
  for (auto& action : signal_actions) {
    action.sa_handler = SIG_DFL;
    sigemptyset(&action.sa_mask);
  }
}

namespace
{
/** The layout of libstdc++'s __cxa_eh_globals (libsupc++/unwind-cxx.h), which <cxxabi.h> leaves opaque. */
struct EhGlobals {
  void* caught_exceptions;
  unsigned int uncaught_exceptions;
};
EhGlobals& eh_globals()
{
  return *reinterpret_cast<EhGlobals*>(abi::__cxa_get_globals());
}
} // namespace

ExceptionState read_exception_state()
{
  const EhGlobals& live = eh_globals();
  return {live.caught_exceptions, live.uncaught_exceptions};
}

void write_exception_state(const ExceptionState& state)
{
  EhGlobals& live          = eh_globals();
  live.caught_exceptions   = state.caught;
  live.uncaught_exceptions = state.uncaught;
}

void ProcessState::restore_globals() const
{
  put_floating_point_state(floating_point);
  ::optind = getopt_globals.optind;
  ::opterr = getopt_globals.opterr;
  ::optopt = getopt_globals.optopt;
  ::optarg = getopt_globals.optarg;
  write_exception_state(exceptions);
  show_stdin(reads_stdin);
}

void ProcessState::save_globals()
{
  getopt_globals = {::optind, ::opterr, ::optopt, ::optarg};
  exceptions     = read_exception_state();
  floating_point = take_floating_point_state();
}

bool ProcessState::belongs_to_rank(const void* address) const
{
  Dl_info info{};
  if (address == nullptr || dladdr(address, &info) == 0 || info.dli_fname == nullptr)
    return false;
  return own_folder_.size() > 0 && std::strncmp(info.dli_fname, own_folder_.c_str(), own_folder_.size()) == 0 &&
         info.dli_fname[own_folder_.size()] == '/';
}

void ProcessState::run_exit_handlers()
{
  while (not exit_handlers.empty()) {
    ExitHandler handler = exit_handlers.back();
    exit_handlers.pop_back();
    handler.function(handler.argument);
  }
}

} // namespace bxisim::os
