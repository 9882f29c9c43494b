#include "External32.hpp"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>

namespace bxisim::mw
{

namespace
{
enum class Kind { Bytes, Signed, Unsigned, Real, Extended };

/** A basic element: its native and external32 sizes and how it converts. */
struct Basic {
  int native;
  int external;
  Kind kind;
};

/** The basic elements of a predefined type (two for pair and complex types); empty when it has no external32 form. */
std::vector<Basic> basics_of(MPI_Datatype type)
{
  constexpr Basic b1{1, 1, Kind::Bytes}, i2{2, 2, Kind::Signed}, u2{2, 2, Kind::Unsigned}, i4{4, 4, Kind::Signed},
      u4{4, 4, Kind::Unsigned}, i8{8, 8, Kind::Signed}, u8{8, 8, Kind::Unsigned}, f4{4, 4, Kind::Real},
      f8{8, 8, Kind::Real}, ld{sizeof(long double), 16, Kind::Extended}, l4{sizeof(long), 4, Kind::Signed},
      ul4{sizeof(unsigned long), 4, Kind::Unsigned}, w2{sizeof(wchar_t), 2, Kind::Unsigned};
  static const std::pair<MPI_Datatype, std::vector<Basic>> table[] = {{MPI_CHAR, {b1}},
                                                                      {MPI_UNSIGNED_CHAR, {b1}},
                                                                      {MPI_SIGNED_CHAR, {b1}},
                                                                      {MPI_BYTE, {b1}},
                                                                      {MPI_PACKED, {b1}},
                                                                      {MPI_C_BOOL, {b1}},
                                                                      {MPI_CHARACTER, {b1}},
                                                                      {MPI_INT8_T, {b1}},
                                                                      {MPI_UINT8_T, {b1}},
                                                                      {MPI_INTEGER1, {b1}},
                                                                      {MPI_WCHAR, {w2}},
                                                                      {MPI_SHORT, {i2}},
                                                                      {MPI_UNSIGNED_SHORT, {u2}},
                                                                      {MPI_INT16_T, {i2}},
                                                                      {MPI_UINT16_T, {u2}},
                                                                      {MPI_INTEGER2, {i2}},
                                                                      {MPI_INT, {i4}},
                                                                      {MPI_UNSIGNED, {u4}},
                                                                      {MPI_INT32_T, {i4}},
                                                                      {MPI_UINT32_T, {u4}},
                                                                      {MPI_INTEGER, {i4}},
                                                                      {MPI_INTEGER4, {i4}},
                                                                      {MPI_LOGICAL, {u4}},
                                                                      {MPI_LONG, {l4}},
                                                                      {MPI_UNSIGNED_LONG, {ul4}},
                                                                      {MPI_LONG_LONG, {i8}},
                                                                      {MPI_UNSIGNED_LONG_LONG, {u8}},
                                                                      {MPI_INT64_T, {i8}},
                                                                      {MPI_UINT64_T, {u8}},
                                                                      {MPI_INTEGER8, {i8}},
                                                                      {MPI_AINT, {i8}},
                                                                      {MPI_OFFSET, {i8}},
                                                                      {MPI_COUNT, {i8}},
                                                                      {MPI_FLOAT, {f4}},
                                                                      {MPI_REAL, {f4}},
                                                                      {MPI_REAL4, {f4}},
                                                                      {MPI_DOUBLE, {f8}},
                                                                      {MPI_DOUBLE_PRECISION, {f8}},
                                                                      {MPI_REAL8, {f8}},
                                                                      {MPI_LONG_DOUBLE, {ld}},
                                                                      {MPI_C_FLOAT_COMPLEX, {f4, f4}},
                                                                      {MPI_COMPLEX, {f4, f4}},
                                                                      {MPI_C_DOUBLE_COMPLEX, {f8, f8}},
                                                                      {MPI_DOUBLE_COMPLEX, {f8, f8}},
                                                                      {MPI_C_LONG_DOUBLE_COMPLEX, {ld, ld}},
                                                                      {MPI_FLOAT_INT, {f4, i4}},
                                                                      {MPI_DOUBLE_INT, {f8, i4}},
                                                                      {MPI_LONG_INT, {l4, i4}},
                                                                      {MPI_SHORT_INT, {i2, i4}},
                                                                      {MPI_2INT, {i4, i4}},
                                                                      {MPI_LONG_DOUBLE_INT, {ld, i4}},
                                                                      {MPI_2REAL, {f4, f4}},
                                                                      {MPI_2DOUBLE_PRECISION, {f8, f8}},
                                                                      {MPI_2INTEGER, {i4, i4}}};
  for (const auto& [predefined, parts] : table)
    if (type == predefined)
      return parts;
  return {};
}

/** x87 80-bit extended (the native long double) to IEEE binary128, both with a 15-bit exponent biased by 16383. */
void extended_to_quad(const unsigned char* native, unsigned char* quad_big_endian)
{
  uint64_t mantissa      = 0;
  uint16_t sign_exponent = 0;
  std::memcpy(&mantissa, native, 8);
  std::memcpy(&sign_exponent, native + 8, 2);
  uint64_t fraction = mantissa & 0x7fffffffffffffffULL; // without the explicit integer bit: 63 bits
  uint64_t high     = (static_cast<uint64_t>(sign_exponent) << 48) | (fraction >> 15);
  uint64_t low      = fraction << 49;
  for (int i = 0; i < 8; ++i) {
    quad_big_endian[i]     = static_cast<unsigned char>(high >> (56 - 8 * i));
    quad_big_endian[8 + i] = static_cast<unsigned char>(low >> (56 - 8 * i));
  }
}

void quad_to_extended(const unsigned char* quad_big_endian, unsigned char* native, size_t native_size)
{
  uint64_t high = 0, low = 0;
  for (int i = 0; i < 8; ++i) {
    high = (high << 8) | quad_big_endian[i];
    low  = (low << 8) | quad_big_endian[8 + i];
  }
  auto sign_exponent = static_cast<uint16_t>(high >> 48);
  uint64_t fraction  = ((high & 0xffffffffffffULL) << 15) | (low >> 49);
  uint64_t integer   = (sign_exponent & 0x7fff) != 0 ? 1ULL << 63 : 0; // explicit for normal numbers
  uint64_t mantissa  = integer | fraction;
  std::memset(native, 0, native_size);
  std::memcpy(native, &mantissa, 8);
  std::memcpy(native + 8, &sign_exponent, 2);
}

/** One basic element from native (little-endian) to external32 (big-endian), or back. */
void convert(const Basic& basic, const unsigned char* from, unsigned char* to, bool to_external)
{
  if (basic.kind == Kind::Extended) {
    if (to_external)
      extended_to_quad(from, to);
    else
      quad_to_extended(from, to, static_cast<size_t>(basic.native));
    return;
  }
  int from_size = to_external ? basic.native : basic.external, to_size = to_external ? basic.external : basic.native;
  // As an integer of the larger size, least significant byte first, sign-extended where signed.
  unsigned char value[16] = {0};
  for (int i = 0; i < from_size; ++i)
    value[i] = to_external ? from[i] : from[from_size - 1 - i];
  if (basic.kind == Kind::Signed && (value[from_size - 1] & 0x80) != 0)
    for (int i = from_size; i < 16; ++i)
      value[i] = 0xff;
  for (int i = 0; i < to_size; ++i)
    to[i] = to_external ? value[to_size - 1 - i] : value[i];
}

/** Visits the basic elements of copies of a type in type-map order (the order of its packed data). */
class Walk
{
 public:
  /** `visit` gets each basic element; `pad` the native bytes after a predefined type's elements (SMPI pads pair
   *  types: its MPI_DOUBLE_INT is 16 bytes). */
  Walk(MpiInterface& mpi, std::function<void(const Basic&)> visit, std::function<void(MPI_Count)> pad)
      : mpi_(mpi), visit_(std::move(visit)), pad_(std::move(pad))
  {
  }
  int error = MPI_SUCCESS;

