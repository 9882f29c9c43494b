/* The start of a program's writable data, as an executable has it from the C library's crt1.o
 * (`__data_start`, weak alias `data_start`): OpenSHMEM libraries (Sandia OpenSHMEM, OSHMPI) expose
 * [&__data_start, &_end) to remote access as the symmetric data of the program. A shared object for
 * `bxisim run` is linked without crt1.o, so the name bound to the simulator's own data, the same for
 * every rank. The wrappers link this object first, so that its .data comes before the program's own
 * (`_end` the linker defines in every shared object). */

__attribute__((section(".data"), used)) int __data_start = 0;
extern int data_start __attribute__((weak, alias("__data_start")));
