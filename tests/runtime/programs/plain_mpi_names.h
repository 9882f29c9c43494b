/* Code whose calls name MPI functions by their plain names, MPI_x, as code compiled with bxisim's earlier mpi.h (whose
 * names were macros) did behind a macro of its own (PETSc's logging, petsclog.h), or code that declares MPI functions
 * without mpi.h. libsimgrid's SMPI defines the plain names. The asm labels make these calls name MPI_x whatever mpi.h
 * declares. */
#include <mpi.h>

int plain_allreduce(const void* send, void* receive, int count, MPI_Datatype type, MPI_Op op,
                    MPI_Comm comm) __asm__("MPI_Allreduce");
int plain_reduce(const void* send, void* receive, int count, MPI_Datatype type, MPI_Op op, int root,
                 MPI_Comm comm) __asm__("MPI_Reduce");
int plain_profiled_bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) __asm__("PMPI_Bcast");

extern int plain_calls;
#define MPI_Allreduce(s, r, n, t, o, c) (++plain_calls, plain_allreduce((s), (r), (n), (t), (o), (c)))
#define MPI_Reduce(s, r, n, t, o, root, c) (++plain_calls, plain_reduce((s), (r), (n), (t), (o), (root), (c)))
#define PMPI_Bcast plain_profiled_bcast

/* In libplain_mpi_names.so, a library built for bxisim: MPI_Reduce of `value` to rank 0 by its plain name. */
int reduced_on_rank_0(int value);
