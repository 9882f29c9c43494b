#pragma once
// What a program built for `bxisim run` expects of MPI, read from its dynamic symbols.

#include <string>
#include <vector>

namespace bxisim::mw
{

struct ProgramMpiUse {
  /** It calls bxisim's MPI entry points (it was built with bxisim's mpi.h). */
  bool bxisim_mpi = false;
  /** MPI_x / PMPI_x functions it calls but does not define: built against another MPI's mpi.h, or (with
   *  bxisim_mpi) calling a function bxisim's mpi.h does not declare; or Fortran bindings (mpi_x_) that
   *  bxisim does not define (MPI-1's removed functions, MPI_SIZEOF, ...). */
  std::vector<std::string> foreign_symbols;
  /** MPI_x / PMPI_x functions of bxisim's mpi.h it calls by their plain names, not mpi.h's (with bxisim_mpi: a macro
   *  of its own replaced mpi.h's, as PETSc's logging does): each rank's copy calls bxisim's MPI under
   *  plain_call_alias's names. */
  std::vector<std::string> plain_calls;
};

/**
 * Whether an undefined symbol of a program is one of bxisim's MPI entry points: mpi.h's bxisim_MPI_x /
 * bxisim_PMPI_x, or a Fortran binding (mpi_x_ / pmpi_x_, bxif90's programs).
 */
bool is_bxisim_mpi_entry(const char* name);

/**
 * The other name under which bxisim defines the MPI function `name` calls by its plain name (MPI_x or PMPI_x): BXI_x or
 * PBXI_x, of the same length, so that a copy's dynamic string can be rewritten in place; "" when bxisim has none.
 */
std::string plain_call_alias(const std::string& name);

/** Reads the ELF dynamic symbol table of `path` (a shared object); throws std::runtime_error if unreadable. */
ProgramMpiUse program_mpi_use(const std::string& path);

/** The message for a program with foreign MPI symbols, naming one and the fix. */
std::string foreign_mpi_message(const std::string& program, const ProgramMpiUse& use);

} // namespace bxisim::mw
