/* Creating processes from a rank: fork and exec fail (ENOSYS) with a message naming the rank; system, popen and
 * posix_spawn run their command on the host, outside the simulation, in no simulated time. Each rank writes a
 * file with the shell into the folder given as argv[1], reads a line through popen, and waits for a spawned
 * `true`; it prints what each call gave and the simulated time they took. */
#define _GNU_SOURCE
#include <bxisim/rank.h>

#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

int main(int argc, char** argv)
{
  const char* folder = argc > 1 ? argv[1] : ".";
  int rank           = bxisim_rank();
  double start       = bxisim_time();
  errno              = 0;
  int forked         = fork();
  int fork_errno     = errno;
  int exec           = execlp("echo", "echo", "from-exec", (char*)NULL);
  int exec_errno     = errno;
  char command[512];
  snprintf(command, sizeof command, "echo rank%d > '%s/rank%d.txt'", rank, folder, rank);
  int shell     = system(command);
  char line[64] = "";
  FILE* pipe    = popen("echo from-popen", "r");
  if (pipe != NULL) {
    if (fgets(line, sizeof line, pipe) != NULL)
      line[strcspn(line, "\n")] = '\0';
    pclose(pipe);
  }
  pid_t child;
  char* true_argv[] = {"true", NULL};
  int spawned       = posix_spawnp(&child, "true", NULL, NULL, true_argv, environ);
  int status        = -1;
  if (spawned == 0)
    waitpid(child, &status, 0);
  printf("fork=%d/%s exec=%d/%s system=%d popen=%s spawn=%d/%d shell_available=%d took=%.9f\n", forked,
         strerrorname_np(fork_errno), exec, strerrorname_np(exec_errno), shell, line, spawned,
         WIFEXITED(status) ? WEXITSTATUS(status) : -1, system(NULL) != 0, bxisim_time() - start);
  printf("rank %d done\n", rank);
  return 0;
}
