// The first lines of a crash report, by where the crash happened (runtime/launch/CrashHeadline).
#include "runtime/launch/CrashHeadline.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

using bxisim::runtime::crash_headline;
using bxisim::runtime::CrashSite;
using testing::HasSubstr;
using testing::Not;

namespace
{
std::string headline(CrashSite own, CrashSite call, CrashSite last)
{
  char line[1024];
  crash_headline(line, sizeof line, "Aborted", 0.0025, own, call, last);
  return line;
}
} // namespace

TEST(CrashHeadline, NamesTheRankWhoseCodeOrCallCrashed)
{
  EXPECT_EQ(headline({2, "node1"}, {}, {2, "node1"}),
            "bxisim: rank 2 crashed (Aborted) on node1 at simulated time 0.002500000 s.\n");
  EXPECT_THAT(headline({}, {3, "node1"}, {3, "node1"}),
              HasSubstr("the simulator crashed (Aborted) inside a call of rank 3 (MPI, Portals"));
}

TEST(CrashHeadline, AStackOverflowSaysHowToGetALargerStack)
{
  auto text = headline({1, "node0", 8192}, {}, {1, "node0"});
  EXPECT_THAT(text, HasSubstr("bxisim: rank 1 crashed (Aborted) on node0 at simulated time 0.002500000 s. It ran out "
                              "of stack: the fault is at the end of its 8192 KiB stack"));
  EXPECT_THAT(text, HasSubstr("--cfg contexts/stack-size:KiB"));
  EXPECT_EQ(text.back(), '\n');
  EXPECT_THAT(headline({}, {2, "node1", 256}, {}), HasSubstr("inside a call of rank 2"));
  EXPECT_THAT(headline({}, {2, "node1", 256}, {}), HasSubstr("end of its 256 KiB stack"));
}

TEST(CrashHeadline, InTheSimulatorItNamesTheLastRankThatRanAndTheDamagedHeap)
{
  // The HLRS suite's MIX_LB_UB type: a rank wrote before a buffer it allocated, and glibc found it at an
  // allocation of the simulator's kernel, where no rank's call was under way.
  auto text = headline({}, {}, {1, "node0"});
  EXPECT_THAT(text, HasSubstr("in its own code, outside any rank's call, at simulated time 0.002500000 s"));
  EXPECT_THAT(text, HasSubstr("The last rank whose own code ran is rank 1 (on node0)"));
  EXPECT_THAT(text, HasSubstr("the heap was damaged earlier"));
  EXPECT_EQ(headline({}, {}, {}), "bxisim: the simulator crashed (Aborted), outside the code of any rank.\n");
  EXPECT_THAT(headline({}, {}, {}), Not(HasSubstr("heap")));
}
