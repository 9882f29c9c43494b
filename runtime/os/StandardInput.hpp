#pragma once
// The standard input is rank 0's, as under mpirun (its default --stdin 0): the other ranks read end-of-file.
//
// Ranks share the C library's stdin (one FILE, one buffer) and descriptor 0, so a rank other than 0 that read a line
// took it from rank 0. Whenever a rank's code resumes, stdin shows that rank its view: rank 0 the real stream where it
// left it, the others a stream at end-of-file (no buffered byte, its end seen), rank 0's position kept aside. A read()
// of descriptor 0 by another rank gives end-of-file too (LibraryFileIoInterposition.cpp).

namespace bxisim::os
{

/** Shows the resuming rank its view of stdin: the real stream if it `reads_stdin` (rank 0), else end-of-file. */
void show_stdin(bool reads_stdin);

} // namespace bxisim::os
