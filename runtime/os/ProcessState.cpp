#include "ProcessState.hpp"
#include "StandardInput.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <cxxabi.h>
#include <xmmintrin.h>

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

namespace
{
constexpr unsigned kFlagBits = 0x3f; // invalid, denormal, divide by zero, overflow, underflow, inexact: both units

/** The x87 environment as fnstenv stores it (32-bit protected mode layout, 28 bytes). */
struct X87Environment {
  uint32_t control, status, tags, instruction_offset, instruction_selector, operand_offset, operand_selector;
};
} // namespace

FloatingPointFlags take_floating_point_flags()
{
  FloatingPointFlags flags;
  unsigned csr = _mm_getcsr();
  flags.sse    = csr & kFlagBits;
  if (flags.sse != 0)
    _mm_setcsr(csr & ~kFlagBits);
  uint16_t status = 0;
  asm volatile("fnstsw %0" : "=m"(status));
  flags.x87 = status & kFlagBits;
  if (flags.x87 != 0)
    asm volatile("fnclex");
  return flags;
}

void put_floating_point_flags(const FloatingPointFlags& flags)
{
  unsigned csr = _mm_getcsr();
  if ((csr & kFlagBits) != flags.sse)
    _mm_setcsr((csr & ~kFlagBits) | flags.sse);
  uint16_t status = 0;
  asm volatile("fnstsw %0" : "=m"(status));
  if ((status & kFlagBits) == flags.x87)
    return;
  X87Environment environment{}; // only long double arithmetic raises these: a rare, slower path
  asm volatile("fnstenv %0" : "=m"(environment));
  environment.status = (environment.status & ~kFlagBits) | flags.x87;
  asm volatile("fldenv %0" : : "m"(environment));
}

void ProcessState::restore_globals() const
{
  put_floating_point_flags(floating_point);
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
  floating_point = take_floating_point_flags();
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
