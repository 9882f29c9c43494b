// The SMPI back end's datatypes, laid out as OpenMPI lays them out. SMPI 3.32 computes the bounds of derived types
// its own way and often not as MPI does (TypeBounds.hpp): {int, char} has an extent of 5 instead of 8, a vector
// with a negative stride a negative extent, a subarray the extent of its data only. The layout of a message then
// differed from the other levels' as soon as a call sent more than one element of such a type. bxisim computes
// OpenMPI's bounds for every type it makes and, where SMPI's differ, hands the program a struct over SMPI's type
// that sets them: {empty blocks at lb and ub, the type at 0, an empty block at the extent}, or with MPI_LB and
// MPI_UB markers where empty blocks cannot set them. SMPI steps from one element to the next by where the last
// block of a struct ends (the empty block, at the extent), so its copies of the data follow MPI's extent; its own
// type still moves each element's data.

#include "SmpiRank.hpp"

#include <algorithm>
#include <climits>

namespace bxisim::mw
{

namespace
{
/** simgrid::smpi::Datatype::unref, a static function. */
void drop_reference(SmpiAbi::be_datatype type)
{
  using DatatypeUnref              = void (*)(void* type);
  static const DatatypeUnref unref = reinterpret_cast<DatatypeUnref>(
      SmpiAbi::simgrid_internal("_ZN7simgrid4smpi8Datatype5unrefEPS1_", "simgrid::smpi::Datatype::unref"));
  unref(type);
}
} // namespace

std::optional<TypeBounds> SmpiAbi::bounds_of(MPI_Datatype type) const
{
  if (reinterpret_cast<uintptr_t>(type) < kPredefinedLimit)
    return predefined_bounds(type);
  auto it = derived_bounds_.find(to_be_datatype(type));
  if (it == derived_bounds_.end())
    return std::nullopt;
  return it->second;
}

int SmpiAbi::laid_out(int result, be_datatype made, const std::optional<TypeBounds>& bounds,
                      std::optional<MPI_Aint> smpi_step, MPI_Datatype* newtype, const LayoutCalls& calls)
{
  if (not be_ok(result)) {
    if (newtype != nullptr)
      *newtype = MPI_DATATYPE_NULL;
    return from_be_errcode(result);
  }
  be_datatype handed = made;
  MPI_Aint lb = 0, extent = 0;
  if (bounds.has_value() && be_ok(calls.get_extent(made, &lb, &extent)) &&
      (lb != bounds->lb || extent != bounds->extent() || smpi_step != bounds->extent())) {
    be_datatype wrapper = wrapped(made, *bounds, calls);
    if (wrapper != nullptr) {
      made_by_smpi_[wrapper] = made;
      handed                 = wrapper;
    }
  }
  if (bounds.has_value())
    derived_bounds_[handed] = *bounds;
  *newtype = from_be_datatype(handed);
  return MPI_SUCCESS;
}

SmpiAbi::be_datatype SmpiAbi::wrapped(be_datatype made, const TypeBounds& bounds, const LayoutCalls& calls)
{
  // The empty blocks are of MPI_INT: SMPI applies an MPI_Accumulate's operation to every block, even an empty one,
  // and MPI_INT is a type its predefined operations take.
  be_datatype empty = to_be_datatype(MPI_INT);
  auto made_with    = [&](int count, const int* lengths, const MPI_Aint* places, be_datatype* parts) -> be_datatype {
    be_datatype wrapper = nullptr;
    if (not be_ok(calls.create_struct(count, lengths, places, parts, &wrapper)))
      return nullptr;
    MPI_Aint lb = 0, extent = 0;
    if (be_ok(calls.get_extent(wrapper, &lb, &extent)) && lb == bounds.lb && extent == bounds.extent())
      return wrapper;
    calls.free(&wrapper);
    return nullptr;
  };
  // Without bound markers where the type's own blocks and empty ones at lb and ub give SMPI the bounds: SMPI 3.32
  // applies an accumulate's operation to its MPI_LB and MPI_UB too, and fails. The last block, at the extent, must
  // not reach beyond ub, so this needs lb >= 0.
  if (bounds.lb >= 0) {
    int lengths[]       = {0, 1, 0, 0};
    MPI_Aint places[]   = {bounds.lb, 0, bounds.ub, bounds.extent()};
    be_datatype parts[] = {empty, made, empty, empty};
    if (be_datatype wrapper = made_with(4, lengths, places, parts))
      return wrapper;
  }
  if (lower_bound_marker_ == nullptr || upper_bound_marker_ == nullptr)
    return nullptr;
  int lengths[]       = {1, 1, 1, 0};
  MPI_Aint places[]   = {bounds.lb, bounds.ub, 0, bounds.extent()};
  be_datatype parts[] = {lower_bound_marker_, upper_bound_marker_, made, empty};
  return made_with(4, lengths, places, parts);
}

SmpiAbi::be_datatype SmpiAbi::made_by_smpi(be_datatype type) const
{
  auto it = made_by_smpi_.find(type);
  return it != made_by_smpi_.end() ? it->second : type;
}

void SmpiAbi::duplicated_type(be_datatype type, be_datatype dup)
{
  auto it = derived_bounds_.find(type);
  if (it != derived_bounds_.end())
    derived_bounds_[dup] = it->second;
}

void SmpiAbi::freed_type(be_datatype type, int (*free_type)(be_datatype*))
{
  derived_bounds_.erase(type);
  arguments_of_.erase(type);
  accumulate_targets_.erase(accumulate_targets_.lower_bound({type, INT_MIN}),
                            accumulate_targets_.lower_bound({type, INT_MAX}));
  auto it = made_by_smpi_.find(type);
  if (it == made_by_smpi_.end())
    return;
  be_datatype made = it->second;
  made_by_smpi_.erase(it);
  arguments_of_.erase(made);
  free_type(&made);
}

// Each constructor hands laid_out OpenMPI's bounds and the distance SMPI 3.32 puts between two elements of what it
// made: an indexed or struct type's goes from the start of an element to the end of its last listed block, a
// vector's to the end of its last block, a resized type's to its lb plus its extent (smpi_datatype_derived.cpp).

MPI_Aint SmpiRank::smpi_extent(MPI_Datatype type)
{
  MPI_Aint lb = 0, extent = 0;
  fn_.Type_get_extent(to_be_datatype(type), &lb, &extent);
  return extent;
}

bool SmpiRank::holds_no_data(MPI_Datatype type)
{
  int size = -1;
  return be_ok(fn_.Type_size(to_be_datatype(type), &size)) && size == 0;
}

int SmpiRank::Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype* newtype)
{
  be_datatype made = nullptr;
  int result       = fn_.Type_contiguous(count, to_be_datatype(oldtype), &made);
  return laid_out_over(
      result, made, true, oldtype, [&](const TypeBounds& old) { return contiguous_bounds(count, old); },
      [&] { return count * smpi_extent(oldtype); }, newtype, layout_calls());
}

