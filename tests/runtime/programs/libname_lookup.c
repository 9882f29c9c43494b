/* A library built by the plain compiler (shared by every rank) that finds a function or variable of the program by
 * its name, as frameworks find a program's callbacks: under mpirun it finds the process's program (bxicc's programs
 * export their symbols, as -rdynamic does). */
#include <dlfcn.h>

void* name_lookup(const char* name)
{
  return dlsym(RTLD_DEFAULT, name);
}
