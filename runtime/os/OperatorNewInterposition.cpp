// C++'s replaceable allocation functions, defined by the executable so that they reach its malloc()
// (os/HeapInterposition.cpp). libstdc++'s own call malloc() already; an allocator preloaded with LD_PRELOAD
// (tcmalloc, jemalloc) defines them too and would otherwise take a rank's `new` out of its heap.

#include <cstdlib>
#include <new>

#ifndef __SANITIZE_ADDRESS__
namespace
{
void* allocate_or_throw(std::size_t size)
{
  for (;;) {
    if (void* block = std::malloc(size == 0 ? 1 : size))
      return block;
    std::new_handler handler = std::get_new_handler();
    if (handler == nullptr)
      throw std::bad_alloc();
    handler();
  }
}

void* allocate_aligned_or_throw(std::size_t size, std::align_val_t alignment)
{
  auto bytes = static_cast<std::size_t>(alignment);
  for (;;) {
    void* block = nullptr;
    if (posix_memalign(&block, bytes < sizeof(void*) ? sizeof(void*) : bytes, size == 0 ? 1 : size) == 0)
      return block;
    std::new_handler handler = std::get_new_handler();
    if (handler == nullptr)
      throw std::bad_alloc();
    handler();
  }
}

template <class Allocate>
void* or_null(Allocate allocate) noexcept
{
  try {
    return allocate();
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}
} // namespace

void* operator new(std::size_t size)
{
  return allocate_or_throw(size);
}
void* operator new[](std::size_t size)
{
  return allocate_or_throw(size);
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept
{
  return or_null([size] { return allocate_or_throw(size); });
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept
{
  return or_null([size] { return allocate_or_throw(size); });
}
void* operator new(std::size_t size, std::align_val_t alignment)
{
  return allocate_aligned_or_throw(size, alignment);
}
void* operator new[](std::size_t size, std::align_val_t alignment)
{
  return allocate_aligned_or_throw(size, alignment);
}
void* operator new(std::size_t size, std::align_val_t alignment, const std::nothrow_t&) noexcept
{
  return or_null([=] { return allocate_aligned_or_throw(size, alignment); });
}
void* operator new[](std::size_t size, std::align_val_t alignment, const std::nothrow_t&) noexcept
{
  return or_null([=] { return allocate_aligned_or_throw(size, alignment); });
}

void operator delete(void* block) noexcept
{
  std::free(block);
}
void operator delete[](void* block) noexcept
{
  std::free(block);
}
void operator delete(void* block, std::size_t) noexcept
{
  std::free(block);
}
void operator delete[](void* block, std::size_t) noexcept
{
  std::free(block);
}
void operator delete(void* block, const std::nothrow_t&) noexcept
{
  std::free(block);
}
void operator delete[](void* block, const std::nothrow_t&) noexcept
{
  std::free(block);
}
void operator delete(void* block, std::align_val_t) noexcept
{
  std::free(block);
}
void operator delete[](void* block, std::align_val_t) noexcept
{
  std::free(block);
}
void operator delete(void* block, std::size_t, std::align_val_t) noexcept
{
  std::free(block);
}
void operator delete[](void* block, std::size_t, std::align_val_t) noexcept
{
  std::free(block);
}
void operator delete(void* block, std::align_val_t, const std::nothrow_t&) noexcept
{
  std::free(block);
}
void operator delete[](void* block, std::align_val_t, const std::nothrow_t&) noexcept
{
  std::free(block);
}
#endif