  void copies(MPI_Datatype type, MPI_Count count)
  {
    int integers = 0, addresses = 0, types = 0, combiner = MPI_COMBINER_NAMED;
    if (count <= 0 || failed(mpi_.Type_get_envelope(type, &integers, &addresses, &types, &combiner)))
      return;
    if (combiner == MPI_COMBINER_NAMED) {
      std::vector<Basic> basics = basics_of(type);
      MPI_Count size = 0, elements = 0;
      if (basics.empty())
        error = MPI_ERR_TYPE; // no external32 form (MPI_LB, ...)
      else if (not failed(mpi_.Type_size_x(type, &size)))
        for (const Basic& basic : basics)
          elements += basic.native;
      for (MPI_Count c = 0; c < count && error == MPI_SUCCESS; ++c) {
        for (const Basic& basic : basics)
          visit_(basic);
        if (size > elements)
          pad_(size - elements);
      }
      return;
    }
    std::vector<int> ints(static_cast<size_t>(integers));
    std::vector<MPI_Aint> addrs(static_cast<size_t>(addresses));
    std::vector<MPI_Datatype> parts(static_cast<size_t>(types));
    if (failed(mpi_.Type_get_contents(type, integers, addresses, types, ints.data(), addrs.data(), parts.data())))
      return;
    bool blocks = combiner == MPI_COMBINER_STRUCT && integers >= 1 && integers >= ints[0] + 1 && types >= ints[0];
    for (MPI_Count c = 0; c < count && error == MPI_SUCCESS && types >= 1; ++c) {
      if (blocks) { // blocks of their own types, in order
        for (int i = 0; i < ints[0] && error == MPI_SUCCESS; ++i)
          copies(parts[static_cast<size_t>(i)], ints[static_cast<size_t>(i) + 1]);
      } else { // copies of one type: contiguous, vector, indexed, subarray, darray, dup, resized
        MPI_Count whole = 0, part = 0;
        if (failed(mpi_.Type_size_x(type, &whole)) || failed(mpi_.Type_size_x(parts[0], &part)))
          break;
        copies(parts[0], part > 0 ? whole / part : 0);
      }
    }
    for (MPI_Datatype& made : parts) { // MPI_Type_get_contents hands back new handles of derived types
      int n = 0, a = 0, t = 0, kind = MPI_COMBINER_NAMED;
      if (mpi_.Type_get_envelope(made, &n, &a, &t, &kind) == MPI_SUCCESS && kind != MPI_COMBINER_NAMED)
        mpi_.Type_free(&made);
    }
  }

