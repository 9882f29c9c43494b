#include "portals/core/Atomics.hpp"

#include <complex>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace bxisim::portals
{

namespace
{

template <typename T>
struct IsComplex : std::false_type {
};
template <typename T>
struct IsComplex<std::complex<T>> : std::true_type {
};

template <typename T>
T load(const unsigned char* p)
{
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

template <typename T>
void store(unsigned char* p, T v)
{
  std::memcpy(p, &v, sizeof(T));
}

/* The new target value for the arithmetic, logical and bitwise operations. */
template <typename T>
T combine(ptl_op_t op, T t, T s)
{
  if constexpr (IsComplex<T>::value) {
    switch (op) {
    case PTL_SUM:
      return t + s;
    case PTL_PROD:
      return t * s;
    default:
      break;
    }
  } else if constexpr (std::is_floating_point_v<T>) {
    switch (op) {
    case PTL_MIN:
      return s < t ? s : t;
    case PTL_MAX:
      return s > t ? s : t;
    case PTL_SUM:
      return t + s;
    case PTL_PROD:
      return t * s;
    default:
      break;
    }
  } else {
    switch (op) {
    case PTL_MIN:
      return s < t ? s : t;
    case PTL_MAX:
      return s > t ? s : t;
    case PTL_SUM: // wraps modulo 2^n, computed unsigned to avoid signed overflow
      return static_cast<T>(static_cast<std::make_unsigned_t<T>>(t) + static_cast<std::make_unsigned_t<T>>(s));
    case PTL_PROD:
      return static_cast<T>(static_cast<std::make_unsigned_t<T>>(t) * static_cast<std::make_unsigned_t<T>>(s));
    case PTL_LOR:
      return static_cast<T>((t != 0) || (s != 0));
    case PTL_LAND:
      return static_cast<T>((t != 0) && (s != 0));
    case PTL_LXOR:
      return static_cast<T>((t != 0) != (s != 0));
    case PTL_BOR:
      return static_cast<T>(t | s);
    case PTL_BAND:
      return static_cast<T>(t & s);
    case PTL_BXOR:
      return static_cast<T>(t ^ s);
    default:
      break;
    }
  }
  throw std::logic_error("bxisim portals: atomic operation " + std::string(op_name(op)) + " is not defined here");
}

/* Whether a conditional swap stores the source: compares the operand with the target. */
template <typename T>
bool swap_condition(ptl_op_t op, T operand, T t)
{
  switch (op) {
  case PTL_CSWAP:
    return operand == t;
  case PTL_CSWAP_NE:
    return operand != t;
  default:
    break;
  }
  if constexpr (!IsComplex<T>::value) {
    switch (op) {
    case PTL_CSWAP_LE:
      return operand <= t;
    case PTL_CSWAP_LT:
      return operand < t;
    case PTL_CSWAP_GE:
      return operand >= t;
    case PTL_CSWAP_GT:
      return operand > t;
    default:
      break;
    }
  }
  throw std::logic_error("bxisim portals: conditional swap " + std::string(op_name(op)) + " is not defined here");
}

template <typename T>
void apply_typed(ptl_op_t op, unsigned char* target, const unsigned char* source, const unsigned char* operand,
                 size_t count)
{
  for (size_t i = 0; i < count; ++i) {
    unsigned char* tp       = target + i * sizeof(T);
    const unsigned char* sp = source + i * sizeof(T);
    T t                     = load<T>(tp);
    T s                     = load<T>(sp);
    if (op == PTL_SWAP) {
      store(tp, s);
    } else if (op == PTL_MSWAP) {
      if constexpr (std::is_integral_v<T>) {
        T mask = load<T>(operand);
        store(tp, static_cast<T>((s & mask) | (t & ~mask)));
      }
    } else if (is_swap_operation(op)) {
      if (swap_condition<T>(op, load<T>(operand), t))
        store(tp, s);
    } else {
      store(tp, combine<T>(op, t, s));
    }
  }
}

enum class Family { integer, real, complex };

Family family_of(ptl_datatype_t type)
{
  switch (type) {
  case PTL_FLOAT:
  case PTL_DOUBLE:
  case PTL_LONG_DOUBLE:
    return Family::real;
  case PTL_FLOAT_COMPLEX:
  case PTL_DOUBLE_COMPLEX:
  case PTL_LONG_DOUBLE_COMPLEX:
    return Family::complex;
  default:
    return Family::integer;
  }
}

} // namespace

size_t datatype_size(ptl_datatype_t type)
{
  switch (type) {
  case PTL_INT8_T:
  case PTL_UINT8_T:
    return 1;
  case PTL_INT16_T:
  case PTL_UINT16_T:
    return 2;
  case PTL_INT32_T:
  case PTL_UINT32_T:
  case PTL_FLOAT:
    return 4;
  case PTL_INT64_T:
  case PTL_UINT64_T:
  case PTL_DOUBLE:
  case PTL_FLOAT_COMPLEX:
    return 8;
  case PTL_DOUBLE_COMPLEX:
    return 16;
  case PTL_LONG_DOUBLE:
    return sizeof(long double);
  case PTL_LONG_DOUBLE_COMPLEX:
    return sizeof(std::complex<long double>);
  default:
    return 0;
  }
}

bool is_swap_operation(ptl_op_t op)
{
  return op >= PTL_SWAP && op <= PTL_MSWAP;
}

bool is_single_element_operation(ptl_op_t op)
{
  return op >= PTL_CSWAP && op <= PTL_MSWAP;
}

bool is_valid_combination(ptl_op_t op, ptl_datatype_t type)
{
  if (op >= PTL_OP_LAST || datatype_size(type) == 0)
    return false;
  switch (family_of(type)) {
  case Family::integer:
    return true;
  case Family::real:
    return op == PTL_MIN || op == PTL_MAX || op == PTL_SUM || op == PTL_PROD ||
           (is_swap_operation(op) && op != PTL_MSWAP);
  case Family::complex:
    return op == PTL_SUM || op == PTL_PROD || op == PTL_SWAP || op == PTL_CSWAP || op == PTL_CSWAP_NE;
  }
  return false;
}

void apply_atomic(ptl_op_t op, ptl_datatype_t type, void* target, const void* source, const void* operand, size_t count)
{
  auto* t       = static_cast<unsigned char*>(target);
  const auto* s = static_cast<const unsigned char*>(source);
  const auto* o = static_cast<const unsigned char*>(operand);
  switch (type) {
  case PTL_INT8_T:
    return apply_typed<int8_t>(op, t, s, o, count);
  case PTL_UINT8_T:
    return apply_typed<uint8_t>(op, t, s, o, count);
  case PTL_INT16_T:
    return apply_typed<int16_t>(op, t, s, o, count);
  case PTL_UINT16_T:
    return apply_typed<uint16_t>(op, t, s, o, count);
  case PTL_INT32_T:
    return apply_typed<int32_t>(op, t, s, o, count);
  case PTL_UINT32_T:
    return apply_typed<uint32_t>(op, t, s, o, count);
  case PTL_INT64_T:
    return apply_typed<int64_t>(op, t, s, o, count);
  case PTL_UINT64_T:
    return apply_typed<uint64_t>(op, t, s, o, count);
  case PTL_FLOAT:
    return apply_typed<float>(op, t, s, o, count);
  case PTL_DOUBLE:
    return apply_typed<double>(op, t, s, o, count);
  case PTL_LONG_DOUBLE:
    return apply_typed<long double>(op, t, s, o, count);
  case PTL_FLOAT_COMPLEX:
    return apply_typed<std::complex<float>>(op, t, s, o, count);
  case PTL_DOUBLE_COMPLEX:
    return apply_typed<std::complex<double>>(op, t, s, o, count);
  case PTL_LONG_DOUBLE_COMPLEX:
    return apply_typed<std::complex<long double>>(op, t, s, o, count);
  default:
    throw std::logic_error("bxisim portals: unknown atomic datatype " + std::to_string(type));
  }
}

const char* op_name(ptl_op_t op)
{
  static const char* const names[] = {"PTL_MIN",      "PTL_MAX",      "PTL_SUM",      "PTL_PROD",     "PTL_LOR",
                                      "PTL_LAND",     "PTL_BOR",      "PTL_BAND",     "PTL_LXOR",     "PTL_BXOR",
                                      "PTL_SWAP",     "PTL_CSWAP",    "PTL_CSWAP_NE", "PTL_CSWAP_LE", "PTL_CSWAP_LT",
                                      "PTL_CSWAP_GE", "PTL_CSWAP_GT", "PTL_MSWAP"};
  return op < PTL_OP_LAST ? names[op] : "(invalid ptl_op_t)";
}

const char* datatype_name(ptl_datatype_t type)
{
  static const char* const names[] = {
      "PTL_INT8_T",        "PTL_UINT8_T",        "PTL_INT16_T",     "PTL_UINT16_T",           "PTL_INT32_T",
      "PTL_UINT32_T",      "PTL_FLOAT",          "PTL_INT64_T",     "PTL_UINT64_T",           "PTL_DOUBLE",
      "PTL_FLOAT_COMPLEX", "PTL_DOUBLE_COMPLEX", "PTL_LONG_DOUBLE", "PTL_LONG_DOUBLE_COMPLEX"};
  return type < PTL_DATATYPE_LAST ? names[type] : "(invalid ptl_datatype_t)";
}

} // namespace bxisim::portals
