// The target of an accumulate at smpi. SMPI 3.32 applies the operation to each part of the target's datatype as it
// built it, and stops the simulator on a part that is not predefined: a subarray and a resized type end in MPI_LB
// and MPI_UB markers ("Failed to apply SUM_OP to type MPI_LB"), a vector whose blocks touch is a contiguous type of
// its own ("... to type MPI_Datatype"), and so do bxisim's wrappers with markers. SMPI is given instead the same
// elements at the same places as one hindexed type of their predefined type. The places are where SMPI's own packing
// reads each element, so the data SMPI moves for the origin meets them in the order it has always used. Finding them
// costs a packing of the type's whole span per byte of it (three for a span under 16 MiB), once per type and count.
//
// A flat type is kept for the run and shared by every type of its layout: freed when the program frees its type (an
// MPI_Get_accumulate's target, freed before the window's flush as ARMCI-MPI does), SMPI 3.32 later read wrong data
// through it. Programs reuse few layouts (ARMCI-MPI's strided transfers: one per patch shape and place).

#include "SmpiRank.hpp"
#include "TypeElements.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <vector>

namespace bxisim::mw
{

SmpiAbi::AccumulateTarget SmpiRank::accumulate_target(MPI_Datatype type, int count, MPI_Op op)
{
  be_datatype handed = to_be_datatype(type);
  // MPI_REPLACE and MPI_NO_OP copy bytes whatever the part (ARMCI-MPI's puts are accumulates with MPI_REPLACE)
  if (reinterpret_cast<uintptr_t>(type) < kPredefinedLimit || count <= 0 || op == MPI_REPLACE || op == MPI_NO_OP)
    return {handed, count};
  auto known = accumulate_targets_.find({handed, count});
  if (known != accumulate_targets_.end())
    return {known->second, 1};
  be_datatype flat = flattened(type, count);
  if (flat == nullptr)
    return {handed, count}; // SMPI's own answer (an error for a type of no single predefined element)
  accumulate_targets_[{handed, count}] = flat;
  return {flat, 1};
}

SmpiAbi::be_datatype SmpiRank::flattened(MPI_Datatype type, int count)
{
  MPI_Datatype element = element_type_of(*this, type);
  if (element == MPI_DATATYPE_NULL)
    return nullptr;
  be_datatype be_type = to_be_datatype(type), be_element = to_be_datatype(element);
  int element_size = 0, type_size = 0;
  if (not be_ok(fn_.Type_size(be_element, &element_size)) || not be_ok(fn_.Type_size(be_type, &type_size)) ||
      element_size <= 0)
    return nullptr;
  const int64_t bytes = int64_t{type_size} * count;
  if (bytes == 0 || bytes > INT_MAX || bytes % element_size != 0)
    return nullptr;
  // Every byte SMPI's packing may read: from the first copy's true lb to the last copy's true ub, by MPI's extent
  // (bxisim lays SMPI's types out with it).
  MPI_Count true_lb = 0, true_extent = 0;
  MPI_Aint lb = 0, extent = 0;
  if (Type_get_true_extent_x(type, &true_lb, &true_extent) != MPI_SUCCESS ||
      Type_get_extent(type, &lb, &extent) != MPI_SUCCESS)
    return nullptr;
  const int64_t reach = int64_t{count - 1} * extent;
  const int64_t low   = true_lb + std::min<int64_t>(0, reach);
  const int64_t span  = true_lb + true_extent + std::max<int64_t>(0, reach) - low;
  if (span <= 0)
    return nullptr;
  // Each element's place, one byte of it per packing: the probe holds byte d of every byte's own offset, and the
  // first packed byte of an element is that of its first byte.
  std::vector<unsigned char> probe(static_cast<size_t>(span)), packed(static_cast<size_t>(bytes));
  std::vector<MPI_Aint> places(static_cast<size_t>(bytes / element_size), 0);
  void* origin = reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(probe.data()) - static_cast<uintptr_t>(low));
  for (int shift = 0; shift == 0 || (shift < 64 && ((span - 1) >> shift) > 0); shift += 8) {
    for (size_t i = 0; i < probe.size(); ++i)
      probe[i] = static_cast<unsigned char>(static_cast<uint64_t>(i) >> shift);
    int position = 0;
    if (not be_ok(fn_.Pack(origin, count, be_type, packed.data(), static_cast<int>(bytes), &position,
                           to_be_comm(MPI_COMM_SELF))) ||
        position != bytes)
      return nullptr;
    for (size_t j = 0; j < places.size(); ++j)
      places[j] |= static_cast<MPI_Aint>(packed[j * static_cast<size_t>(element_size)]) << shift;
  }
  std::vector<std::pair<MPI_Aint, int>> blocks; // (place, elements)
  for (MPI_Aint place : places) {
    place += low;
    if (not blocks.empty() && place == blocks.back().first + MPI_Aint{blocks.back().second} * element_size)
      ++blocks.back().second;
    else
      blocks.emplace_back(place, 1);
  }
  auto [kept, made] = flat_types_.try_emplace({be_element, blocks}, nullptr);
  if (not made)
    return kept->second;
  std::vector<MPI_Aint> starts;
  std::vector<int> lengths;
  for (const auto& [place, elements] : blocks) {
    starts.push_back(place);
    lengths.push_back(elements);
  }
  be_datatype flat = nullptr;
  if (not be_ok(fn_.Type_create_hindexed(static_cast<int>(lengths.size()), lengths.data(), starts.data(), be_element,
                                         &flat)) ||
      not be_ok(fn_.Type_commit(&flat))) {
    if (flat != nullptr)
      fn_.Type_free(&flat);
    flat_types_.erase(kept);
    return nullptr;
  }
  kept->second = flat;
  return flat;
}

} // namespace bxisim::mw
