#include "StartAgain.hpp"

#include <unistd.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace bxisim::runtime
{

namespace
{
std::string start_folder;
}

void note_start_folder(const std::string& folder)
{
  if (start_folder.empty())
    start_folder = folder;
}

void start_again()
{
  if (not start_folder.empty() && chdir(start_folder.c_str()) != 0)
    return;
  std::ifstream listing("/proc/self/cmdline", std::ios::binary); // a size of 0 to stat: read by size, it would be empty
  std::string command_line((std::istreambuf_iterator<char>(listing)), std::istreambuf_iterator<char>());
  std::vector<char*> arguments;
  for (size_t at = 0; at < command_line.size(); at = command_line.find('\0', at) + 1)
    arguments.push_back(command_line.data() + at);
  arguments.push_back(nullptr);
  execv("/proc/self/exe", arguments.data());
}

} // namespace bxisim::runtime
