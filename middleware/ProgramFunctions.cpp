#include "ProgramFunctions.hpp"

#include "RankMpi.hpp"

#include <dlfcn.h>

#include <vector>

namespace bxisim::mw
{

namespace
{
std::vector<uintptr_t>& image_bases() // by rank: where its copy of the program is loaded
{
  static std::vector<uintptr_t> bases;
  return bases;
}

uintptr_t image_base_of(const void* address)
{
  Dl_info info{};
  return dladdr(address, &info) != 0 ? reinterpret_cast<uintptr_t>(info.dli_fbase) : 0;
}
} // namespace

void note_program_copy(int rank, const void* inside)
{
  auto& bases = image_bases();
  if (rank < 0)
    return;
  if (static_cast<size_t>(rank) >= bases.size())
    bases.resize(static_cast<size_t>(rank) + 1, 0);
  bases[static_cast<size_t>(rank)] = image_base_of(inside);
}

ProgramFunction program_function_of(int rank, const void* function)
{
  const auto& bases = image_bases();
  auto address      = reinterpret_cast<uintptr_t>(function);
  if (rank >= 0 && static_cast<size_t>(rank) < bases.size() && bases[static_cast<size_t>(rank)] != 0 &&
      image_base_of(function) == bases[static_cast<size_t>(rank)])
    return {address - bases[static_cast<size_t>(rank)], true};
  return {address, false};
}

void* address_in(int rank, ProgramFunction function)
{
  if (not function.in_program)
    return reinterpret_cast<void*>(function.value);
  return reinterpret_cast<void*>(image_bases().at(static_cast<size_t>(rank)) + function.value);
}

} // namespace bxisim::mw
