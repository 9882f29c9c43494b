/* The smallest program worth launching: it only meets the other ranks once. */
#include <bxisim/rank.h>

int main(void)
{
  bxisim_barrier();
  return 0;
}
