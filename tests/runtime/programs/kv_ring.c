/* The key/value store under many waiters: each rank puts its key, then gets its right neighbour's,
 * which most ranks find absent and wait for; rank r prints the value it got (r + 1 mod size, times
 * 1000). */
#include <bxisim/rank.h>

#include <stdio.h>

int main(void)
{
  int rank = bxisim_rank();
  int size = bxisim_size();
  char key[32];
  snprintf(key, sizeof(key), "ring-%d", rank);
  int mine = rank * 1000;
  int put  = bxisim_kv_put(key, &mine, sizeof(mine));
  snprintf(key, sizeof(key), "ring-%d", (rank + 1) % size);
  int right = -1;
  int got   = bxisim_kv_get(key, &right, sizeof(right), NULL);
  printf("rank=%d put=%d got=%d right=%d\n", rank, put, got, right);
  return 0;
}
