/* An exported way into a program whose main is hidden: build systems that compile with
 * -fvisibility=hidden (Sandia OpenSHMEM's, for its library and its tests alike) hide main too, which an
 * executable does not mind but a shared object for `bxisim run` does, since bxisim finds main by name.
 * The wrappers link this into every program; a reference from inside the same link reaches a hidden
 * main. bxisim calls main itself when it is exported, and this otherwise. */

int main(int argc, char** argv, char** envp);

__attribute__((visibility("default"))) int bxisim_program_main(int argc, char** argv, char** envp);

int bxisim_program_main(int argc, char** argv, char** envp)
{
  /* main may be declared with no parameters or two: the x86-64 calling convention lets a caller pass
   * more arguments than the function reads, as the C library's start-up does. */
  return main(argc, argv, envp);
}
