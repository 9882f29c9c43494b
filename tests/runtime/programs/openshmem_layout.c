/* What OpenSHMEM libraries assume of their process's layout (Sandia OpenSHMEM's Portals 4 transport): the
 * program's writable data lies between __data_start and _end, and a mapping asked for at a hint above the
 * data (its symmetric heap, at _end + 2 GiB rounded to 1 GiB) lands above the data. Each rank prints what it
 * found; a second mapping with the same hint must land above too (the first took the hint). */

#include <bxisim/rank.h>

#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>

#pragma weak __data_start
#pragma weak _end
extern int __data_start;
extern int _end;

int initialised_global = 7;
int zeroed_global;

int main(void)
{
  const uintptr_t gib = 1024UL * 1024UL * 1024UL;
  uintptr_t data = (uintptr_t)&__data_start, end = (uintptr_t)&_end;
  int brackets = data != 0 && data <= (uintptr_t)&initialised_global && (uintptr_t)&initialised_global < end &&
                 data <= (uintptr_t)&zeroed_global && (uintptr_t)&zeroed_global < end && end - data < gib;
  void* hint     = (void*)((end + 2 * gib) & ~(gib - 1));
  size_t length  = 512UL * 1024 * 1024;
  char* heap     = mmap(hint, length, PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
  char* second   = mmap(hint, 4096, PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
  int heap_above = heap != MAP_FAILED && (uintptr_t)heap > end && second != MAP_FAILED && (uintptr_t)second > end;
  /* the mapping is usable and the rank's own */
  if (heap != MAP_FAILED)
    heap[length - 1] = (char)bxisim_rank();
  bxisim_barrier();
  printf("rank %d: data bracketed %s, heap above data %s, last byte %d\n", bxisim_rank(), brackets ? "yes" : "no",
         heap_above ? "yes" : "no", heap != MAP_FAILED ? heap[length - 1] : -1);
  return brackets && heap_above ? 0 : 1;
}
