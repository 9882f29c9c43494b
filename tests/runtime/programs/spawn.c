/* Creating processes from a rank: every call must fail (ENOSYS) with a message naming the rank. */
#define _GNU_SOURCE
#include <bxisim/rank.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
  errno           = 0;
  int forked      = fork();
  int fork_errno  = errno;
  int shell       = system("echo from-the-shell");
  FILE* pipe      = popen("echo from-popen", "r");
  int popen_errno = errno;
  int exec        = execlp("echo", "echo", "from-exec", (char*)NULL);
  printf("fork=%d/%s system=%d popen=%s/%s exec=%d no_shell=%d\n", forked, strerrorname_np(fork_errno), shell,
         pipe == NULL ? "null" : "stream", strerrorname_np(popen_errno), exec, system(NULL));
  printf("rank %d done\n", bxisim_rank());
  return 0;
}