 private:
  bool failed(int result)
  {
    if (result != MPI_SUCCESS && error == MPI_SUCCESS)
      error = result;
    return result != MPI_SUCCESS;
  }

  MpiInterface& mpi_;
  std::function<void(const Basic&)> visit_;
  std::function<void(MPI_Count)> pad_;
};
} // namespace

int external32_size(MpiInterface& mpi, MPI_Datatype type, MPI_Count count, MPI_Count* size)
{
  MPI_Count bytes = 0;
  Walk walk(
      mpi, [&bytes](const Basic& basic) { bytes += basic.external; }, [](MPI_Count) {});
  walk.copies(type, count);
  *size = bytes;
  return walk.error;
}

int to_external32(MpiInterface& mpi, MPI_Datatype type, MPI_Count count, const unsigned char* native,
                  std::vector<unsigned char>& out)
{
  Walk walk(
      mpi,
      [&](const Basic& basic) {
        size_t at = out.size();
        out.resize(at + static_cast<size_t>(basic.external));
        convert(basic, native, out.data() + at, true);
        native += basic.native;
      },
      [&native](MPI_Count padding) { native += padding; });
  walk.copies(type, count);
  return walk.error;
}

int from_external32(MpiInterface& mpi, MPI_Datatype type, MPI_Count count, const unsigned char* external,
                    std::vector<unsigned char>& out, MPI_Count* used)
{
  const unsigned char* start = external;
  Walk walk(
      mpi,
      [&](const Basic& basic) {
        size_t at = out.size();
        out.resize(at + static_cast<size_t>(basic.native));
        convert(basic, external, out.data() + at, false);
        external += basic.external;
      },
      [&out](MPI_Count padding) { out.resize(out.size() + static_cast<size_t>(padding)); });
  walk.copies(type, count);
  *used = external - start;
  return walk.error;
}

namespace
{
int refused(const char* datarep)
{
  if (datarep != nullptr && std::strcmp(datarep, "external32") == 0)
    return MPI_SUCCESS;
  std::fprintf(stderr,
               "bxisim: the data representation \"%s\" is not one MPI defines for MPI_Pack_external: "
               "\"external32\" is (MPI_ERR_ARG)\n",
               datarep != nullptr ? datarep : "(null)");
  return MPI_ERR_ARG;
}
} // namespace

int pack_external_size(MpiInterface& mpi, const char* datarep, int incount, MPI_Datatype datatype, MPI_Aint* size)
{
  MPI_Count bytes = 0;
  int result      = refused(datarep);
  if (result == MPI_SUCCESS)
    result = external32_size(mpi, datatype, incount, &bytes);
  if (result == MPI_SUCCESS)
    *size = static_cast<MPI_Aint>(bytes);
  return result;
}

int pack_external(MpiInterface& mpi, const char* datarep, const void* inbuf, int incount, MPI_Datatype datatype,
                  void* outbuf, MPI_Aint outsize, MPI_Aint* position)
{
  int native_size = 0, packed = 0;
  int result = refused(datarep);
  if (result == MPI_SUCCESS)
    result = mpi.Pack_size(incount, datatype, MPI_COMM_SELF, &native_size);
  std::vector<unsigned char> native(static_cast<size_t>(native_size) + 1), external;
  if (result == MPI_SUCCESS)
    result = mpi.Pack(inbuf, incount, datatype, native.data(), native_size, &packed, MPI_COMM_SELF);
  if (result == MPI_SUCCESS)
    result = to_external32(mpi, datatype, incount, native.data(), external);
  if (result == MPI_SUCCESS && *position + static_cast<MPI_Aint>(external.size()) > outsize)
    result = MPI_ERR_TRUNCATE;
  if (result != MPI_SUCCESS)
    return result;
  if (not external.empty())
    std::memcpy(static_cast<unsigned char*>(outbuf) + *position, external.data(), external.size());
  *position += static_cast<MPI_Aint>(external.size());
  return MPI_SUCCESS;
}

int unpack_external(MpiInterface& mpi, const char* datarep, const void* inbuf, MPI_Aint insize, MPI_Aint* position,
                    void* outbuf, int outcount, MPI_Datatype datatype)
{
  MPI_Count needed = 0, used = 0;
  int result = refused(datarep);
  if (result == MPI_SUCCESS)
    result = external32_size(mpi, datatype, outcount, &needed);
  if (result == MPI_SUCCESS && *position + needed > insize)
    result = MPI_ERR_TRUNCATE;
  std::vector<unsigned char> native;
  if (result == MPI_SUCCESS)
    result =
        from_external32(mpi, datatype, outcount, static_cast<const unsigned char*>(inbuf) + *position, native, &used);
  int unpacked = 0;
  native.push_back(0); // a valid address for a type without data
  if (result == MPI_SUCCESS)
    result = mpi.Unpack(native.data(), static_cast<int>(native.size()) - 1, &unpacked, outbuf, outcount, datatype,
                        MPI_COMM_SELF);
  if (result == MPI_SUCCESS)
    *position += static_cast<MPI_Aint>(used);
  return result;
}

} // namespace bxisim::mw
