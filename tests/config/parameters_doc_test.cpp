// docs/parameters.md must be what the parameter table generates: regenerate it with
// `cmake --build build --target docs` after changing the table.

#include "runtime/cli/ParamsCommand.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

TEST(ParametersDoc, CommittedCopyMatchesTheTable)
{
  std::ifstream file(std::string(BXISIM_SOURCE_DIR) + "/docs/parameters.md");
  ASSERT_TRUE(file) << "docs/parameters.md is missing: run `cmake --build build --target docs`";
  std::stringstream committed;
  committed << file.rdbuf();
  std::stringstream generated;
  bxisim::runtime::print_parameters_markdown(generated);
  EXPECT_EQ(committed.str(), generated.str()) << "docs/parameters.md is stale: run `cmake --build build --target docs`";
}
