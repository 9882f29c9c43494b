/* The NIC's copy between a process's memory and a message, while it runs, for the crash report. A buffer address
 * that is not the process's (an uninitialized pointer given to Portals, or to MPI, whose library gives it to
 * Portals) faults inside that copy: in the simulator's code, where the report would otherwise blame the simulator,
 * not the rank that gave the address. */
#ifndef BXISIM_PORTALS_NIC_MEMORY_ACCESS_HPP
#define BXISIM_PORTALS_NIC_MEMORY_ACCESS_HPP

#include <portals4.h>

#include <cstdint>

namespace bxisim::portals
{

/** One side of the copy that is a process's memory. */
struct ProcessMemory {
  bool known          = false; // false: the message's own copy, or nothing
  uint32_t process    = 0;     // ProcessContext::id of its owner
  const void* address = nullptr;
  bool scattered      = false; // a PTL_IOVEC region: `address` is its first byte only
};

struct NicMemoryAccess {
  const char* what = ""; // what the NIC copies, e.g. "the data of a Put"
  ptl_size_t bytes = 0;
  ProcessMemory written; // where it goes
  ProcessMemory read;    // where it comes from
};

/** The copy under way, or nullptr (async-signal-safe: a crash handler reads it). */
const NicMemoryAccess* nic_memory_access_under_way() noexcept;

/** Marks `access` as under way for its lifetime. */
class NicMemoryAccessScope
{
 public:
  explicit NicMemoryAccessScope(const NicMemoryAccess& access) noexcept;
  ~NicMemoryAccessScope();
  NicMemoryAccessScope(const NicMemoryAccessScope&)            = delete;
  NicMemoryAccessScope& operator=(const NicMemoryAccessScope&) = delete;

 private:
  const NicMemoryAccess* outer_;
};

} // namespace bxisim::portals

#endif
