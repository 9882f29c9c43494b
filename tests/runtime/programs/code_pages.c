/* Which file each rank's code and data pages are mapped from: prints the inode of the file mapped at main's address
 * (its code) and at a global's (its writable data). */
#include <stdint.h>
#include <stdio.h>

int counter = 1;

/** The inode of the file mapped at `address` (/proc/self/maps), 0 if none. */
static unsigned long mapped_inode(const void* address)
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

int main(void)
{
  printf("code_inode=%lu data_inode=%lu\n", mapped_inode((const void*)(uintptr_t)main), mapped_inode(&counter));
  return 0;
}
