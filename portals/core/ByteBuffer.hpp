/* A growable buffer of bytes that resize() leaves uninitialized: a Get's reply is read from the target's
 * memory right after the buffer is sized, so zero-filling it first (std::vector's value-initialization)
 * only doubles the memory traffic of every large Get. */
#ifndef BXISIM_PORTALS_BYTE_BUFFER_HPP
#define BXISIM_PORTALS_BYTE_BUFFER_HPP

#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace bxisim::portals
{

template <class T>
class DefaultInitAllocator : public std::allocator<T>
{
 public:
  using std::allocator<T>::allocator;
  template <class U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  /* The construction a value-initializing resize() asks for: default-initialization instead. */
  template <class U>
  void construct(U* where) noexcept(std::is_nothrow_default_constructible_v<U>)
  {
    ::new (static_cast<void*>(where)) U;
  }
  template <class U, class... Args>
  void construct(U* where, Args&&... args)
  {
    ::new (static_cast<void*>(where)) U(std::forward<Args>(args)...);
  }
};

using ByteBuffer = std::vector<unsigned char, DefaultInitAllocator<unsigned char>>;

} // namespace bxisim::portals

#endif
