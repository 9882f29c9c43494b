/* Runs the C99 program of c_header_check.c against the library. */
#include "tests/portals/PortalsWorld.hpp"

extern "C" int bxisim_portals_c_header_check(void);

namespace bxisim::portals::testing
{
namespace
{

using CHeaderTest = PortalsWorld;

TEST_F(CHeaderTest, AProgramWrittenInC99Runs)
{
  EXPECT_EQ(bxisim_portals_c_header_check(), 0);
}

} // namespace
} // namespace bxisim::portals::testing
