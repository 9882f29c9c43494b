#pragma once
// Room for the per-rank copies of libraries that use initial-exec TLS (libgomp: DF_STATIC_TLS).
//
// Such a library, loaded by dlopen, takes its thread-local block from the process's static TLS surplus, which glibc
// sizes at start (512 bytes for them by default, glibc.rtld.optional_static_tls): each rank loads its own copy of the
// OpenMP runtime (ProgramCopies.hpp), so at 12 ranks and more an OpenMP program's copies did not load ("cannot allocate
// memory in static TLS block"). The surplus can only be set before the process starts: bxisim starts itself again
// with the tunable when its ranks need more, before anything of the run exists.

#include <cstdint>
#include <string>

namespace bxisim::runtime
{

/** The static TLS one copy of the ELF file at `path` takes when loaded (aligned), or 0 if it uses none. */
uint64_t static_tls_bytes(const std::string& path);

/** Makes sure the static TLS surplus holds `bytes` for loaded copies: returns if it does (or the user set the tunable
 *  to less: their choice, the loader will say), else starts bxisim again with the same command line and
 *  GLIBC_TUNABLES=...:glibc.rtld.optional_static_tls=N. */
void reserve_static_tls(uint64_t bytes);

} // namespace bxisim::runtime
