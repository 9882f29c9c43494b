#include "SharedObjectAttributes.hpp"

#include <algorithm>

namespace bxisim::mw
{

namespace
{
// SMPI's callback types, which are also those of bxisim's trampolines (Callbacks.cpp).
using CopyFunction       = int(void* object, int keyval, void* extra_state, void* in, void* out, int* flag);
using DeleteFunction     = int(void* object, int keyval, void* value, void* extra_state);
void* const kDupFunction = reinterpret_cast<void*>(1); // SMPI's MPI_x_DUP_FN
} // namespace

void SharedObjectAttributes::add_keyval(int keyval, const Callbacks& callbacks)
{
  keyvals_[keyval] = callbacks;
}

bool SharedObjectAttributes::knows(int keyval) const
{
  return keyvals_.count(keyval) != 0;
}

std::vector<SharedObjectAttributes::Attribute>::iterator SharedObjectAttributes::find(uintptr_t object, int keyval)
{
  return std::find_if(attributes_.begin(), attributes_.end(), [&](const Attribute& attribute) {
    return attribute.object == object && attribute.keyval == keyval;
  });
}

std::vector<SharedObjectAttributes::Attribute>::const_iterator SharedObjectAttributes::find(uintptr_t object,
                                                                                            int keyval) const
{
  return std::find_if(attributes_.begin(), attributes_.end(), [&](const Attribute& attribute) {
    return attribute.object == object && attribute.keyval == keyval;
  });
}

int SharedObjectAttributes::call_delete(const Attribute& attribute, void* smpi_object) const
{
  void* function = keyvals_.at(attribute.keyval)[1];
  if (function == nullptr)
    return kSuccess;
  return reinterpret_cast<DeleteFunction*>(function)(smpi_object, attribute.keyval, attribute.value,
                                                     keyvals_.at(attribute.keyval)[2]);
}

int SharedObjectAttributes::set(uintptr_t object, void* smpi_object, int keyval, void* value)
{
  auto it = find(object, keyval);
  if (it == attributes_.end()) {
    attributes_.push_back({object, keyval, value});
    return kSuccess;
  }
  if (int result = call_delete(*it, smpi_object); result != kSuccess)
    return result;
  it = find(object, keyval); // the delete function may have set or deleted attributes
  if (it == attributes_.end())
    attributes_.push_back({object, keyval, value});
  else
    it->value = value;
  return kSuccess;
}

bool SharedObjectAttributes::get(uintptr_t object, int keyval, void** value) const
{
  auto it = find(object, keyval);
  if (it == attributes_.end())
    return false;
  *value = it->value;
  return true;
}

bool SharedObjectAttributes::has(uintptr_t object, int keyval) const
{
  return find(object, keyval) != attributes_.end();
}

int SharedObjectAttributes::remove(uintptr_t object, void* smpi_object, int keyval)
{
  auto it = find(object, keyval);
  if (it == attributes_.end())
    return kSuccess;
  Attribute attribute = *it;
  if (int result = call_delete(attribute, smpi_object); result != kSuccess)
    return result; // MPI: the attribute stays when its delete function fails
  if (it = find(object, keyval); it != attributes_.end())
    attributes_.erase(it);
  return kSuccess;
}

int SharedObjectAttributes::copy(uintptr_t object, void* smpi_object, std::vector<Copied>* copied) const
{
  const std::vector<Attribute> attributes = attributes_; // a copy function may set or delete attributes
  for (const Attribute& attribute : attributes) {
    if (attribute.object != object)
      continue;
    const Callbacks& callbacks = keyvals_.at(attribute.keyval);
    if (callbacks[0] == nullptr)
      continue;
    if (callbacks[0] == kDupFunction) {
      copied->emplace_back(attribute.keyval, attribute.value);
      continue;
    }
    void* value = nullptr;
    int flag    = 0;
    int result  = reinterpret_cast<CopyFunction*>(callbacks[0])(smpi_object, attribute.keyval, callbacks[2],
                                                               attribute.value, &value, &flag);
    if (result != kSuccess)
      return result;
    if (flag)
      copied->emplace_back(attribute.keyval, value);
  }
  return kSuccess;
}

int SharedObjectAttributes::remove_all(uintptr_t object, void* smpi_object)
{
  int first_error = kSuccess;
  for (size_t i = attributes_.size(); i-- > 0;) {
    if (i >= attributes_.size() || attributes_[i].object != object)
      continue;
    Attribute attribute = attributes_[i];
    attributes_.erase(attributes_.begin() + static_cast<std::ptrdiff_t>(i));
    if (int result = call_delete(attribute, smpi_object); result != kSuccess && first_error == kSuccess)
      first_error = result;
  }
  return first_error;
}

} // namespace bxisim::mw
