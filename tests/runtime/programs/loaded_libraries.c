// Prints systemc=1 when SystemC's library is mapped into the process the rank runs in (bxisim's),
// systemc=0 when it is not.
#include <stdio.h>
#include <string.h>

int main(void)
{
  FILE* maps = fopen("/proc/self/maps", "r");
  if (maps == NULL)
    return 2;
  char line[4096];
  int found = 0;
  while (fgets(line, sizeof line, maps) != NULL)
    if (strstr(line, "libsystemc") != NULL)
      found = 1;
  fclose(maps);
  printf("systemc=%d\n", found);
  return 0;
}
