/* As PETSc's logging does (petsclog.h): a macro of the program's own in place of mpi.h's counts the calls, then calls
 * the function by its plain name, MPI_x, which mpi.h's macro would have named bxisim_MPI_x. libsimgrid's SMPI defines
 * the plain names. */
#include <mpi.h>

#undef MPI_Allreduce
#undef MPI_Reduce
#undef PMPI_Bcast
int MPI_Allreduce(const void* send, void* receive, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm);
int MPI_Reduce(const void* send, void* receive, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm);
int PMPI_Bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm);

extern int plain_calls;
#define MPI_Allreduce(s, r, n, t, o, c) (++plain_calls, MPI_Allreduce((s), (r), (n), (t), (o), (c)))
#define MPI_Reduce(s, r, n, t, o, root, c) (++plain_calls, MPI_Reduce((s), (r), (n), (t), (o), (root), (c)))

/* In libplain_mpi_names.so, a library built for bxisim: MPI_Reduce of `value` to rank 0 by its plain name. */
int reduced_on_rank_0(int value);
