#pragma once
// First-touch costs kept out of the ranks' measured CPU time (docs/running.md, "Computation").
//
// The first time a process executes a page of code the kernel maps it (a page fault: several
// microseconds on a virtual machine). Code run between a rank's simulator calls is measured as the
// rank's computation, so the first call of every bxisim entry point, and the first pass through each
// page of a rank's private copy of the program, would be charged to the rank (a first Put 2 to 3 times
// as long as the second). These functions map those pages ahead, outside any measured burst.
// They also tell where an object's code lies (runtime/os/Preemption.cpp: is a rank in its own code?).

#include <cstddef>
#include <cstdint>
#include <string>
#include <sys/types.h>
#include <utility>
#include <vector>

namespace bxisim::os
{

/** Maps the read-only (code and constant) pages of every object loaded so far: bxisim and its libraries. */
void populate_loaded_code();

/** The same for one object loaded with dlopen (a rank's copy of the program). */
void populate_code_of(void* handle);

/** The address ranges [first, last) of the executable segments of one object loaded with dlopen. */
std::vector<std::pair<uintptr_t, uintptr_t>> code_ranges_of(void* handle);

/**
 * Maps the read-only segments (code, constants) of an object loaded with dlopen from `original`, an open
 * descriptor of the file it is a copy of, at the same addresses. Each rank needs its own copy of OpenMPI, of
 * the program and of its privatized libraries (the loader loads a file once), and the kernel keeps the pages
 * of each file apart: 3 to 4 MiB of code per rank for OpenMPI, 2.9 MB for libgfortran, the program's size.
 * Mapped from one file, the copies share them. The pages holding the file ranges `own` (offset, length), where
 * the copy's bytes differ from the original's (names edited, a rank's digits), stay the copy's.
 * Returns the ranges of the file [offset, offset + length) now mapped from `original` whose disk space the copy may
 * give back (release_file_ranges): all but the pages of the ELF and program headers and of the dynamic symbols, which
 * tools read from the file of a loaded object (a backtrace's symbols); none when nothing changed: the object's code
 * is relocated at load (text relocations) or `original`'s program headers differ.
 */
std::vector<std::pair<off_t, std::size_t>>
share_read_only_pages(void* handle, int original, const std::vector<std::pair<off_t, std::size_t>>& own = {});

/** Gives back the disk space of those ranges of the copy at `path` (their pages are no longer mapped): a copy
 *  made for one run then holds little more than its writable data. Where the file system cannot, nothing. */
void release_file_ranges(const std::string& path, const std::vector<std::pair<off_t, std::size_t>>& ranges);

} // namespace bxisim::os