int SmpiRank::Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype* newtype)
{
  be_datatype made = nullptr;
  int result       = fn_.Type_vector(count, blocklength, stride, to_be_datatype(oldtype), &made);
  return laid_out_over(
      result, made, count > 0, oldtype,
      [&](const TypeBounds& old) { return vector_bounds(count, blocklength, stride, old); },
      [&] { return (static_cast<MPI_Aint>(count - 1) * stride + blocklength) * smpi_extent(oldtype); }, newtype,
      layout_calls());
}

int SmpiRank::Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                                  MPI_Datatype* newtype)
{
  be_datatype made = nullptr;
  int result       = fn_.Type_create_hvector(count, blocklength, stride, to_be_datatype(oldtype), &made);
  return laid_out_over(
      result, made, count > 0, oldtype,
      [&](const TypeBounds& old) { return hvector_bounds(count, blocklength, stride, old); },
      [&] { return (count - 1) * stride + blocklength * smpi_extent(oldtype); }, newtype, layout_calls());
}

int SmpiRank::Type_indexed(int count, const int* array_of_blocklengths, const int* array_of_displacements,
                           MPI_Datatype oldtype, MPI_Datatype* newtype)
{
  be_datatype made = nullptr;
  int result = fn_.Type_indexed(count, array_of_blocklengths, array_of_displacements, to_be_datatype(oldtype), &made);
  return laid_out_over(
      result, made, count > 0, oldtype,
      [&](const TypeBounds& old) { return indexed_bounds(count, array_of_blocklengths, array_of_displacements, old); },
      [&] {
        return static_cast<MPI_Aint>(array_of_displacements[count - 1] + array_of_blocklengths[count - 1]) *
               smpi_extent(oldtype);
      },
      newtype, layout_calls());
}

