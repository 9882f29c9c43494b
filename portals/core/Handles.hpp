/* Portals handles: a 32-bit value that encodes the object kind, a table index and a generation.
 *
 *   bits 31..29  kind (HandleKind, never 0 so that 0 is not a valid handle)
 *   bits 28..21  generation (8 bits, incremented every time a table slot is reused)
 *   bits 20..0   index in the table of that kind (kMaxIndex excluded)
 *
 * PTL_EQ_NONE (0x3fffffff), PTL_CT_NONE (0x5fffffff) and PTL_INVALID_HANDLE (0xffffffff) all have the
 * index bits set to 0x1fffff, an index no table ever hands out, so they never decode to an object. */
#ifndef BXISIM_PORTALS_HANDLES_HPP
#define BXISIM_PORTALS_HANDLES_HPP

#include <portals4.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace bxisim::portals
{

enum class HandleKind : uint32_t { ni = 1, eq = 2, ct = 3, md = 4, me = 5, le = 6 };

constexpr uint32_t kHandleIndexBits      = 21;
constexpr uint32_t kHandleGenerationBits = 8;
constexpr uint32_t kMaxIndex             = (1u << kHandleIndexBits) - 1; // reserved: never a valid index

constexpr ptl_handle_any_t encode_handle(HandleKind kind, uint32_t index, uint32_t generation)
{
  return (static_cast<uint32_t>(kind) << 29) | ((generation & 0xffu) << kHandleIndexBits) | index;
}
constexpr HandleKind handle_kind(ptl_handle_any_t h)
{
  return static_cast<HandleKind>(h >> 29);
}
constexpr uint32_t handle_index(ptl_handle_any_t h)
{
  return h & kMaxIndex;
}
constexpr uint32_t handle_generation(ptl_handle_any_t h)
{
  return (h >> kHandleIndexBits) & 0xffu;
}

/* A table of objects of one kind. Objects are held by shared_ptr so that an object that leaves the
 * table (unlinked ME still referenced by unexpected headers, for instance) can outlive its handle. */
template <typename T>
class HandleTable
{
 public:
  explicit HandleTable(HandleKind kind) : kind_(kind) {}

  /* Called with every handle erase() makes stale (Core frees the owner's own number of it). */
  void set_erase_observer(std::function<void(ptl_handle_any_t)> observer) { erase_observer_ = std::move(observer); }

  /* Stores obj and returns its new handle, or PTL_INVALID_HANDLE when the table is full. */
  ptl_handle_any_t insert(std::shared_ptr<T> obj)
  {
    uint32_t index;
    if (!free_.empty()) {
      index = free_.back();
      free_.pop_back();
    } else {
      if (slots_.size() >= kMaxIndex)
        return PTL_INVALID_HANDLE;
      index = static_cast<uint32_t>(slots_.size());
      slots_.emplace_back();
    }
    slots_[index].object = std::move(obj);
    return encode_handle(kind_, index, slots_[index].generation);
  }

  /* The object of a live handle of this table's kind, or nullptr. */
  T* find(ptl_handle_any_t h) const
  {
    const Slot* s = live(h);
    return s != nullptr ? s->object.get() : nullptr; // no shared_ptr copy: every Portals call looks one up
  }
  std::shared_ptr<T> find_shared(ptl_handle_any_t h) const
  {
    const Slot* s = live(h);
    return s != nullptr ? s->object : nullptr;
  }

  /* Frees the slot of a live handle; the handle (and every copy of it) becomes stale. */
  void erase(ptl_handle_any_t h)
  {
    if (find(h) == nullptr)
      return;
    Slot& s = slots_[handle_index(h)];
    s.object.reset();
    s.generation = (s.generation + 1) & 0xffu;
    free_.push_back(handle_index(h));
    if (erase_observer_)
      erase_observer_(h);
  }

  void clear()
  {
    slots_.clear();
    free_.clear();
  }

 private:
  struct Slot {
    std::shared_ptr<T> object;
    uint32_t generation = 0;
  };
  const Slot* live(ptl_handle_any_t h) const
  {
    if (handle_kind(h) != kind_)
      return nullptr;
    uint32_t index = handle_index(h);
    if (index >= slots_.size())
      return nullptr;
    const Slot& s = slots_[index];
    if (!s.object || s.generation != handle_generation(h))
      return nullptr;
    return &s;
  }

  HandleKind kind_;
  std::vector<Slot> slots_;
  std::vector<uint32_t> free_;
  std::function<void(ptl_handle_any_t)> erase_observer_;
};

} // namespace bxisim::portals

#endif
