#include "RunOutput.hpp"

#include "tests/support/CommandRunner.hpp"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace bxisim::test
{

std::string test_program(const std::string& name)
{
  return std::string(BXISIM_TEST_PROGRAMS) + "/" + name;
}

std::string fresh_folder(const std::string& name)
{
  std::string folder = temporary_path(name);
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  return folder;
}

std::string file_text(const std::string& path)
{
  std::ifstream file(path);
  return std::string((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
}

int occurrences(const std::string& text, const std::string& needle)
{
  int count = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size()))
    ++count;
  return count;
}

int entry_count(const std::string& folder)
{
  int count = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(folder))
    ++count;
  return count;
}

Fields fields_of(const std::string& text)
{
  Fields fields;
  std::istringstream words(text);
  std::string word;
  while (words >> word) {
    auto equal = word.find('=');
    if (equal != std::string::npos && equal > 0)
      fields[word.substr(0, equal)] = word.substr(equal + 1);
  }
  return fields;
}

std::map<int, Fields> fields_by_rank(const std::string& output)
{
  static const std::regex prefixed(R"(^\[rank (\d+)\] (.*)$)");
  std::map<int, Fields> result;
  std::istringstream lines(output);
  std::string line;
  while (std::getline(lines, line)) {
    std::smatch match;
    if (std::regex_match(line, match, prefixed))
      for (const auto& [key, value] : fields_of(match[2].str()))
        result[std::stoi(match[1].str())][key] = value;
  }
  return result;
}

double number(const Fields& fields, const std::string& key)
{
  auto found = fields.find(key);
  if (found == fields.end())
    throw std::runtime_error("no field '" + key + "' in the output");
  return std::stod(found->second);
}

} // namespace bxisim::test
