#pragma once
// After a crash, the backtrace's frames in the program's code (the rank's copies of the program and of its libraries)
// as functions and source lines, read by addr2line from the original files (a copy's debugging sections may be
// given back to the disk: ProgramCopies shares its pages).

namespace bxisim::runtime
{

/** Writes on `fd` the frames of `frames` (backtrace's, taken in the crash handler) that lie in files of `run_folder`,
 *  as `#N function at file:line`; nothing when none does or addr2line knows none. Runs in a child process given at most
 *  10 s: the crashed process's heap may be damaged, and a lock left taken there then stops the child only (made with
 *  _Fork, which takes no lock in this process). */
void print_program_source_lines(void* const* frames, int count, int fd, const char* run_folder);

} // namespace bxisim::runtime
