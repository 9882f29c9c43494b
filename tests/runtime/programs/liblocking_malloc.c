/* An allocator that takes a mutex of its own around glibc's, as jemalloc and other allocators do, preloaded
 * into bxisim (LD_PRELOAD): its pthread_mutex_lock and _unlock calls reach bxisim's interposed ones from inside
 * malloc, and anything those allocate waits for the allocator's own mutex, held by the same thread. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stddef.h>

void* __libc_malloc(size_t size);
void* __libc_calloc(size_t count, size_t size);
void* __libc_realloc(void* pointer, size_t size);
void* __libc_memalign(size_t alignment, size_t size);
void __libc_free(void* pointer);

static pthread_mutex_t allocator_lock = PTHREAD_MUTEX_INITIALIZER;

#define LOCKED(call)                                                                                                   \
  pthread_mutex_lock(&allocator_lock);                                                                                 \
  void* result = call;                                                                                                 \
  pthread_mutex_unlock(&allocator_lock);                                                                               \
  return result

void* malloc(size_t size)
{
  LOCKED(__libc_malloc(size));
}

void* calloc(size_t count, size_t size)
{
  LOCKED(__libc_calloc(count, size));
}

void* realloc(void* pointer, size_t size)
{
  LOCKED(__libc_realloc(pointer, size));
}

void* memalign(size_t alignment, size_t size)
{
  LOCKED(__libc_memalign(alignment, size));
}

void* aligned_alloc(size_t alignment, size_t size)
{
  LOCKED(__libc_memalign(alignment, size));
}

int posix_memalign(void** out, size_t alignment, size_t size)
{
  pthread_mutex_lock(&allocator_lock);
  *out = __libc_memalign(alignment, size);
  pthread_mutex_unlock(&allocator_lock);
  return *out != NULL ? 0 : 12; /* ENOMEM */
}

void free(void* pointer)
{
  pthread_mutex_lock(&allocator_lock);
  __libc_free(pointer);
  pthread_mutex_unlock(&allocator_lock);
}
