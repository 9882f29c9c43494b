/* Regions (bxisim/region.h) around MPI phases. Modes:
 *   nested     "setup" (default level) holding "exchange" (BXISIM_LEVEL_SMPI), then "solve" (CYCLE) twice;
 *              each phase sleeps a known simulated time on every rank, so the region times are exact
 *   unbalanced as nested, but rank 1 makes the second "solve" phase without its region calls
 *   misnested  ends "outer" while "inner" is open
 * Built with another MPI (smpicc), the region calls are no-ops and the program still runs. */
#include <bxisim/region.h>
#include <mpi.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void phase(const char* name, int level, unsigned microseconds, int annotated)
{
  if (annotated)
    bxisim_region_begin(name, level);
  usleep(microseconds);
  MPI_Barrier(MPI_COMM_WORLD);
  if (annotated)
    bxisim_region_end(name);
}

int main(int argc, char** argv)
{
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const char* mode = argc > 1 ? argv[1] : "nested";
  if (!strcmp(mode, "nested") || !strcmp(mode, "unbalanced")) {
    bxisim_region_begin("setup", BXISIM_LEVEL_DEFAULT);
    usleep(1000);
    phase("exchange", BXISIM_LEVEL_SMPI, 2000, 1);
    bxisim_region_end("setup");
    phase("solve", BXISIM_LEVEL_CYCLE, 5000, 1);
    phase("solve", BXISIM_LEVEL_CYCLE, 5000, !(rank == 1 && !strcmp(mode, "unbalanced")));
  } else if (!strcmp(mode, "misnested")) {
    bxisim_region_begin("outer", BXISIM_LEVEL_DEFAULT);
    bxisim_region_begin("inner", BXISIM_LEVEL_DEFAULT);
    bxisim_region_end("outer");
  }
  printf("done=1\n");
  MPI_Finalize();
  return 0;
}
