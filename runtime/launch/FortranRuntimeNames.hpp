#pragma once
// libgfortran keeps a process's Fortran units (the table of open units, their buffers, their locks) in its globals, and
// libsimgrid needs it, so one copy sits in the simulator's global scope, where the loader looks first: a rank's own
// copy (it is privatized like OpenMP's runtime) would never be called, and two ranks that OPENed unit 10 on their own
// files wrote both into one (MUMPS's save and restore). In each rank's copies the names `_gfortran_x` become
// `_hEortran_x`, in the copy of libgfortran and in the files that call it: names the global copy does not define, so
// the loader binds them to the rank's. "gf" and "hE" weigh the same in the GNU hash (h * 33 + c: 103 * 33 + 102 =
// 104 * 33 + 69), so the copy's hash table, made for the original names, finds the new ones unchanged.

#include "CopyEdits.hpp"
#include "ElfFile.hpp"

#include <string>
#include <vector>

namespace bxisim::runtime
{

/** The runtime whose copies are renamed. */
inline constexpr const char* kFortranRuntime = "libgfortran.so.5";

/** The edits that rename `file`'s dynamic symbols `_gfortran_x` (defined or not) to `_hEortran_x`. A name whose bytes
 *  another name or dynamic string shares is left as it is (with a note in bxisim_launch's log). */
std::vector<ByteEdit> fortran_runtime_names_renamed(const ElfFile& file, const std::string& path);

/** Whether `file` can have its names renamed: its symbols are found through a GNU hash table (an old SysV one alone
 *  weighs the bytes otherwise). */
bool fortran_runtime_renamable(const ElfFile& file);

} // namespace bxisim::runtime