int SmpiRank::Type_create_hindexed(int count, const int* array_of_blocklengths, const MPI_Aint* array_of_displacements,
                                   MPI_Datatype oldtype, MPI_Datatype* newtype)
{
  be_datatype made = nullptr;
  int result =
      fn_.Type_create_hindexed(count, array_of_blocklengths, array_of_displacements, to_be_datatype(oldtype), &made);
  return laid_out_over(
      result, made, count > 0, oldtype,
      [&](const TypeBounds& old) { return hindexed_bounds(count, array_of_blocklengths, array_of_displacements, old); },
      [&] { return array_of_displacements[count - 1] + array_of_blocklengths[count - 1] * smpi_extent(oldtype); },
      newtype, layout_calls());
}

int SmpiRank::Type_create_indexed_block(int count, int blocklength, const int* array_of_displacements,
                                        MPI_Datatype oldtype, MPI_Datatype* newtype)
{
  be_datatype made = nullptr;
  int result =
      fn_.Type_create_indexed_block(count, blocklength, array_of_displacements, to_be_datatype(oldtype), &made);
  if (be_ok(result) && count > 0 && reinterpret_cast<uintptr_t>(oldtype) < kPredefinedLimit) {
    std::vector<int> integers{count, blocklength};
    integers.insert(integers.end(), array_of_displacements, array_of_displacements + count);
    keep_arguments(made, MPI_COMBINER_INDEXED_BLOCK, std::move(integers), {}, {oldtype});
  }
  return laid_out_over(
      result, made, count > 0, oldtype,
      [&](const TypeBounds& old) { return indexed_block_bounds(count, blocklength, array_of_displacements, old); },
      [&] { return static_cast<MPI_Aint>(array_of_displacements[count - 1] + blocklength) * smpi_extent(oldtype); },
      newtype, layout_calls());
}

int SmpiRank::Type_create_hindexed_block(int count, int blocklength, const MPI_Aint* array_of_displacements,
                                         MPI_Datatype oldtype, MPI_Datatype* newtype)
{
  be_datatype made = nullptr;
  int result =
      fn_.Type_create_hindexed_block(count, blocklength, array_of_displacements, to_be_datatype(oldtype), &made);
  if (be_ok(result) && count > 0 && reinterpret_cast<uintptr_t>(oldtype) < kPredefinedLimit)
    keep_arguments(made, MPI_COMBINER_HINDEXED_BLOCK, {count, blocklength},
                   {array_of_displacements, array_of_displacements + count}, {oldtype});
  return laid_out_over(
      result, made, count > 0, oldtype,
      [&](const TypeBounds& old) { return hindexed_block_bounds(count, blocklength, array_of_displacements, old); },
      [&] { return array_of_displacements[count - 1] + blocklength * smpi_extent(oldtype); }, newtype, layout_calls());
}

int SmpiRank::Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype* newtype)
{
  be_datatype made = nullptr;
  int result       = fn_.Type_create_resized(to_be_datatype(oldtype), lb, extent, &made);
  return laid_out_over(
      result, made, true, oldtype, [&](const TypeBounds& old) { return resized_bounds(old, lb, extent); },
      [&] { return lb + extent; }, newtype, layout_calls());
}

