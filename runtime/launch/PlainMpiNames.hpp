#pragma once
// A program or library built for bxisim may still call MPI functions by their plain names, MPI_x: code compiled with
// bxisim's earlier mpi.h, which mapped MPI_x to bxisim_MPI_x with macros, behind a macro of its own (PETSc's logging:
// `#define MPI_Bcast(...) (count, MPI_Bcast(...))`), or code declaring MPI functions without mpi.h. libsimgrid's SMPI
// defines those plain names, so such calls skipped bxisim and crashed in SMPI. In each rank's copy the names are
// rewritten in place to bxisim's aliases of the same length (BXI_x, PBXI_x: mw::plain_call_alias), which the loader
// then finds in bxisim.

#include "CopyEdits.hpp"
#include "ElfFile.hpp"

#include <string>
#include <vector>

namespace bxisim::runtime
{

/** The edits of `file`'s dynamic strings that make its undefined MPI_x / PMPI_x (those bxisim defines) BXI_x / PBXI_x,
 *  in a file that calls bxisim's entry points too (built with bxisim's mpi.h). Throws config::ConfigError, naming the
 *  fix, when an edit would change a defined name or a dynamic string, or make a name bxisim does not define. */
std::vector<ByteEdit> plain_mpi_calls_redirected(const ElfFile& file, const std::string& path);

} // namespace bxisim::runtime
