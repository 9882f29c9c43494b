/* mapped_inode(address): the inode of the file mapped at `address` (/proc/self/maps), 0 if none. Shared by the test
 * programs that include it (each is otherwise a standalone program built with bxicc). */
#ifndef BXISIM_TEST_MAPPED_FILE_H
#define BXISIM_TEST_MAPPED_FILE_H

#include <stdint.h>
#include <stdio.h>

static inline unsigned long mapped_inode(const void* address)
{
  FILE* maps = fopen("/proc/self/maps", "r");
  char line[4096];
  unsigned long found = 0;
  while (maps != NULL && found == 0 && fgets(line, sizeof line, maps) != NULL) {
    uintptr_t start, end;
    unsigned long inode;
    if (sscanf(line, "%lx-%lx %*s %*s %*s %lu", &start, &end, &inode) == 3 && start <= (uintptr_t)address &&
        (uintptr_t)address < end)
      found = inode;
  }
  if (maps != NULL)
    fclose(maps);
  return found;
}

#endif
