// The layers of DESIGN.md section 2, bottom up: config/, then platforms/ and portals/, then hw/, then
// middleware/, then runtime/. A folder includes its own files and those of lower layers, never a higher
// layer's nor a sibling's: the NIC models must build without the command that drives them.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>

namespace
{
const std::map<std::string, int> kLayers = {{"config", 0}, {"platforms", 1},  {"portals", 1},
                                            {"hw", 2},     {"middleware", 3}, {"runtime", 4}};

bool is_source(const std::filesystem::path& path)
{
  static const std::set<std::string> kExtensions = {".c", ".cc", ".cpp", ".h", ".hpp"};
  return kExtensions.count(path.extension().string()) != 0;
}
} // namespace

TEST(Layout, NoLayerIncludesAHigherOneOrASibling)
{
  const std::regex include(R"(^\s*#\s*include\s*"([a-z_]+)/)");
  int files = 0;
  for (const auto& [folder, layer] : kLayers) {
    for (const auto& entry :
         std::filesystem::recursive_directory_iterator(std::string(BXISIM_SOURCE_DIR) + "/" + folder)) {
      if (not entry.is_regular_file() || not is_source(entry.path()))
        continue;
      ++files;
      std::ifstream source(entry.path());
      std::string line;
      for (int number = 1; std::getline(source, line); ++number) {
        std::smatch match;
        if (not std::regex_search(line, match, include))
          continue;
        auto target = kLayers.find(match[1].str());
        if (target == kLayers.end() || target->first == folder)
          continue;
        EXPECT_LT(target->second, layer) << entry.path().string() << ":" << number << " includes " << line;
      }
    }
  }
  EXPECT_GT(files, 100); // the folders were found
}
