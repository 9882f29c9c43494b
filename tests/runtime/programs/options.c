/* Argument parsing as the OSU micro-benchmarks do it: every rank calls getopt_long after the start-up
 * barrier (MPI_Init in OSU), with a simulated sleep after each option so that the ranks' scans
 * interleave. Prints what it parsed and the arguments left. */
#include <bxisim/rank.h>

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char** argv)
{
  bxisim_barrier();
  static struct option long_options[] = {{"iterations", required_argument, NULL, 'i'},
                                         {"warmup", required_argument, NULL, 'w'},
                                         {"verbose", no_argument, NULL, 'v'},
                                         {NULL, 0, NULL, 0}};
  int verbose = 0, quiet = 0, iterations = 0, warmup = 0, bad = 0;
  const char* sizes = "none";
  int option;
  while ((option = getopt_long(argc, argv, "vqm:i:w:", long_options, NULL)) != -1) {
    usleep((useconds_t)(1 + bxisim_rank())); /* other ranks parse meanwhile */
    switch (option) {
    case 'v':
      verbose++;
      break;
    case 'q':
      quiet++;
      break;
    case 'm':
      sizes = optarg;
      break;
    case 'i':
      iterations = atoi(optarg);
      break;
    case 'w':
      warmup = atoi(optarg);
      break;
    default:
      bad++;
      break;
    }
  }
  printf("verbose=%d quiet=%d sizes=%s iterations=%d warmup=%d bad=%d optind=%d rest=", verbose, quiet, sizes,
         iterations, warmup, bad, optind);
  for (int i = optind; i < argc; ++i)
    printf("%s%s", i > optind ? "," : "", argv[i]);
  printf("\n");
  return 0;
}
