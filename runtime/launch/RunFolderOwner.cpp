#include "RunFolderOwner.hpp"

#include <xbt/log.h>

#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

XBT_LOG_EXTERNAL_DEFAULT_CATEGORY(bxisim_launch);

namespace bxisim::runtime
{
namespace
{
constexpr const char* kOwnerFile = "owner";

struct ProcessIdentity {
  std::string boot;          // /proc/sys/kernel/random/boot_id: pids and start times restart at each boot
  std::string pid_namespace; // the same pid means another process in another namespace (a container)
  long pid                       = 0;
  unsigned long long start_ticks = 0; // pids are reused: the start time tells a new process apart

  bool operator==(const ProcessIdentity& other) const
  {
    return boot == other.boot && pid_namespace == other.pid_namespace && pid == other.pid &&
           start_ticks == other.start_ticks;
  }
};

std::string first_line(const std::string& path)
{
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

/** Field 22 of /proc/PID/stat, or 0 when the process does not exist. */
unsigned long long start_ticks_of(long pid)
{
  std::string stat = first_line(fmt::format("/proc/{}/stat", pid));
  auto name_end    = stat.rfind(')'); // the command's name may hold spaces and parentheses
  if (name_end == std::string::npos)
    return 0;
  std::istringstream fields(stat.substr(name_end + 1));
  std::string field;
  for (int index = 3; index <= 22 && fields >> field; ++index)
    if (index == 22)
      return std::stoull(field);
  return 0;
}

std::string pid_namespace_of(const std::string& proc_entry)
{
  std::error_code error;
  auto target = std::filesystem::read_symlink(proc_entry + "/ns/pid", error);
  return error ? std::string("unknown") : target.string();
}

ProcessIdentity this_process()
{
  static const ProcessIdentity identity{first_line("/proc/sys/kernel/random/boot_id"), pid_namespace_of("/proc/self"),
                                        static_cast<long>(getpid()), start_ticks_of(getpid())};
  return identity;
}

bool read_owner(const std::filesystem::path& file, ProcessIdentity& owner)
{
  std::ifstream in(file);
  return static_cast<bool>(in >> owner.boot >> owner.pid_namespace >> owner.pid >> owner.start_ticks);
}

bool owner_is_dead(const ProcessIdentity& owner)
{
  const ProcessIdentity& self = this_process();
  if (owner.boot != self.boot)
    return true;
  if (owner.pid_namespace != self.pid_namespace)
    return false; // its processes are not visible from here
  if (owner.pid == self.pid)
    return not(owner == self);
  return start_ticks_of(owner.pid) != owner.start_ticks;
}
} // namespace

std::string mark_run_folder_owner(const std::string& folder)
{
  const ProcessIdentity& self = this_process();
  if (self.boot.empty() || self.start_ticks == 0)
    return "";
  // Written aside then renamed: a run that scans meanwhile sees no owner, or a whole one.
  std::string partial = folder + "/." + kOwnerFile;
  std::string owner   = folder + "/" + kOwnerFile;
  bool written;
  {
    std::ofstream out(partial);
    out << self.boot << ' ' << self.pid_namespace << ' ' << self.pid << ' ' << self.start_ticks << '\n';
    out.close();
    written = not out.fail();
  }
  if (written && std::rename(partial.c_str(), owner.c_str()) == 0)
    return owner;
  std::remove(partial.c_str()); // a full disk: the run goes on, its folder unowned
  return "";
}

int remove_folders_of_dead_runs(const std::filesystem::path& base)
{
  int removed = 0;
  std::error_code error;
  for (std::filesystem::directory_iterator entries(base, error), end; not error && entries != end;
       entries.increment(error)) {
    const auto& folder = entries->path();
    if (folder.filename().string().rfind("bxisim-run-", 0) != 0)
      continue;
    struct stat status {
    };
    if (lstat(folder.c_str(), &status) != 0 || not S_ISDIR(status.st_mode) || status.st_uid != geteuid())
      continue;
    ProcessIdentity owner;
    if (not read_owner(folder / kOwnerFile, owner) || not owner_is_dead(owner))
      continue;
    std::error_code ignored;
    if (std::filesystem::remove_all(folder, ignored) > 0 && not ignored) {
      XBT_VERB("removed %s, the folder of a run that was killed (process %ld)", folder.c_str(), owner.pid);
      ++removed;
    }
  }
  return removed;
}

} // namespace bxisim::runtime
