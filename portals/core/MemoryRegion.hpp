/* A memory region of an MD, ME or LE: contiguous, or a PTL_IOVEC scatter/gather list that behaves as
 * one virtually contiguous region. */
#ifndef BXISIM_PORTALS_MEMORY_REGION_HPP
#define BXISIM_PORTALS_MEMORY_REGION_HPP

#include <portals4.h>

#include <vector>

namespace bxisim::portals
{

class MemoryRegion
{
 public:
  MemoryRegion() = default;
  /* `start`/`length` as in ptl_md_t/ptl_me_t; with iovec, start is an array of `length` ptl_iovec_t
   * (copied: the caller may reuse the array, which the spec allows implementations to do). */
  MemoryRegion(void* start, ptl_size_t length, bool iovec);

  ptl_size_t size() const { return size_; }
  bool scattered() const { return !iov_.empty(); }
  void* start() const { return start_; }
  /* The address of byte `offset` (start + offset when contiguous), for event->start. */
  void* address_at(ptl_size_t offset) const;
  void read(ptl_size_t offset, void* dst, ptl_size_t len) const;
  void write(ptl_size_t offset, const void* src, ptl_size_t len) const;
  /* The contiguous bytes at offset, or nullptr if [offset, offset+len) spans several iovec elements. */
  unsigned char* contiguous(ptl_size_t offset, ptl_size_t len) const;

 private:
  void* start_     = nullptr;
  ptl_size_t size_ = 0;
  std::vector<ptl_iovec_t> iov_; // empty when contiguous
};

} // namespace bxisim::portals

#endif
