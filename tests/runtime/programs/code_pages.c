/* Which file each rank's code and data pages are mapped from: prints the inode of the file mapped at main's address
 * (its code) and at a global's (its writable data). */
#include "mapped_file.h"

#include <stdint.h>
#include <stdio.h>

int counter = 1;

int main(void)
{
  printf("code_inode=%lu data_inode=%lu\n", mapped_inode((const void*)(uintptr_t)main), mapped_inode(&counter));
  return 0;
}
