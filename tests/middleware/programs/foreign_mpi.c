/* A program built against another MPI's mpi.h: it references MPI_Init itself. */
int MPI_Init(int* argc, char*** argv);
int MPI_Finalize(void);

int main(int argc, char** argv)
{
  MPI_Init(&argc, &argv);
  return MPI_Finalize();
}
