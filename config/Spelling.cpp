#include "Spelling.hpp"

#include <algorithm>
#include <numeric>

namespace bxisim::config
{

namespace
{
size_t edit_distance(std::string_view a, std::string_view b)
{
  std::vector<size_t> previous(b.size() + 1);
  std::vector<size_t> current(b.size() + 1);
  std::iota(previous.begin(), previous.end(), 0);
  for (size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      current[j]          = std::min({previous[j] + 1, current[j - 1] + 1, substitution});
    }
    std::swap(previous, current);
  }
  return previous[b.size()];
}
} // namespace

std::optional<std::string> closest_word(std::string_view word, const std::vector<std::string_view>& known)
{
  std::optional<std::string> best;
  size_t best_distance = std::max<size_t>(3, word.size() / 3) + 1; // farther than this is not a typo
  for (auto candidate : known) {
    size_t distance = edit_distance(word, candidate);
    if (distance < best_distance) {
      best_distance = distance;
      best          = std::string(candidate);
    }
  }
  return best;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string_view>& known)
{
  auto best = closest_word(word, known);
  return best ? " Did you mean '" + *best + "'?" : std::string();
}

} // namespace bxisim::config