int SmpiRank::Type_create_subarray(int ndims, const int* size_array, const int* subsize_array, const int* start_array,
                                   int order, MPI_Datatype oldtype, MPI_Datatype* newtype)
{
  be_datatype made = nullptr;
  int result       = fn_.Type_create_subarray(ndims, size_array, subsize_array, start_array, to_be_order(order),
                                              to_be_datatype(oldtype), &made);
  return laid_out_over(
      result, made, true, oldtype,
      [&](const TypeBounds& old) {
        return subarray_bounds(ndims, size_array, subsize_array, start_array, order == MPI_ORDER_C, old);
      },
      [] { return std::optional<MPI_Aint>(); }, // SMPI's own step: not known here, always laid out
      newtype, layout_calls());
}

int SmpiRank::Type_create_struct(int count, const int* array_of_block_lengths, const MPI_Aint* array_of_displacements,
                                 const MPI_Datatype* array_of_types, MPI_Datatype* newtype)
{
  Scratch<void*> types(array_of_types != nullptr ? static_cast<size_t>(count) : 0);
  for (size_t i = 0; i < types.size(); ++i)
    types[i] = to_be_datatype(array_of_types[i]);
  be_datatype made = nullptr;
  int result       = fn_.Type_create_struct(count, array_of_block_lengths, array_of_displacements,
                                      array_of_types != nullptr ? types.data() : nullptr, &made);
  if (not be_ok(result) || count <= 0)
    return laid_out(result, made, std::nullopt, std::nullopt, newtype, layout_calls());
  std::vector<int> integers{count};
  integers.insert(integers.end(), array_of_block_lengths, array_of_block_lengths + count);
  keep_arguments(made, MPI_COMBINER_STRUCT, std::move(integers),
                 {array_of_displacements, array_of_displacements + count}, {array_of_types, array_of_types + count});
  std::vector<TypeBounds> parts;
  for (int i = 0; i < count; ++i)
    if (auto part = bounds_of(array_of_types[i]))
      parts.push_back(*part);
  std::optional<TypeBounds> bounds;
  if (parts.size() == static_cast<size_t>(count)) {
    std::vector<StructBlock> blocks;
    for (int i = 0; i < count; ++i)
      blocks.push_back({array_of_block_lengths[i], array_of_displacements[i], &parts[i],
                        reinterpret_cast<std::uintptr_t>(array_of_types[i])});
    bounds = struct_bounds(blocks);
  }
  MPI_Aint step =
      array_of_displacements[count - 1] + array_of_block_lengths[count - 1] * smpi_extent(array_of_types[count - 1]);
  return laid_out(result, made, bounds, step, newtype, layout_calls());
}

void SmpiAbi::keep_arguments(be_datatype made, int combiner, std::vector<int> integers, std::vector<MPI_Aint> addresses,
                             std::vector<MPI_Datatype> types)
{
  ConstructorArguments& kept = arguments_of_[made];
  kept.combiner              = combiner;
  kept.integers              = std::move(integers);
  kept.addresses             = std::move(addresses);
  kept.types                 = std::move(types);
  for (MPI_Datatype part : kept.types)
    kept.of_predefined_types &= reinterpret_cast<uintptr_t>(part) < kPredefinedLimit;
}

int SmpiRank::Type_get_envelope(MPI_Datatype type, int* num_integers, int* num_addresses, int* num_datatypes,
                                int* combiner)
{
  be_datatype made = made_by_smpi(to_be_datatype(type));
  auto it          = arguments_of_.find(made);
  if (it != arguments_of_.end()) {
    *num_integers  = static_cast<int>(it->second.integers.size());
    *num_addresses = static_cast<int>(it->second.addresses.size());
    *num_datatypes = static_cast<int>(it->second.types.size());
    *combiner      = it->second.combiner;
    return MPI_SUCCESS;
  }
  int be_combiner = 0;
  int result      = fn_.Type_get_envelope(made, num_integers, num_addresses, num_datatypes, &be_combiner);
  if (be_ok(result))
    *combiner = from_be_combiner(be_combiner);
  return from_be_errcode(result);
}

