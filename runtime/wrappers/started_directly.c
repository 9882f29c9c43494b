/* The entry point of a program built by bxicc or bxicxx when someone starts it directly (./a.out)
 * instead of with `bxisim run`: such a program is a shared object for bxisim to load once per rank,
 * with no dynamic loader named to start it, so nothing of the C library is usable here (not even
 * relocated data). It writes its message with raw system calls and exits with 127, as a shell does
 * for a command it cannot run. */

#if !defined(__x86_64__)
#error "bxisim_started_directly is written for x86-64 Linux system calls"
#endif

static const char kMessage[] =
    "this program was built with bxicc, bxicxx or bxif90 for bxisim: it runs inside the simulator, not on its own. "
    "Start it with `bxisim run -n RANKS ./program [arguments]` (docs/running.md). A configure script that runs its "
    "test programs needs BXISIM_PRETEND_CC=1 in its environment (`BXISIM_PRETEND_CC=1 ./configure CC=bxicc ...`).\n";

__attribute__((noreturn, used, visibility("hidden"))) void bxisim_started_directly(void)
{
  long result;
  __asm__ volatile("syscall"
                   : "=a"(result)
                   : "a"(1L /* write */), "D"(2L /* stderr */), "S"(kMessage), "d"(sizeof kMessage - 1)
                   : "rcx", "r11", "memory");
  (void)result;
  __asm__ volatile("syscall" : : "a"(231L /* exit_group */), "D"(127L) : "rcx", "r11", "memory");
  __builtin_unreachable();
}
