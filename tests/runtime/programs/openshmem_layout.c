/* What OpenSHMEM libraries assume of their process's layout (Sandia OpenSHMEM's Portals 4 transport): the
 * program's writable data lies between __data_start and _end, and a mapping asked for at a hint above the
 * data (its symmetric heap, at _end + 2 GiB rounded to 1 GiB) lands above the data. Each rank prints what it
 * found; a second mapping with the same hint must land above too (the first took the hint). */

#define _GNU_SOURCE /* MAP_32BIT */
#include <bxisim/rank.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>
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
  /* What bxisim's retry above a refused hint must leave to the kernel: MAP_32BIT asks for the low 2 GiB, and the room
   * below the main thread's stack (the simulator's) is the stack's to grow into. */
  char* low       = mmap(hint, 4096, PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE | MAP_32BIT, -1, 0);
  int low_ok      = low != MAP_FAILED && (uintptr_t)low < (1UL << 32);
  uintptr_t stack = 0, start, stop;
  char line[512];
  FILE* maps = fopen("/proc/self/maps", "r");
  while (maps != NULL && fgets(line, sizeof line, maps) != NULL)
    if (strstr(line, "[stack]") != NULL && sscanf(line, "%lx-%lx", &start, &stop) == 2)
      stack = start;
  if (maps != NULL)
    fclose(maps);
  const uintptr_t guard = 512 * 1024; /* inside the kernel's guard gap: it refuses the hint */
  char* near_stack      = stack > guard ? mmap((void*)(stack - guard), 256 * 1024, PROT_READ | PROT_WRITE,
                                               MAP_ANONYMOUS | MAP_PRIVATE, -1, 0)
                                        : MAP_FAILED;
  int stack_left        = stack > guard && near_stack != MAP_FAILED &&
                   ((uintptr_t)near_stack + 256 * 1024 <= stack - 64 * 1024 * 1024 || (uintptr_t)near_stack > stack);
  bxisim_barrier();
  printf("rank %d: data bracketed %s, heap above data %s, last byte %d, map32 low %s, stack room left %s\n",
         bxisim_rank(), brackets ? "yes" : "no", heap_above ? "yes" : "no", heap != MAP_FAILED ? heap[length - 1] : -1,
         low_ok ? "yes" : "no", stack_left ? "yes" : "no");
  return brackets && heap_above && low_ok && stack_left ? 0 : 1;
}
