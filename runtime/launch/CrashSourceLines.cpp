#include "CrashSourceLines.hpp"

#include "ProgramCopies.hpp"

#include <fmt/format.h>

#include <dlfcn.h>
#include <link.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <map>
#include <string>
#include <vector>

namespace bxisim::runtime
{
namespace
{
struct ProgramFrame {
  int index;
  std::string original; // the file the copy was made from
  uintptr_t address;    // in the file's own addresses
  std::string function;
  std::string line; // file:line
};

/** addr2line's answers for `addresses` of `file`: function and file:line, in order ({"??", "??:0"} when unknown). */
std::vector<std::pair<std::string, std::string>> addr2line(const std::string& file,
                                                           const std::vector<uintptr_t>& addresses)
{
  std::string command = fmt::format("addr2line -f -C -e '{}'", file);
  for (uintptr_t address : addresses)
    command += fmt::format(" 0x{:x}", address);
  command += " 2>/dev/null";
  std::vector<std::pair<std::string, std::string>> answers;
  FILE* out = popen(command.c_str(), "r");
  if (out == nullptr)
    return answers;
  char function[4096], line[4096];
  while (answers.size() < addresses.size() && std::fgets(function, sizeof function, out) != nullptr &&
         std::fgets(line, sizeof line, out) != nullptr) {
    function[std::strcspn(function, "\n")] = '\0';
    line[std::strcspn(line, "\n")]         = '\0';
    answers.emplace_back(function, line);
  }
  pclose(out);
  return answers;
}

void write_source_lines(void* const* frames, int count, int fd, const std::string& run_folder)
{
  std::vector<ProgramFrame> found;
  for (int i = 0; i < count; ++i) {
    Dl_info info{};
    link_map* object = nullptr;
    if (dladdr1(frames[i], &info, reinterpret_cast<void**>(&object), RTLD_DL_LINKMAP) == 0 ||
        info.dli_fname == nullptr || object == nullptr ||
        std::strncmp(info.dli_fname, run_folder.c_str(), run_folder.size()) != 0)
      continue;
    // frames[2] is where the signal came (frames 0 and 1: the handler and the kernel's return to it); the others are
    // return addresses, one past their call
    uintptr_t address = reinterpret_cast<uintptr_t>(frames[i]) - object->l_addr - (i == 2 ? 0 : 1);
    found.push_back({i, original_of_copy(info.dli_fname), address, "", ""});
  }
  std::map<std::string, std::vector<ProgramFrame*>> by_file;
  for (auto& frame : found)
    by_file[frame.original].push_back(&frame);
  for (auto& [file, of_file] : by_file) {
    std::vector<uintptr_t> addresses;
    for (const ProgramFrame* frame : of_file)
      addresses.push_back(frame->address);
    auto answers = addr2line(file, addresses);
    for (size_t k = 0; k < answers.size(); ++k)
      std::tie(of_file[k]->function, of_file[k]->line) = answers[k];
  }
  std::string text;
  for (const auto& frame : found) {
    if (frame.function.empty() || frame.function == "??")
      continue;
    bool has_line = frame.line.rfind("??", 0) != 0;
    text += fmt::format("  #{} {} {}\n", frame.index, frame.function,
                        has_line ? "at " + frame.line : "in " + frame.original + " (no line: build it with -g)");
  }
  if (text.empty())
    return;
  text            = "In the program's code (innermost first):\n" + text;
  ssize_t ignored = write(fd, text.data(), text.size());
  (void)ignored;
}
} // namespace

void print_program_source_lines(void* const* frames, int count, int fd, const char* run_folder)
{
  // _Fork, not fork: fork takes malloc's and stdio's locks in this process first (and runs the libraries' atfork
  // handlers), and a crash inside malloc holds one of them.
  pid_t child = _Fork();
  if (child < 0)
    return;
  if (child == 0) {
    setpgid(0, 0); // its addr2line with it: stopped together at the limit, no process left holding stderr
    write_source_lines(frames, count, fd, run_folder);
    _exit(0);
  }
  constexpr int kStepMilliseconds = 10, kLimitMilliseconds = 10000;
  for (int waited = 0; waited < kLimitMilliseconds; waited += kStepMilliseconds) {
    pid_t ended = waitpid(child, nullptr, WNOHANG);
    if (ended == child || (ended < 0 && errno != EINTR)) // reaped, or not ours to wait for (SIGCHLD ignored)
      return;
    timespec step{0, kStepMilliseconds * 1000000L};
    nanosleep(&step, nullptr);
  }
  kill(-child, SIGKILL);
  waitpid(child, nullptr, 0);
}

} // namespace bxisim::runtime
