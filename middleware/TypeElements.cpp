#include "TypeElements.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace bxisim::mw
{

namespace
{
/** The derived types MPI_Type_get_contents handed back are new handles: freed. */
void release_parts(MpiInterface& mpi, std::vector<MPI_Datatype>& parts)
{
  for (MPI_Datatype& part : parts) {
    int integers = 0, addresses = 0, types = 0, combiner = MPI_COMBINER_NAMED;
    if (mpi.Type_get_envelope(part, &integers, &addresses, &types, &combiner) == MPI_SUCCESS &&
        combiner != MPI_COMBINER_NAMED)
      mpi.Type_free(&part);
  }
}

/** The sizes of the two basic elements of a predefined pair type ({0, 0} for another type). SMPI pads some
 *  (its MPI_DOUBLE_INT is 16 bytes): bytes past the two elements are padding. */
std::pair<MPI_Count, MPI_Count> pair_parts(MPI_Datatype type)
{
  static const std::pair<MPI_Datatype, std::pair<MPI_Count, MPI_Count>> pairs[] = {
      {MPI_FLOAT_INT, {sizeof(float), sizeof(int)}}, {MPI_DOUBLE_INT, {sizeof(double), sizeof(int)}},
      {MPI_LONG_INT, {sizeof(long), sizeof(int)}},   {MPI_SHORT_INT, {sizeof(short), sizeof(int)}},
      {MPI_2INT, {sizeof(int), sizeof(int)}},        {MPI_LONG_DOUBLE_INT, {sizeof(long double), sizeof(int)}},
      {MPI_2REAL, {sizeof(float), sizeof(float)}},   {MPI_2DOUBLE_PRECISION, {sizeof(double), sizeof(double)}},
      {MPI_2INTEGER, {sizeof(int), sizeof(int)}}};
  for (const auto& [pair, parts] : pairs)
    if (type == pair)
      return parts;
  return {0, 0};
}

struct Count {
  MPI_Count elements = 0;
  MPI_Count leftover = 0; // bytes inside an element the data ends in
};

class Walk
{
 public:
  explicit Walk(MpiInterface& mpi) : mpi_(mpi) {}
  int error = MPI_SUCCESS;

  /** Elements in `bytes` bytes of copies of `type`. */
  Count copies(MPI_Datatype type, MPI_Count bytes)
  {
    MPI_Count size = this->size(type);
    if (size <= 0 || error != MPI_SUCCESS)
      return {0, bytes};
    Count whole = bytes >= size ? prefix(type, size) : Count{};
    Count rest  = prefix(type, bytes % size);
    return {whole.elements * (bytes / size) + rest.elements, rest.leftover};
  }

 private:
  MPI_Count size(MPI_Datatype type)
  {
    MPI_Count size = 0;
    if (int result = mpi_.Type_size_x(type, &size); result != MPI_SUCCESS)
      error = result;
    return size;
  }

  /** Elements in the first `bytes` (at most its size) of one copy of `type`. */
  Count prefix(MPI_Datatype type, MPI_Count bytes)
  {
    int integers = 0, addresses = 0, types = 0, combiner = MPI_COMBINER_NAMED;
    if (int result = mpi_.Type_get_envelope(type, &integers, &addresses, &types, &combiner); result != MPI_SUCCESS) {
      error = result;
      return {};
    }
    if (combiner == MPI_COMBINER_NAMED || combiner == MPI_COMBINER_F90_REAL || combiner == MPI_COMBINER_F90_COMPLEX ||
        combiner == MPI_COMBINER_F90_INTEGER) {
      auto [first, second] = pair_parts(type);
      if (first > 0)
        return bytes >= first + second ? Count{2, 0} : bytes >= first ? Count{1, bytes - first} : Count{0, bytes};
      return bytes == size(type) ? Count{1, 0} : Count{0, bytes};
    }
    std::vector<int> ints(static_cast<size_t>(integers));
    std::vector<MPI_Aint> addrs(static_cast<size_t>(addresses));
    std::vector<MPI_Datatype> parts(static_cast<size_t>(types));
    if (int result = mpi_.Type_get_contents(type, integers, addresses, types, ints.data(), addrs.data(), parts.data());
        result != MPI_SUCCESS) {
      error = result;
      return {};
    }
    Count count;
    // SMPI 3.32 turns some structs into bytes (its contents then say 260 bytes, one type): counted as such.
    bool blocks = combiner == MPI_COMBINER_STRUCT && integers >= 1 && integers >= ints[0] + 1 && types >= ints[0];
    if (types < 1) {
      count = {0, bytes};
    } else if (blocks) { // blocks of their own types, in order
      for (int i = 0; i < ints[0] && error == MPI_SUCCESS; ++i) {
        MPI_Count block = ints[static_cast<size_t>(i) + 1] * size(parts[static_cast<size_t>(i)]);
        Count part      = copies(parts[static_cast<size_t>(i)], std::min(bytes, block));
        count.elements += part.elements;
        if (bytes <= block) {
          count.leftover = part.leftover;
          bytes          = 0;
          break;
        }
        bytes -= block;
      }
      count.leftover += bytes;
    } else { // copies of one type: contiguous, vector, indexed, subarray, darray, dup, resized
      count = copies(parts[0], bytes);
    }
    release(parts);
    return count;
  }

  void release(std::vector<MPI_Datatype>& parts) { release_parts(mpi_, parts); }

  MpiInterface& mpi_;
};
} // namespace

int count_elements(MpiInterface& mpi, MPI_Datatype type, MPI_Count bytes, MPI_Count* elements)
{
  Walk walk(mpi);
  Count count = walk.copies(type, bytes);
  if (walk.error != MPI_SUCCESS)
    return walk.error;
  *elements = count.leftover == 0 ? count.elements : static_cast<MPI_Count>(MPI_UNDEFINED);
  return MPI_SUCCESS;
}

MPI_Datatype element_type_of(MpiInterface& mpi, MPI_Datatype type)
{
  int integers = 0, addresses = 0, types = 0, combiner = MPI_COMBINER_NAMED;
  if (mpi.Type_get_envelope(type, &integers, &addresses, &types, &combiner) != MPI_SUCCESS)
    return MPI_DATATYPE_NULL;
  if (combiner == MPI_COMBINER_NAMED || combiner == MPI_COMBINER_F90_REAL || combiner == MPI_COMBINER_F90_COMPLEX ||
      combiner == MPI_COMBINER_F90_INTEGER)
    return type;
  std::vector<int> ints(static_cast<size_t>(integers));
  std::vector<MPI_Aint> addrs(static_cast<size_t>(addresses));
  std::vector<MPI_Datatype> parts(static_cast<size_t>(types));
  if (mpi.Type_get_contents(type, integers, addresses, types, ints.data(), addrs.data(), parts.data()) != MPI_SUCCESS)
    return MPI_DATATYPE_NULL;
  MPI_Datatype element = MPI_DATATYPE_NULL;
  bool mixed           = false;
  for (size_t i = 0; i < parts.size(); ++i) {
    int size = 0;
    // A struct's empty blocks and MPI_LB/MPI_UB markers hold no element.
    bool empty = mpi.Type_size(parts[i], &size) != MPI_SUCCESS || size == 0 ||
                 (combiner == MPI_COMBINER_STRUCT && i + 1 < ints.size() && ints[i + 1] == 0);
    if (not empty) {
      MPI_Datatype part = element_type_of(mpi, parts[i]);
      mixed             = mixed || part == MPI_DATATYPE_NULL || (element != MPI_DATATYPE_NULL && part != element);
      element           = part;
    }
  }
  release_parts(mpi, parts);
  return mixed ? MPI_DATATYPE_NULL : element;
}

} // namespace bxisim::mw
