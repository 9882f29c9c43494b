#pragma once
// The body of a rank's actor: loads the rank's copy of the program and runs its main.

#include "Rank.hpp"

#include <functional>
#include <string>
#include <vector>

namespace bxisim::runtime
{

/** The exported function through which a program built by the wrappers reaches its main when main is hidden
 * (compiled with -fvisibility=hidden): runtime/wrappers/program_main.c. */
inline constexpr const char* kProgramMainEntry = "bxisim_program_main";

/**
 * Runs `main(argv)` of the rank's copy of the program, as `rank`, until it returns or calls exit();
 * records the exit code. `argv` starts with the program's name as the user gave it. `load_first`,
 * if set, runs as the rank's own code before the program is loaded (the rank's OpenMPI copy);
 * when it returns false the rank ends with code 127. `after_main`, if set, turns the code main
 * returned into the rank's exit code (checks of the MPI library's state).
 */
/** CPU seconds the simulator's thread spent loading the ranks' copies (dlopen: mapping, relocating, constructors). */
double loading_cpu_seconds();

/** Once loaded, the copies' code pages are mapped from the files they were copied from, as the OpenMPI copies' are
 * (share_code_of_rank_copies), so that the ranks share one instance of the program's code, in memory and in the
 * processor's caches. */
void run_rank(Rank& rank, const std::string& program_copy, std::vector<std::string> argv,
              const std::function<bool(Rank&)>& load_first     = nullptr,
              const std::function<int(Rank&, int)>& after_main = nullptr);

} // namespace bxisim::runtime
