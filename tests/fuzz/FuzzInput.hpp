#pragma once
// Reads typed values off a fuzzer's input, zero once it is used up.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace bxisim::fuzz
{

class FuzzInput
{
 public:
  FuzzInput(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  bool empty() const { return position_ >= size_; }

  template <typename T>
  T take()
  {
    T value{};
    size_t count = std::min(sizeof(T), size_ - std::min(position_, size_));
    std::memcpy(&value, data_ + position_, count);
    position_ += sizeof(T);
    return value;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t position_ = 0;
};

} // namespace bxisim::fuzz
