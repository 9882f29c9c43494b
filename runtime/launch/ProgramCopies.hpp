#pragma once
// Each rank's private copy of the program, of the shared libraries built for bxisim it needs, and of those named by
// --privatize-lib.
//
// The dynamic loader maps a file once however many times it is dlopen'ed, so private globals need
// private files. The copies of a privatized library get a soname of their own and every copy of a
// rank names it by an absolute path through the rank's link in the run folder (patchelf --set-soname
// / --replace-needed, once per run; make_rank_copies): rank 3's copy of A then calls rank 3's copy of
// B, and an unprivatized library that needs B still gets the one shared B, not some rank's copy.

#include "RunFolder.hpp"

#include <string>
#include <vector>

namespace bxisim::runtime
{

struct PrivatizedLibrary {
  std::string path;   // the original file
  std::string soname; // how the program and the other libraries name it in DT_NEEDED; empty: none, needed by its path
};

/**
 * Finds the library --privatize-lib `name` means: a path, or a file name (or `foo` for libfoo.so, or
 * for the libfoo.so.N the program needs) looked for next to the program, in the program's RUNPATH, in
 * LD_LIBRARY_PATH and in the system folders. Throws config::ConfigError when there is none.
 */
PrivatizedLibrary find_privatized_library(const std::string& name, const std::string& program);

/**
 * The OpenMP runtimes the program needs (libgomp.so.1, libomp.so.5, ...). They keep their state per OS
 * thread, and all ranks run on one: shared, a rank's parallel region would be taken for a region nested
 * in another rank's (a team of one thread), or run on another rank's team. Each rank needs its own copy.
 */
std::vector<std::string> openmp_runtimes_needed(const std::string& program);

/** Whether `program` or one of `libraries` (those its ranks get copies of) needs libgfortran: each rank then gets its
 *  own (FortranRuntimeNames.hpp). */
bool fortran_runtime_needed(const std::string& program, const std::vector<PrivatizedLibrary>& libraries);

/**
 * The shared libraries the program needs, directly or through others, that were built for bxisim: they call its MPI,
 * Portals or PMI (libtool and CMake projects build their own libraries so with bxicc). Under mpirun each process loads
 * its own; here one would be loaded for all ranks and its globals shared (libsc's package registry: p4est's second
 * rank aborted with "Package libsc is already registered"). Each rank gets its own copy, as of the program; so do the
 * libraries between them and the program, whose calls would reach the shared original otherwise. Found as the dynamic
 * loader finds them (DT_RPATH, LD_LIBRARY_PATH, DT_RUNPATH, the system folders); the system's own libraries (/lib,
 * /usr/lib) are not read.
 */
std::vector<std::string> libraries_built_for_bxisim(const std::string& program);

/** Copies the program and the libraries for `rank` into `folder`, relinked; returns the program's copy. The first
 *  call sets the run's folder, program and libraries for the functions below. */
std::string make_rank_copies(RunFolder& folder, int rank, const std::string& program,
                             const std::vector<PrivatizedLibrary>& libraries);

// Libraries a rank opens with dlopen (plugins): under mpirun each process loads its own, so one built for bxisim gets
// a copy per rank too, as those the program needs (runtime/os/DlopenInterposition.cpp).

/** Whether the shared library calls bxisim's MPI, Portals or PMI, or needs one that does; the system's never do. */
bool built_for_bxisim_or_needs_one(const std::string& library);

/**
 * The path to dlopen for `rank` in place of `library` (built_for_bxisim_or_needs_one): its copy in the rank's folder,
 * made on the rank's first opening, whose needed libraries are the rank's copies of those built for bxisim (the
 * program's, or opened ones copied with it); for the program or one of its privatized libraries, the rank's copy
 * loaded already.
 */
std::string rank_copy_of_opened_library(int rank, const std::string& library);

/** The paths (as loaded) of the rank's copies of libraries built for bxisim: those loaded with the program, and
 *  `opened` (a path rank_copy_of_opened_library gave) with the opened libraries copied with it. */
std::vector<std::string> rank_copies_built_for_bxisim(int rank, const std::string& opened = "");

/** Once the rank's program is loaded: its copies loaded with it (the program, its privatized libraries) map their
 *  read-only pages from the file each was copied from, where the bytes are the same, and give back that disk space.
 *  Otherwise every rank keeps a copy of their code in memory and in the run's folder (2.9 MB of libgfortran per rank
 *  of a Fortran program, the whole program when it has privatized libraries). */
void share_code_of_rank_copies(int rank);
/** The same for the rank's copy of a library opened with dlopen (`opened`: a path rank_copy_of_opened_library gave, now
 *  loaded) and the opened libraries copied with it, once per rank. */
void share_code_of_opened_copies(int rank, const std::string& opened);
/** The original of a file of the ranks' copies (`path` itself for any other file): whose search path a copy has. */
std::string original_of_copy(const std::string& path);

/** The file dlopen(`name`) finds from code of the file `caller` in its DT_RPATH, LD_LIBRARY_PATH and DT_RUNPATH (or
 *  `name` itself when it holds a slash); empty when none there (the loader then looks in its cache and the system's
 *  folders). */
std::string library_opened_by(const std::string& name, const std::string& caller);

} // namespace bxisim::runtime
