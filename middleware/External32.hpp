#pragma once
// The "external32" data representation (MPI-3.1 13.5.2): MPI_Pack_external, MPI_Unpack_external and
// MPI_Pack_external_size, answered by bxisim at every level (SMPI 3.32 lacks them; OpenMPI 4.1.4 unpacks a long
// double it packed as garbage and gives MPI_LONG 8 bytes in its size but 4 in its data). Big-endian basic elements
// of the sizes MPI's table 13.2 gives (MPI_LONG 4 bytes, MPI_LONG_DOUBLE an IEEE binary128, MPI_WCHAR 2),
// converted from or to the native packed data the back end's MPI_Pack makes (its basic elements in type-map
// order), walked through the type's constructors as TypeElements.cpp walks them.

#include "MpiInterface.hpp"

#include <vector>

namespace bxisim::mw
{

/** The bytes of `count` copies of `type` in external32: `*size`; an MPI error code of `mpi`'s calls. */
int external32_size(MpiInterface& mpi, MPI_Datatype type, MPI_Count count, MPI_Count* size);

/** Converts the native packed data of `count` copies of `type` (MPI_Pack's, `native`) to external32, appended to
 *  `out`; an MPI error code. */
int to_external32(MpiInterface& mpi, MPI_Datatype type, MPI_Count count, const unsigned char* native,
                  std::vector<unsigned char>& out);

/** The reverse: external32 data of `count` copies of `type` at `external` to native packed data, appended to `out`;
 *  `*used` the external bytes read. */
int from_external32(MpiInterface& mpi, MPI_Datatype type, MPI_Count count, const unsigned char* external,
                    std::vector<unsigned char>& out, MPI_Count* used);

/** MPI_Pack_external_size, MPI_Pack_external and MPI_Unpack_external over `mpi`'s MPI_Pack/MPI_Unpack: an MPI
 *  error code (the caller raises it), a representation other than "external32" being MPI_ERR_ARG. */
int pack_external_size(MpiInterface& mpi, const char* datarep, int incount, MPI_Datatype datatype, MPI_Aint* size);
int pack_external(MpiInterface& mpi, const char* datarep, const void* inbuf, int incount, MPI_Datatype datatype,
                  void* outbuf, MPI_Aint outsize, MPI_Aint* position);
int unpack_external(MpiInterface& mpi, const char* datarep, const void* inbuf, MPI_Aint insize, MPI_Aint* position,
                    void* outbuf, int outcount, MPI_Datatype datatype);

} // namespace bxisim::mw
