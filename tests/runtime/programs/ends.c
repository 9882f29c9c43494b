/* How ranks end: argv[1] says what rank argv[2] (or every rank for "all") does; the others return 0.
 *   return N | exit N | segv | abort | kv_never | barrier_skip | deep N (recursion over N MiB of stack) */
#include <bxisim/rank.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Recursion whose frames take `kib` KiB of stack in all. */
static int deep(int kib)
{
  volatile char frame[1024];
  frame[0] = (char)kib;
  return kib <= 1 ? frame[0] : deep(kib - 1) + frame[0];
}

static void act(const char* what, int code)
{
  if (strcmp(what, "return") == 0)
    return;
  if (strcmp(what, "exit") == 0) {
    printf("exiting with %d\n", code);
    exit(code);
  }
  if (strcmp(what, "segv") == 0) {
    int* volatile nowhere = NULL;
    *nowhere              = 1;
  }
  if (strcmp(what, "abort") == 0)
    abort();
  if (strcmp(what, "deep") == 0)
    printf("deep %d\n", deep(code * 1024));
  if (strcmp(what, "kv_never") == 0) {
    char buffer[8];
    bxisim_kv_get("never-put", buffer, sizeof(buffer), NULL);
  }
}

int main(int argc, char** argv)
{
  if (argc < 3)
    return 2;
  const char* what = argv[1];
  int target       = strcmp(argv[2], "all") == 0 ? -1 : atoi(argv[2]);
  int code         = argc > 3 ? atoi(argv[3]) : 0;
  int me           = target < 0 || target == bxisim_rank();
  if (strcmp(what, "barrier_skip") == 0) {
    if (!me)
      bxisim_barrier();
    return 0;
  }
  if (me) {
    act(what, code);
    if (strcmp(what, "return") == 0) {
      printf("rank %d done\n", bxisim_rank());
      return code;
    }
  }
  printf("rank %d done\n", bxisim_rank());
  return 0;
}