int SmpiRank::Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes,
                                int* array_of_integers, MPI_Aint* array_of_addresses, MPI_Datatype* array_of_datatypes)
{
  be_datatype made = made_by_smpi(to_be_datatype(datatype));
  // Predefined parts are answered from the arguments; derived ones by SMPI, whose answer counts the references
  // the program frees (its layout of a struct's contents is MPI's).
  auto it = arguments_of_.find(made);
  if (it != arguments_of_.end() && it->second.of_predefined_types) {
    const ConstructorArguments& kept = it->second;
    if (static_cast<size_t>(max_integers) < kept.integers.size() ||
        static_cast<size_t>(max_addresses) < kept.addresses.size() ||
        static_cast<size_t>(max_datatypes) < kept.types.size())
      return MPI_ERR_ARG;
    std::copy(kept.integers.begin(), kept.integers.end(), array_of_integers);
    std::copy(kept.addresses.begin(), kept.addresses.end(), array_of_addresses);
    std::copy(kept.types.begin(), kept.types.end(), array_of_datatypes);
    return MPI_SUCCESS;
  }
  Scratch<be_datatype> types(array_of_datatypes != nullptr ? static_cast<size_t>(max_datatypes) : 0);
  int result   = fn_.Type_get_contents(made, max_integers, max_addresses, max_datatypes, array_of_integers,
                                       array_of_addresses, array_of_datatypes != nullptr ? types.data() : nullptr);
  int integers = 0, addresses = 0, parts = 0, combiner = 0;
  if (be_ok(result) && be_ok(fn_.Type_get_envelope(made, &integers, &addresses, &parts, &combiner)))
    for (size_t i = 0; i < std::min(types.size(), static_cast<size_t>(parts)); ++i) {
      array_of_datatypes[i] = from_be_datatype(types[i]);
      int n = 0, a = 0, t = 0, kind = 0;
      if (be_ok(fn_.Type_get_envelope(types[i], &n, &a, &t, &kind)) && from_be_combiner(kind) != MPI_COMBINER_NAMED)
        ++contents_references_[types[i]];
    }
  return from_be_errcode(result);
}

int SmpiRank::Type_get_true_extent(MPI_Datatype datatype, MPI_Aint* true_lb, MPI_Aint* true_extent)
{
  if (reinterpret_cast<uintptr_t>(datatype) >= kPredefinedLimit)
    if (auto bounds = bounds_of(datatype)) {
      *true_lb     = bounds->true_lb;
      *true_extent = bounds->true_extent();
      return MPI_SUCCESS;
    }
  return from_be_errcode(fn_.Type_get_true_extent(to_be_datatype(datatype), true_lb, true_extent));
}

int SmpiRank::Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count* true_lb, MPI_Count* true_extent)
{
  if (reinterpret_cast<uintptr_t>(datatype) >= kPredefinedLimit)
    if (auto bounds = bounds_of(datatype)) {
      *true_lb     = bounds->true_lb;
      *true_extent = bounds->true_extent();
      return MPI_SUCCESS;
    }
  return from_be_errcode(fn_.Type_get_true_extent_x(to_be_datatype(datatype), true_lb, true_extent));
}

int SmpiRank::Type_free(MPI_Datatype* type)
{
  be_datatype freed = to_be_datatype(*type);
  // A handle MPI_Type_get_contents gave is SMPI's own type, the one the program made: SMPI's MPI_Type_free would mark
  // it freed for every handle ("datatype has already been freed" at the next send of the original). Only the
  // reference it holds is dropped, and bxisim keeps what it knows of the type.
  if (auto given = contents_references_.find(freed); given != contents_references_.end()) {
    if (--given->second == 0)
      contents_references_.erase(given);
    drop_reference(freed);
    *type = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
  }
  be_datatype made = freed;
  int result       = fn_.Type_free(&made);
  if (be_ok(result))
    freed_type(freed, fn_.Type_free);
  *type = from_be_datatype(made);
  return from_be_errcode(result);
}

} // namespace bxisim::mw
