#include "CrashHeadline.hpp"

#include <cstdio>
#include <cstring>

namespace bxisim::runtime
{

namespace
{
/** Appends the diagnosis of a stack overflow to the headline in `line`, when `site` had one. */
void add_stack_overflow(char* line, size_t size, const CrashSite& site)
{
  size_t used = std::strlen(line);
  if (site.stack_kib == 0 || used == 0 || used + 1 >= size)
    return;
  std::snprintf(line + used - 1, size - used + 1, // over the final newline
                " It ran out of stack: the fault is at the end of its %zu KiB stack (deep recursion, large local "
                "arrays). Give every rank a larger one with --cfg contexts/stack-size:KiB (SimGrid's setting, in "
                "KiB).\n",
                site.stack_kib);
}
} // namespace

void crash_headline(char* line, size_t size, const char* signal_name, double now, CrashSite in_own_code,
                    CrashSite in_call, CrashSite last_in_code)
{
  if (in_own_code.rank >= 0) {
    std::snprintf(line, size, "bxisim: rank %d crashed (%s) on %s at simulated time %.9f s.\n", in_own_code.rank,
                  signal_name, in_own_code.node, now);
    add_stack_overflow(line, size, in_own_code);
  } else if (in_call.rank >= 0) {
    std::snprintf(line, size,
                  "bxisim: the simulator crashed (%s) inside a call of rank %d (MPI, Portals or a libc function "
                  "bxisim simulates) on %s at simulated time %.9f s: the backtrace shows the call and where it "
                  "failed, in the rank's arguments (a bad pointer) or in the simulator or its MPI library.\n",
                  signal_name, in_call.rank, in_call.node, now);
    add_stack_overflow(line, size, in_call);
  } else if (last_in_code.rank >= 0)
    // An allocator trips over a damaged heap at a later allocation or free, often one the simulator makes.
    std::snprintf(
        line, size,
        "bxisim: the simulator crashed (%s) in its own code, outside any rank's call, at simulated time "
        "%.9f s. The last rank whose own code ran is rank %d (on %s). When the backtrace goes through "
        "malloc or free (a rank's own heap, or the simulator's: tcmalloc may say why above), the heap was damaged "
        "earlier, most often by a program writing outside a buffer it allocated: check that rank's "
        "writes (array bounds, the counts and types given to MPI calls).\n",
        signal_name, now, last_in_code.rank, last_in_code.node);
  else
    std::snprintf(line, size, "bxisim: the simulator crashed (%s), outside the code of any rank.\n", signal_name);
}

void nic_access_headline(char* line, size_t size, const char* signal_name, double now, const void* fault,
                         const NicAccessSite& site)
{
  std::snprintf(line, size,
                "bxisim: rank %d crashed (%s) at simulated time %.9f s: its NIC could not %s the %zu bytes at %p (%s; "
                "%p is not the rank's memory%s). The rank gave Portals (or MPI, whose library passes its buffers to "
                "Portals) a buffer that does not hold this data: check the buffers and counts of its calls (an "
                "uninitialized pointer, MPI_IN_PLACE given by chance, a count larger than the buffer).\n",
                site.rank, signal_name, now, site.writes ? "write" : "read", site.bytes, site.address, site.what, fault,
                site.writes ? ", or not writable" : "");
}

} // namespace bxisim::runtime
