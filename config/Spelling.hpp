#pragma once
// "Did you mean ...?" for mistyped keys, choices and sub-commands.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bxisim::config
{

/** The known word closest to `word` by edit distance, if close enough to be a likely typo. */
std::optional<std::string> closest_word(std::string_view word, const std::vector<std::string_view>& known);

/** " Did you mean 'x'?" or an empty string. */
std::string did_you_mean(std::string_view word, const std::vector<std::string_view>& known);

} // namespace bxisim::config
