#pragma once
// The first lines of a crash report (CrashReport): which rank's code crashed, or which rank's call, or, in the
// simulator itself, which rank ran its own code last. Apart from the handler, so that it can be tested.

#include <cstddef>

namespace bxisim::runtime
{

/** A rank, for a crash report: its index (-1: none) and its node's name. */
struct CrashSite {
  int rank         = -1;
  const char* node = "";
  size_t stack_kib = 0; // not 0: the fault is at the end of the rank's stack, of that many KiB (an overflow)
};

/** A fault inside the NIC's copy of a rank's memory (portals/core/NicMemoryAccess.hpp): whose memory, which buffer,
 * what the NIC copied. */
struct NicAccessSite {
  int rank            = -1; // -1: the fault is not in such a copy
  bool writes         = false;
  const void* address = nullptr; // the buffer's first byte
  size_t bytes        = 0;
  const char* what    = "";
};

/** Writes the report's first lines into `line` (no allocation: the signal handler calls it). The crash happened
 * in the own code of `in_own_code`, else inside a simulator call of `in_call`, else in the simulator itself,
 * where `last_in_code`, the last rank whose own code ran, is named. */
void crash_headline(char* line, size_t size, const char* signal_name, double now, CrashSite in_own_code,
                    CrashSite in_call, CrashSite last_in_code);

/** The first lines of a crash inside the NIC's copy of `site.rank`'s memory, at `fault`: the rank gave an address
 * that is not its memory (or not writable), which the report says, instead of blaming the simulator's code. */
void nic_access_headline(char* line, size_t size, const char* signal_name, double now, const void* fault,
                         const NicAccessSite& site);

} // namespace bxisim::runtime
