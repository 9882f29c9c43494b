#include "portals/core/NicMemoryAccess.hpp"

namespace bxisim::portals
{

namespace
{
const NicMemoryAccess* under_way = nullptr;
} // namespace

const NicMemoryAccess* nic_memory_access_under_way() noexcept
{
  return under_way;
}

NicMemoryAccessScope::NicMemoryAccessScope(const NicMemoryAccess& access) noexcept : outer_(under_way)
{
  under_way = &access;
}

NicMemoryAccessScope::~NicMemoryAccessScope()
{
  under_way = outer_;
}

} // namespace bxisim::portals
