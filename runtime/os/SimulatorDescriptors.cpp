#include "SimulatorDescriptors.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

namespace bxisim::os
{

namespace
{
// The simulator's range is the upper half of the limit (--output-dir keeps two files per rank open), or its last
// kSmallRange numbers under a small limit, where the ranks need what is left. The limit counts up to kCountedLimit,
// so that a huge one (systemd's 2^30) does not make the kernel size the table for numbers nobody uses.
constexpr rlim_t kSmallRange   = 256;
constexpr rlim_t kCountedLimit = 65536;
} // namespace

int simulator_descriptor_floor()
{
  static const int floor = [] {
    rlimit limit{};
    rlim_t usable = getrlimit(RLIMIT_NOFILE, &limit) == 0 ? std::min(limit.rlim_cur, kCountedLimit) : 1024;
    if (usable >= 8 * kSmallRange || usable <= 2 * kSmallRange)
      return static_cast<int>(usable / 2);
    return static_cast<int>(usable - kSmallRange);
  }();
  return floor;
}

bool in_simulator_range(int descriptor)
{
  return descriptor >= simulator_descriptor_floor();
}

int move_to_simulator_range(int descriptor)
{
  if (descriptor < 0 || descriptor >= simulator_descriptor_floor())
    return descriptor;
  int flags = fcntl(descriptor, F_GETFD);
  if (flags < 0)
    return descriptor;
  int moved = fcntl(descriptor, (flags & FD_CLOEXEC) != 0 ? F_DUPFD_CLOEXEC : F_DUPFD, simulator_descriptor_floor());
  if (moved < 0)
    return descriptor;
  close(descriptor);
  return moved;
}

void prepare_descriptors_for_ranks()
{
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
  }
  std::vector<int> held;
  if (DIR* listing = opendir("/proc/self/fd")) {
    while (const dirent* entry = readdir(listing)) {
      int descriptor = std::atoi(entry->d_name);
      if (descriptor > STDERR_FILENO && descriptor != dirfd(listing))
        held.push_back(descriptor);
    }
    closedir(listing);
  }
  for (int descriptor : held)
    move_to_simulator_range(descriptor);
}

std::FILE* open_simulator_file(const char* path, const char* mode)
{
  std::FILE* file = std::fopen(path, mode);
  if (file == nullptr || fileno(file) >= simulator_descriptor_floor())
    return file;
  // fopen() cannot be told where to put its descriptor: the stream is opened again on the moved one.
  int moved = fcntl(fileno(file), F_DUPFD_CLOEXEC, simulator_descriptor_floor());
  if (moved < 0)
    return file;
  std::FILE* high = fdopen(moved, mode); // fdopen() does not truncate again
  if (high == nullptr) {
    close(moved);
    return file;
  }
  std::fclose(file);
  return high;
}

void open_above_ranks(const std::function<void()>& open_files)
{
  struct Fillers {
    std::vector<int> taken;
    ~Fillers() // also when open_files throws (a bad setting): the numbers are the ranks' again
    {
      for (int descriptor : taken)
        close(descriptor);
    }
  } fillers;
  int filler = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (filler >= 0 && not in_simulator_range(filler)) {
    fillers.taken.push_back(filler);
    for (;;) {
      int descriptor = fcntl(filler, F_DUPFD_CLOEXEC, 0);
      if (descriptor < 0)
        break;
      if (in_simulator_range(descriptor)) {
        close(descriptor);
        break;
      }
      fillers.taken.push_back(descriptor);
    }
  } else if (filler >= 0) {
    close(filler);
  }
  open_files();
}

} // namespace bxisim::os
