/* What every function of libbxisim-pretend.so does when a program built with BXISIM_PRETEND_CC=1 (a
 * configure script's test program, linked as a plain executable) calls it: such a program cannot reach
 * bxisim's MPI, Portals 4 or PMI, so it says how to build and run it instead, and exits. */

#include <stdio.h>
#include <stdlib.h>

__attribute__((visibility("hidden"), noreturn)) void bxisim_pretend_called(const char* name);

void bxisim_pretend_called(const char* name)
{
  fprintf(stderr,
          "bxisim: %s called in a program built with BXISIM_PRETEND_CC=1 (for configure scripts only): rebuild it "
          "with bxicc, bxicxx or bxif90 without BXISIM_PRETEND_CC and run it with `bxisim run -n N ./program`\n",
          name);
  exit(1);
}
