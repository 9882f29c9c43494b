#pragma once
// bxisim's drawing scripts (timelines, benchmark plots) are Python with matplotlib (Debian's
// python3-matplotlib). They are installed in <prefix>/share/bxisim/ and found there from the bxisim
// executable, else in the source tree of the build.

#include <string>
#include <vector>

namespace bxisim::runtime
{

/** Runs the script `name` with `arguments`; returns its exit code (2 when it cannot be started, said on stderr). */
int run_python_script(const std::string& name, const std::vector<std::string>& arguments);

} // namespace bxisim::runtime
