/* One rank spends a long time inside single system calls that signals do not interrupt (writes of argv[1] MiB
 * to a file, as OMPIO's 2 GiB pwrite in MPICH io/i_bigtype), without calling the simulator in between; the other
 * ranks wait for it at a barrier. Prints written=<bytes> per rank. */
#include <bxisim/rank.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv)
{
  size_t bytes      = (size_t)(argc > 1 ? atoi(argv[1]) : 256) << 20;
  long long written = 0;
  if (bxisim_rank() == 0) {
    char* buffer = malloc(bytes);
    memset(buffer, 1, bytes);
    char name[64];
    snprintf(name, sizeof name, "long_syscall.%d.tmp", (int)getpid());
    int fd = open(name, O_CREAT | O_RDWR | O_TRUNC, 0600);
    for (int k = 0; k < 4 && fd >= 0; ++k)
      written += pwrite(fd, buffer, bytes, (off_t)(k * bytes));
    close(fd);
    unlink(name);
    free(buffer);
  }
  bxisim_barrier();
  printf("written=%lld\n", written);
  return 0;
}
