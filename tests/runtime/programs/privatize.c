/* Bumps B's counter through A, then reads it from B directly: with both libraries privatized, every
 * rank sees exactly its own bump. */
#include <bxisim/rank.h>

#include <stdio.h>

int a_bump(void);
int b_value(void);

int main(void)
{
  bxisim_barrier();
  a_bump();
  bxisim_barrier();
  printf("rank=%d b_value=%d\n", bxisim_rank(), b_value());
  return 0;
}
