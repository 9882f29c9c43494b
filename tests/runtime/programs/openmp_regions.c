/* Each rank runs argv[1] parallel regions (default 3) of OMP_NUM_THREADS threads; in each, the master
 * thread meets the other ranks (bxisim_barrier, a simulator call: ranks switch there, inside the
 * region), then the team meets at an OpenMP barrier. Prints team=<threads of the last region>
 * regions=<regions run> passive=<1 when OMP_WAIT_POLICY is passive>. */
#include <bxisim/rank.h>
#include <omp.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv)
{
  int regions = argc > 1 ? atoi(argv[1]) : 3;
  int team    = 0;
  int run     = 0;
  for (int i = 0; i < regions; i++) {
#pragma omp parallel
    {
#pragma omp master
      {
        team = omp_get_num_threads();
        bxisim_barrier();
        run++;
      }
#pragma omp barrier
    }
  }
  const char* policy = getenv("OMP_WAIT_POLICY");
  printf("team=%d regions=%d passive=%d\n", team, run, policy != NULL && strcmp(policy, "passive") == 0);
  return 0;
}
