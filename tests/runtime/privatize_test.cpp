// --privatize-lib gives each rank its own copy of shared libraries, relinked to each other.

#include "RunOutput.hpp"
#include "tests/support/CommandRunner.hpp"

#include <gtest/gtest.h>

using namespace bxisim::test;

namespace
{
constexpr int kRanks = 4;

std::map<int, Fields> run_privatize(const std::string& options)
{
  auto result = run_bxisim("run -n " + std::to_string(kRanks) + " " + options + " " + test_program("privatize"));
  EXPECT_EQ(result.exit_code, 0) << result.output;
  return fields_by_rank(result.output);
}
} // namespace

TEST(PrivatizeLib, WithoutItRanksShareTheLibrariesGlobals)
{
  auto fields = run_privatize("");
  ASSERT_EQ(static_cast<int>(fields.size()), kRanks);
  for (const auto& [rank, values] : fields)
    EXPECT_EQ(number(values, "b_value"), kRanks) << "rank " << rank; // every rank bumped the one counter
}

TEST(PrivatizeLib, EachRanksCopyOfACallsItsOwnCopyOfB)
{
  // By name (found through the program's RUNPATH) and by path.
  auto fields = run_privatize("--privatize-lib libshared_a.so --privatize-lib " + test_program("libshared_b.so"));
  ASSERT_EQ(static_cast<int>(fields.size()), kRanks);
  for (const auto& [rank, values] : fields)
    EXPECT_EQ(number(values, "b_value"), 1) << "rank " << rank;
}

TEST(PrivatizeLib, ShortNameFindsLibFooSo)
{
  auto fields = run_privatize("--privatize-lib shared_a --privatize-lib shared_b");
  for (const auto& [rank, values] : fields)
    EXPECT_EQ(number(values, "b_value"), 1) << "rank " << rank;
}
