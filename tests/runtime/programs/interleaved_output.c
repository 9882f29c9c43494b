/* Every rank writes lines that name it, in every way a program writes (stdio, write(2) on stdout and
 * stderr, a line written in two halves around a barrier, a write larger than a pipe holds), and the
 * ranks take turns at every barrier. With "blocked", each rank first blocks every signal it can. */
#include <bxisim/rank.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv)
{
  int rank   = bxisim_rank();
  int rounds = argc > 1 ? atoi(argv[1]) : 4;
  if (argc > 2 && strcmp(argv[2], "blocked") == 0) {
    sigset_t all;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, NULL);
  }
  char line[128];
  for (int round = 0; round < rounds; ++round) {
    printf("rank %d stdio %d\n", rank, round);
    int length = snprintf(line, sizeof line, "rank %d write %d\n", rank, round);
    if (write(STDOUT_FILENO, line, (size_t)length) != length)
      return 3;
    fprintf(stderr, "rank %d stderr %d\n", rank, round);
    printf("rank %d half %d", rank, round);
    bxisim_barrier();
    printf(" and half\n");
    bxisim_barrier();
  }
  /* 100 lines of 1 KiB in one write: more than a pipe holds (64 KiB) */
  size_t big_size = 100 * 1024;
  char* big       = malloc(big_size);
  for (int i = 0; i < 100; ++i) {
    char* at = big + i * 1024;
    int head = snprintf(at, 1024, "rank %d big %d ", rank, i);
    memset(at + head, 'x', (size_t)(1023 - head));
    at[1023] = '\n';
  }
  if (write(STDOUT_FILENO, big, big_size) != (ssize_t)big_size)
    return 4;
  free(big);
  bxisim_barrier();
  return 0;
}
