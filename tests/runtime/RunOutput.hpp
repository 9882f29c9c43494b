#pragma once
// Helpers for the tests of `bxisim run`: paths of the test programs, and the key=value fields the
// programs print, collected per rank from the "[rank N] " prefixes.

#include <map>
#include <string>

namespace bxisim::test
{

/** Path of a program of tests/runtime/programs, built with the wrappers. */
std::string test_program(const std::string& name);

/** A new empty folder under the test's temporary folder. */
std::string fresh_folder(const std::string& name);

/** The whole text of a file ("" when it cannot be read). */
std::string file_text(const std::string& path);

/** Number of entries in a folder. */
int entry_count(const std::string& folder);

/** How many times `needle` occurs in `text`. */
int occurrences(const std::string& text, const std::string& needle);

using Fields = std::map<std::string, std::string>;

/** Every "key=value" word on lines prefixed "[rank N] ", merged per rank. */
std::map<int, Fields> fields_by_rank(const std::string& output);

/** Every "key=value" word of `text` (no prefix expected). */
Fields fields_of(const std::string& text);

double number(const Fields& fields, const std::string& key);

} // namespace bxisim::test
