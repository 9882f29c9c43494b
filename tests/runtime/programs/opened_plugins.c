/* Opens with dlopen libraries built for bxisim, as a program opens its plugins: libregistry_user (which needs
 * libregistry, a library the program needs too) by its bare name, through the program's RUNPATH, then libregistry
 * itself, then libregistry_user again by its path, and libpath_needed, which nothing else needs. Under mpirun each
 * process has one instance of each: every rank must see its own two registrations, the same handles and its own count.
 * dlopen(NULL) gives each rank its own program, and dlsym(RTLD_DEFAULT) searches it first. */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int registry_enter(void);
void* name_lookup(const char* name); /* libname_lookup, a library every rank shares */
int opened_plugins_rank = -1;        /* found through dlopen(NULL): the rank's own program */

int main(int argc, char** argv)
{
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  registry_enter();
  MPI_Barrier(MPI_COMM_WORLD);

  void* user = dlopen("libregistry_user.so", RTLD_NOW);
  if (user == NULL) {
    printf("rank=%d bad_dlopen=%s\n", rank, dlerror());
    return 1;
  }
  int (*user_enter)(void) = (int (*)(void))dlsym(user, "registry_user_enter");
  user_enter();
  MPI_Barrier(MPI_COMM_WORLD);

  void* registry     = dlopen("libregistry.so", RTLD_NOW);
  int (*count)(void) = (int (*)(void))dlsym(registry, "registry_count");
  int (*owner)(void) = (int (*)(void))dlsym(registry, "registry_owner");
  char path[4096];
  strncpy(path, argv[0], sizeof(path) - 32);
  path[sizeof(path) - 32] = '\0';
  char* slash             = strrchr(path, '/');
  strcpy(slash != NULL ? slash + 1 : path, "libregistry_user.so");
  void* again = dlopen(path, RTLD_NOW);

  /* A plugin of its own, that nothing else needs: its counter is the rank's. */
  void* plugin      = dlopen("libpath_needed.so", RTLD_LAZY | RTLD_LOCAL);
  int (*next)(void) = plugin != NULL ? (int (*)(void))dlsym(plugin, "path_needed_next") : NULL;
  int plugin_count  = next != NULL ? next() : -1;

  /* The main program (dlopen(NULL)), as in a process of a program linked with -rdynamic: the rank's own copy. */
  opened_plugins_rank = rank;
  void* self          = dlopen(NULL, RTLD_NOW);
  int* own_rank       = self != NULL ? (int*)dlsym(self, "opened_plugins_rank") : NULL;
  int main_program    = own_rank != NULL ? *own_rank : -1;

  /* dlsym(RTLD_DEFAULT) searches as a process's global scope: the program's own symbols (the rank's, its main and not
   * bxisim's), then the libraries' (libregistry's count, the rank's copy), the C library's; RTLD_NEXT from the program
   * finds the C library's; a library every rank shares finds the rank's program too, as the process's. */
  int* default_rank   = (int*)dlsym(RTLD_DEFAULT, "opened_plugins_rank");
  int default_program = default_rank == &opened_plugins_rank && dlsym(RTLD_DEFAULT, "main") == (void*)main;
  int default_library = dlsym(RTLD_DEFAULT, "registry_count") == (void*)count;
  int next_libc       = dlsym(RTLD_NEXT, "strlen") != NULL;
  int shared_lookup   = name_lookup("opened_plugins_rank") == &opened_plugins_rank;
  void* missing       = dlsym(RTLD_DEFAULT, "opened_plugins_no_such_symbol");
  const char* why     = missing == NULL ? dlerror() : NULL;
  int default_missing = missing == NULL && why != NULL && strstr(why, "opened_plugins_no_such_symbol") != NULL;

  int mine = count(), total = 0;
  MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  printf("rank=%d registrations=%d owner=%d total=%d same_handle=%d plugin_count=%d main_program=%d\n", rank, mine,
         owner(), total, again == user, plugin_count, main_program);
  printf("rank=%d default_program=%d default_library=%d next_libc=%d default_missing=%d shared_lookup=%d\n", rank,
         default_program, default_library, next_libc, default_missing, shared_lookup);
  if (self != NULL)
    dlclose(self);
  dlclose(again);
  dlclose(registry);
  dlclose(user);
  MPI_Finalize();
  return 0;
}
