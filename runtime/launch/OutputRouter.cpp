#include "OutputRouter.hpp"

#include "RunSupervisor.hpp"
#include "runtime/os/SimulatorDescriptors.hpp"
#include "runtime/results/Progress.hpp"

#include <fmt/format.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <map>
#include <poll.h>
#include <stdexcept>
#include <thread>
#include <time.h>
#include <unistd.h>
#include <vector>

namespace bxisim::runtime
{

namespace
{
// A marker is "\0bxisim-rank <number>\n": a NUL never appears in text a program prints.
constexpr char kMarker[]        = "bxisim-rank ";
constexpr size_t kMarkerLength  = sizeof(kMarker) - 1;
constexpr size_t kMaxMarkerSize = 1 + kMarkerLength + 12;

bool active    = false;
int owner      = -1;
int saved_out  = -1;
int saved_err  = -1;
int out_read   = -1; // the read ends of the pipes, for the switch's check
int err_read   = -1;
FILE* err_file = nullptr;
std::atomic<bool> reader_done{true};
std::atomic<int> reader_owner{-1};    // the rank the reader gives what it reads to
std::atomic<bool> reader_busy{false}; // the reader holds bytes it has not given to a rank yet

/** Whether either pipe holds bytes not read yet: one poll of both read ends (one system call per
 *  switch between ranks instead of a FIONREAD per pipe: ranks exchanging small messages switch at
 *  every call). */
bool pipes_hold_unread()
{
  pollfd fds[2] = {{out_read, POLLIN, 0}, {err_read, POLLIN, 0}};
  int ready     = poll(fds, 2, 0);
  return ready > 0 && ((fds[0].revents | fds[1].revents) & POLLIN) != 0;
}

void write_all(int fd, const char* data, size_t size)
{
  Progress::clear_for_output(); // the progress line, on the same terminal, is not a line to append to
  while (size > 0) {
    ssize_t written = write(fd, data, size);
    if (written < 0 && errno == EINTR)
      continue;
    if (written < 0 && errno == EPIPE) // nobody reads bxisim's output anymore (`bxisim run ... | head`)
      RunSupervisor::request_stop(128 + SIGPIPE, "SIGPIPE: the output of bxisim is closed");
    if (written <= 0)
      return;
    data += written;
    size -= static_cast<size_t>(written);
  }
}

} // namespace

struct OutputRouter::Stream {
  Stream(int read_end, int original, std::string suffix, std::string folder)
      : pipe_read(read_end), destination(original), file_suffix(std::move(suffix)), output_dir(std::move(folder))
  {
  }

  ~Stream()
  {
    for (FILE* file : files)
      if (file != nullptr)
        std::fclose(file);
  }

  int pipe_read;
  int destination; // original descriptor (prefixed mode)
  std::string file_suffix;
  std::string output_dir;
  // --output-dir: each rank's file, kept open from the start in the simulator's range of descriptors. Opened
  // by the reader thread as output comes, a file would take a low number for an instant while a rank may be
  // opening one (OpenMPI's MPI_Init does), and the rank's number would depend on that race. Null past what
  // the range holds: such a rank's file is opened at each write.
  std::vector<FILE*> files;
  int current = -1;
  std::string pending;              // bytes not yet parsed (a marker cut by a read)
  std::map<int, std::string> lines; // per rank, the start of a line not yet ended

  void emit(const char* data, size_t size)
  {
    if (size == 0)
      return;
    if (current < 0) { // written before any rank ran, or by a thread of the program after all ended
      write_all(destination, data, size);
      return;
    }
    if (not output_dir.empty()) {
      if (static_cast<size_t>(current) < files.size() && files[static_cast<size_t>(current)] != nullptr) {
        FILE* file = files[static_cast<size_t>(current)];
        std::fwrite(data, 1, size, file);
        std::fflush(file);
        return;
      }
      FILE* file = os::open_simulator_file(file_name(current).c_str(), "a");
      if (file != nullptr) {
        std::fwrite(data, 1, size, file);
        std::fclose(file);
      }
      return;
    }
    std::string& line = lines[current];
    line.append(data, size);
    size_t start = 0;
    for (size_t end = line.find('\n'); end != std::string::npos; end = line.find('\n', start)) {
      std::string prefixed = fmt::format("[rank {}] ", current);
      prefixed.append(line, start, end + 1 - start);
      write_all(destination, prefixed.data(), prefixed.size());
      start = end + 1;
    }
    line.erase(0, start);
  }

  /** Parses `pending`: text goes to the current rank, markers change it. */
  void parse(bool at_end)
  {
    size_t position = 0;
    while (position < pending.size()) {
      size_t nul = pending.find('\0', position);
      emit(pending.data() + position, (nul == std::string::npos ? pending.size() : nul) - position);
      if (nul == std::string::npos) {
        position = pending.size();
        break;
      }
      size_t newline = pending.find('\n', nul);
      if (newline == std::string::npos && not at_end && pending.size() - nul < kMaxMarkerSize) {
        position = nul; // the rest of the marker comes with the next read
        break;
      }
      if (newline != std::string::npos && pending.compare(nul + 1, kMarkerLength, kMarker) == 0) {
        current  = std::atoi(pending.c_str() + nul + 1 + kMarkerLength);
        position = newline + 1;
      } else { // a NUL the program wrote itself
        emit(pending.data() + nul, 1);
        position = nul + 1;
      }
    }
    pending.erase(0, position);
  }

