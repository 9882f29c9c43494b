#pragma once
// The body of a rank's actor: loads the rank's copy of the program and runs its main.

#include "Rank.hpp"

#include <string>
#include <vector>

namespace bxisim::runtime
{

/**
 * Runs `main(argv)` of the rank's copy of the program, as `rank`, until it returns or calls exit();
 * records the exit code. `argv` starts with the program's name as the user gave it.
 */
void run_rank(Rank& rank, const std::string& program_copy, std::vector<std::string> argv);

} // namespace bxisim::runtime
