#include "StandardInput.hpp"

#include <cstdio>

namespace bxisim::os
{

namespace
{
// Rank 0's place in stdin's buffer while another rank's end-of-file view is shown.
struct Position {
  char* read_ptr = nullptr;
  char* read_end = nullptr;
  int seen       = 0; // _IO_EOF_SEEN and _IO_ERR_SEEN of rank 0's stream
};
Position kept;
bool real_view = true;

constexpr int kSeen = _IO_EOF_SEEN | _IO_ERR_SEEN;
} // namespace

void show_stdin(bool reads_stdin)
{
  FILE* in = stdin;
  if (reads_stdin) {
    if (real_view)
      return;
    in->_IO_read_ptr = kept.read_ptr;
    in->_IO_read_end = kept.read_end;
    in->_flags       = (in->_flags & ~kSeen) | kept.seen;
    real_view        = true;
    return;
  }
  if (real_view) {
    kept      = {in->_IO_read_ptr, in->_IO_read_end, in->_flags & kSeen};
    real_view = false;
  }
  in->_IO_read_ptr = in->_IO_read_end; // nothing buffered to read, and C99's sticky end-of-file
  in->_flags |= _IO_EOF_SEEN;
}

} // namespace bxisim::os