  void finish()
  {
    parse(true);
    for (auto& [rank, line] : lines)
      if (not line.empty()) {
        current = rank;
        emit("\n", 1);
      }
  }

  std::string file_name(int rank) const { return fmt::format("{}/rank-{}.{}", output_dir, rank, file_suffix); }
};

OutputRouter::OutputRouter(int rank_count, const std::string& output_dir)
{
  std::fflush(stdout);
  std::fflush(stderr);
  int out_pipe[2];
  int err_pipe[2];
  if (pipe(out_pipe) != 0 || pipe(err_pipe) != 0)
    throw std::runtime_error(fmt::format("cannot create the pipes for the ranks' output: {}", std::strerror(errno)));
  out_pipe[0] = os::move_to_simulator_range(out_pipe[0]);
  err_pipe[0] = os::move_to_simulator_range(err_pipe[0]);
  saved_out   = os::move_to_simulator_range(dup(STDOUT_FILENO));
  saved_err   = os::move_to_simulator_range(dup(STDERR_FILENO));
  if (err_file == nullptr) { // kept for the whole process: SimGrid's log appender may keep it
    err_file = fdopen(os::move_to_simulator_range(dup(saved_err)), "w");
    setvbuf(err_file, nullptr, _IOLBF, BUFSIZ);
  }
  out_read = out_pipe[0];
  err_read = err_pipe[0];
  out_     = std::make_unique<Stream>(out_pipe[0], saved_out, "stdout", output_dir);
  err_     = std::make_unique<Stream>(err_pipe[0], saved_err, "stderr", output_dir);
  if (not output_dir.empty())
    for (int rank = 0; rank < rank_count; ++rank)
      for (auto* stream : {out_.get(), err_.get()}) {
        FILE* file = os::open_simulator_file(stream->file_name(rank).c_str(), "w");
        if (file == nullptr)
          throw std::runtime_error(
              fmt::format("--output-dir: cannot write {}: {}", stream->file_name(rank), std::strerror(errno)));
        if (os::in_simulator_range(fileno(file))) {
          stream->files.push_back(file);
        } else { // the range is full: created now, opened at each write
          std::fclose(file);
          stream->files.push_back(nullptr);
        }
      }
  dup2(out_pipe[1], STDOUT_FILENO);
  dup2(err_pipe[1], STDERR_FILENO);
  close(out_pipe[1]);
  close(err_pipe[1]);
  // Programs expect line-buffered output, as on a terminal; stdout would be fully buffered on a pipe.
  setvbuf(stdout, nullptr, _IOLBF, BUFSIZ);
  owner = -1;
  reader_owner.store(-1);
  active = true;
  reader_done.store(false);
  reader_ = std::thread([this] { read_until_end(); });
}

OutputRouter::~OutputRouter()
{
  std::fflush(stdout);
  std::fflush(stderr);
  active = false;
  dup2(saved_out, STDOUT_FILENO); // the last write ends of the pipes: the reader sees their end
  dup2(saved_err, STDERR_FILENO);
  reader_.join();
  close(out_->pipe_read);
  close(err_->pipe_read);
  out_read = err_read = -1;
  close(saved_out);
  close(saved_err);
  saved_out = saved_err = -1;
}

void OutputRouter::read_until_end()
{
  pollfd fds[2]      = {{out_->pipe_read, POLLIN, 0}, {err_->pipe_read, POLLIN, 0}};
  Stream* streams[2] = {out_.get(), err_.get()};
  int open_count     = 2;
  char buffer[65536];
  while (open_count > 0) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR)
        continue;
      break;
    }
    reader_busy.store(true); // before reading: a switch that sees the pipes empty waits for what was read
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0)
        continue;
      streams[i]->current = reader_owner.load();
      ssize_t count       = read(fds[i].fd, buffer, sizeof(buffer));
      if (count < 0 && errno == EINTR)
        continue;
      if (count <= 0) {
        streams[i]->finish();
        fds[i].fd = -1;
        --open_count;
        continue;
      }
      streams[i]->pending.append(buffer, static_cast<size_t>(count));
      streams[i]->parse(false);
    }
    reader_busy.store(false);
  }
  reader_done.store(true);
}

void OutputRouter::switch_to(int rank)
{
  if (not active || owner == rank)
    return;
  std::fflush(stdout);
  std::fflush(stderr);
  // What the previous rank wrote goes to it: wait until the reader has taken it all.
  while (pipes_hold_unread() || reader_busy.load())
    std::this_thread::yield();
  reader_owner.store(rank);
  owner = rank;
}

int OutputRouter::original_stderr_fd()
{
  return saved_err >= 0 ? saved_err : STDERR_FILENO;
}

FILE* OutputRouter::original_stderr()
{
  return err_file != nullptr ? err_file : stderr;
}

void OutputRouter::drain_after_crash()
{
  if (not active)
    return;
  active = false;
  dup2(saved_out, STDOUT_FILENO);
  dup2(saved_err, STDERR_FILENO);
  for (int i = 0; i < 200 && not reader_done.load(); ++i) { // at most 1 s
    timespec pause{0, 5'000'000};
    nanosleep(&pause, nullptr);
  }
}

} // namespace bxisim::runtime
