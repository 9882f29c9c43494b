/* calloc of large blocks in a rank (runtime/os/CallocInterposition.cpp): zeroed even where the heap reuses
 * memory a block freed before had dirtied, and without the resident memory of the pages nobody touched.
 * Prints zeroed=<1|0> resident_growth_kib=<kB> small_zeroed=<1|0> overflow_null=<1|0>. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long resident_kib(void)
{
  FILE* status = fopen("/proc/self/status", "r");
  char line[256];
  long kib = -1;
  while (status != NULL && fgets(line, sizeof line, status) != NULL)
    if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
      break;
  if (status != NULL)
    fclose(status);
  return kib;
}

static int all_zero(const unsigned char* block, size_t bytes)
{
  for (size_t i = 0; i < bytes; ++i)
    if (block[i] != 0)
      return 0;
  return 1;
}

int main(void)
{
  const size_t bytes   = (size_t)64 << 20;
  unsigned char* dirty = malloc(bytes + 123);
  memset(dirty, 0xA5, bytes + 123);
  free(dirty); /* the next large block may be this memory again */
  long before          = resident_kib();
  unsigned char* block = calloc(bytes / 8 + 3, 8); /* an odd size: its first and last pages are partial */
  int zeroed           = block != NULL && all_zero(block, bytes + 24);
  long after           = resident_kib();
  unsigned char* small = malloc(1000);
  memset(small, 0x5A, 1000);
  free(small);
  small                 = calloc(10, 100);
  int small_zeroed      = small != NULL && all_zero(small, 1000);
  volatile size_t count = SIZE_MAX / 2; /* count x 4 overflows size_t */
  errno                 = 0;
  void* too_large       = calloc(count, 4);
  printf("zeroed=%d resident_growth_kib=%ld small_zeroed=%d overflow_null=%d\n", zeroed, after - before, small_zeroed,
         too_large == NULL && errno == ENOMEM);
  free(block);
  free(small);
  return 0;
}
