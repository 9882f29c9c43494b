#include "portals/core/MemoryRegion.hpp"

#include <cstring>

namespace bxisim::portals
{

MemoryRegion::MemoryRegion(void* start, ptl_size_t length, bool iovec) : start_(start)
{
  if (!iovec) {
    size_ = length;
    return;
  }
  const auto* v = static_cast<const ptl_iovec_t*>(start);
  iov_.assign(v, v + length);
  for (const ptl_iovec_t& e : iov_)
    size_ += e.iov_len;
}

void* MemoryRegion::address_at(ptl_size_t offset) const
{
  if (iov_.empty())
    return static_cast<unsigned char*>(start_) + offset;
  for (const ptl_iovec_t& e : iov_) {
    if (offset < e.iov_len)
      return static_cast<unsigned char*>(e.iov_base) + offset;
    offset -= e.iov_len;
  }
  return iov_.empty() ? start_ : static_cast<unsigned char*>(iov_.back().iov_base) + iov_.back().iov_len;
}

unsigned char* MemoryRegion::contiguous(ptl_size_t offset, ptl_size_t len) const
{
  if (iov_.empty())
    return static_cast<unsigned char*>(start_) + offset;
  for (const ptl_iovec_t& e : iov_) {
    if (offset < e.iov_len)
      return offset + len <= e.iov_len ? static_cast<unsigned char*>(e.iov_base) + offset : nullptr;
    offset -= e.iov_len;
  }
  return nullptr;
}

void MemoryRegion::read(ptl_size_t offset, void* dst, ptl_size_t len) const
{
  auto* out = static_cast<unsigned char*>(dst);
  if (iov_.empty()) {
    if (len > 0)
      std::memcpy(out, static_cast<const unsigned char*>(start_) + offset, len);
    return;
  }
  for (const ptl_iovec_t& e : iov_) {
    if (len == 0)
      return;
    if (offset >= e.iov_len) {
      offset -= e.iov_len;
      continue;
    }
    ptl_size_t n = e.iov_len - offset < len ? e.iov_len - offset : len;
    std::memcpy(out, static_cast<const unsigned char*>(e.iov_base) + offset, n);
    out += n;
    len -= n;
    offset = 0;
  }
}

void MemoryRegion::write(ptl_size_t offset, const void* src, ptl_size_t len) const
{
  const auto* in = static_cast<const unsigned char*>(src);
  if (iov_.empty()) {
    if (len > 0)
      std::memcpy(static_cast<unsigned char*>(start_) + offset, in, len);
    return;
  }
  for (const ptl_iovec_t& e : iov_) {
    if (len == 0)
      return;
    if (offset >= e.iov_len) {
      offset -= e.iov_len;
      continue;
    }
    ptl_size_t n = e.iov_len - offset < len ? e.iov_len - offset : len;
    std::memcpy(static_cast<unsigned char*>(e.iov_base) + offset, in, n);
    in += n;
    len -= n;
    offset = 0;
  }
}

} // namespace bxisim::portals
