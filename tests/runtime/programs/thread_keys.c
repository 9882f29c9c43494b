/* Thread-specific data keys, more than the process may have (PTHREAD_KEYS_MAX, 1024) over all ranks, as
 * ranks that each load a copy of a library making its own keys (OpenMPI) use: each rank makes `count` keys,
 * sets and reads them, deletes and makes some again (they start empty), and a thread it starts sets them
 * all and ends (their destructors run). Prints key=value fields. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_key_t* keys;
static int count;
static int destructor_calls = 0;

static void count_destructor(void* value)
{
  (void)value;
  __atomic_add_fetch(&destructor_calls, 1, __ATOMIC_SEQ_CST);
}

static void* set_them_all(void* unused)
{
  (void)unused;
  static int value;
  for (int i = 0; i < count; ++i)
    pthread_setspecific(keys[i], &value);
  return NULL;
}

int main(int argc, char** argv)
{
  count     = argc > 1 ? atoi(argv[1]) : 700;
  keys      = calloc((size_t)count, sizeof *keys);
  int* data = calloc((size_t)count, sizeof *data);
  int made = 0, wrong = 0, empty_again = 0;
  for (int i = 0; i < count; ++i)
    made += pthread_key_create(&keys[i], count_destructor) == 0;
  for (int i = 0; i < count; ++i)
    pthread_setspecific(keys[i], &data[i]);
  for (int i = 0; i < count; ++i)
    wrong += pthread_getspecific(keys[i]) != &data[i];
  for (int i = 0; i < count; i += 2) { /* deleted and made again: no value, no destructor */
    pthread_key_delete(keys[i]);
    pthread_key_create(&keys[i], count_destructor);
    empty_again += pthread_getspecific(keys[i]) == NULL;
  }
  pthread_t thread;
  pthread_create(&thread, NULL, set_them_all, NULL);
  pthread_join(thread, NULL);
  printf("made=%d wrong=%d empty_again=%d destructor_calls=%d\n", made, wrong, empty_again, destructor_calls);
  return 0;
}
