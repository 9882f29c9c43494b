#pragma once
// A program or library built with bxisim's mpi.h may still call MPI functions by their plain names: mpi.h maps MPI_x
// to bxisim_MPI_x with a macro, and code that puts a macro of its own in its place calls the function its macro names
// (PETSc's logging: `#define MPI_Bcast(...) (count, MPI_Bcast(...))`). libsimgrid's SMPI defines those plain names, so
// such calls skipped bxisim and crashed in SMPI. In each rank's copy the names are rewritten in place to bxisim's
// aliases of the same length (BXI_x, PBXI_x: mw::plain_call_alias), which the loader then finds in bxisim.

#include "CopyEdits.hpp"
#include "ElfFile.hpp"

#include <string>
#include <vector>

namespace bxisim::runtime
{

/** The edits of `file`'s dynamic strings that make its undefined MPI_x / PMPI_x (those bxisim defines) BXI_x / PBXI_x.
 *  A name whose bytes another string of the file shares (a defined symbol's, a needed library's) is left as it is. */
std::vector<ByteEdit> plain_mpi_calls_redirected(const ElfFile& file, const std::string& path);

} // namespace bxisim::runtime
