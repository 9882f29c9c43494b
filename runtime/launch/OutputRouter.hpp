#pragma once
// Routes what ranks write on stdout and stderr: each line prefixed by its rank ("[rank 3] "), or
// into one file per rank and stream (--output-dir).
//
// Ranks share the process's file descriptors 1 and 2 and libc's stdio buffers. While the router is
// active both descriptors are pipes read by a thread of the router; whenever another rank's code
// resumes, the stdio buffers are flushed (so what they hold goes to the rank that wrote it), and if
// anything the previous rank wrote is still in a pipe or being read, the switch waits until the
// reader has given it to that rank; then the reader gives what comes next to the new rank. A switch
// after which nothing was written costs one system call, a poll of both pipes (writing a marker
// into both pipes at every switch woke the reader each time: ranks exchanging small MPI messages
// ran at half speed). The simulator's own messages (SimGrid's
// logs, bxisim's reports) go to the original descriptors, never into the pipes.

#include <cstdio>
#include <memory>
#include <string>
#include <thread>

namespace bxisim::runtime
{

class OutputRouter
{
 public:
  /** Starts routing; `output_dir` empty means prefixed lines on the original stdout/stderr. */
  OutputRouter(int rank_count, const std::string& output_dir);
  /** Flushes everything ranks wrote and restores the original descriptors. */
  ~OutputRouter();
  OutputRouter(const OutputRouter&)            = delete;
  OutputRouter& operator=(const OutputRouter&) = delete;

  /** What follows on stdout/stderr is written by `rank`; no-op when no router is active. */
  static void switch_to(int rank);
  /** The original stderr while a router is active (the process's stderr otherwise). */
  static int original_stderr_fd();
  static FILE* original_stderr();
  /** For the crash handler: restores the descriptors and lets the reader drain, briefly; async-signal-safe. */
  static void drain_after_crash();

 private:
  struct Stream;
  void read_until_end();

  std::unique_ptr<Stream> out_;
  std::unique_ptr<Stream> err_;
  std::thread reader_;
};

} // namespace bxisim::runtime
