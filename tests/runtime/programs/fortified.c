/* Built with -O2 -D_FORTIFY_SOURCE=2, as distributions build: calls into arrays of known size with lengths that are
 * not constants become the C library's checking forms (__gethostname_chk, __readlink_chk, __read_chk, __poll_chk...),
 * which must see the rank as the plain calls do. Rank 1 reads the standard input before rank 0 (rank 0's). */
#define _GNU_SOURCE
#include <bxisim/rank.h>

#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double monotonic_seconds(void)
{
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

int main(int argc, char** argv)
{
  (void)argv;
  size_t unknown = (size_t)argc + 62; /* 63: not a constant to the compiler */
  int rank       = bxisim_rank();

  char host[64];
  gethostname(host, unknown);
  char exe[PATH_MAX] = {0}, exe_at[PATH_MAX] = {0}, exe_real[PATH_MAX] = {0};
  ssize_t length                  = readlink("/proc/self/exe", exe, unknown + PATH_MAX - 64);
  exe[length > 0 ? length : 0]    = '\0';
  length                          = readlinkat(AT_FDCWD, "/proc/self/exe", exe_at, unknown + PATH_MAX - 64);
  exe_at[length > 0 ? length : 0] = '\0';
  const char* resolved            = realpath("/proc/self/exe", exe_real);
  char* canonical                 = canonicalize_file_name("/proc/self/exe");

  if (rank == 0)
    bxisim_barrier(); /* rank 1 reads first */
  char input[64] = {0};
  ssize_t got    = read(0, input, unknown);
  if (got > 0 && input[got - 1] == '\n')
    input[got - 1] = '\0';
  if (rank != 0)
    bxisim_barrier();

  int ends[2];
  if (pipe(ends) != 0)
    return 3;
  struct pollfd readable[1] = {{ends[0], POLLIN, 0}};
  nfds_t count              = (nfds_t)argc; /* 1 */
  double start              = monotonic_seconds();
  int polled                = poll(readable, count, 500);
  struct timespec timeout   = {0, 250000000};
  int ppolled               = ppoll(readable, count, &timeout, NULL);
  double waited             = monotonic_seconds() - start;

  printf("host=%s exe=%s exe_at=%s exe_real=%s canonical=%s input=%s read=%zd polled=%d ppolled=%d waited=%.9f\n", host,
         exe, exe_at, resolved != NULL ? resolved : "(null)", canonical != NULL ? canonical : "(null)",
         got > 0 ? input : "(eof)", got, polled, ppolled, waited);
  free(canonical);
  return 0;
}
