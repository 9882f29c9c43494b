/* Every atomic operation on every datatype, against a reference computed here element by element. */
#include "portals/core/Atomics.hpp"
#include "tests/portals/PortalsWorld.hpp"

#include <complex>
#include <cstring>
#include <type_traits>

namespace bxisim::portals::testing
{
namespace
{

template <typename T>
struct IsComplex : std::false_type {
};
template <typename T>
struct IsComplex<std::complex<T>> : std::true_type {
};

/* The reference: what the spec says op does to target t with source s (and operand o for swaps).
 * Returns false when op is not defined on T. */
template <typename T>
bool reference(ptl_op_t op, T t, T s, T o, T* out)
{
  constexpr bool cplx = IsComplex<T>::value;
  constexpr bool intg = std::is_integral_v<T>;
  switch (op) {
  case PTL_SUM:
    *out = static_cast<T>(t + s);
    return true;
  case PTL_PROD:
    *out = static_cast<T>(t * s);
    return true;
  case PTL_SWAP:
    *out = s;
    return true;
  case PTL_CSWAP:
    *out = (o == t) ? s : t;
    return true;
  case PTL_CSWAP_NE:
    *out = (o != t) ? s : t;
    return true;
  default:
    break;
  }
  if constexpr (!cplx) {
    switch (op) {
    case PTL_MIN:
      *out = s < t ? s : t;
      return true;
    case PTL_MAX:
      *out = s > t ? s : t;
      return true;
    case PTL_CSWAP_LE:
      *out = (o <= t) ? s : t;
      return true;
    case PTL_CSWAP_LT:
      *out = (o < t) ? s : t;
      return true;
    case PTL_CSWAP_GE:
      *out = (o >= t) ? s : t;
      return true;
    case PTL_CSWAP_GT:
      *out = (o > t) ? s : t;
      return true;
    default:
      break;
    }
  }
  if constexpr (intg) {
    switch (op) {
    case PTL_LOR:
      *out = static_cast<T>(t || s);
      return true;
    case PTL_LAND:
      *out = static_cast<T>(t && s);
      return true;
    case PTL_LXOR:
      *out = static_cast<T>(!t != !s);
      return true;
    case PTL_BOR:
      *out = static_cast<T>(t | s);
      return true;
    case PTL_BAND:
      *out = static_cast<T>(t & s);
      return true;
    case PTL_BXOR:
      *out = static_cast<T>(t ^ s);
      return true;
    case PTL_MSWAP:
      *out = static_cast<T>((s & o) | (t & ~o));
      return true;
    default:
      break;
    }
  }
  return false;
}

class AtomicsTest : public PortalsWorld
{
 protected:
  ptl_handle_ni_t ni0 = PTL_INVALID_HANDLE, ni1 = PTL_INVALID_HANDLE;
  ptl_handle_eq_t eq0                   = PTL_INVALID_HANDLE;
  ptl_pt_index_t pt                     = 0;
  alignas(16) unsigned char window[256] = {};

  void SetUp() override
  {
    PortalsWorld::SetUp();
    ni1                = init_ni(1);
    ptl_handle_eq_t eq = alloc_eq(ni1, 1024);
    pt                 = alloc_pt(ni1, eq);
    ptl_me_t m         = me(window, sizeof window, 0);
    ptl_handle_me_t h;
    ASSERT_EQ(PtlMEAppend(ni1, pt, &m, PTL_PRIORITY_LIST, nullptr, &h), PTL_OK);
    ni0 = init_ni(2);
    eq0 = alloc_eq(ni0, 1024);
  }

  /* Runs op on 4 elements (1 for single-element swaps) through the API and checks the window and the
   * fetched values; `api` is 0 for PtlAtomic, 1 for PtlFetchAtomic, 2 for PtlSwap. */
  template <typename T>
  void check(ptl_op_t op, ptl_datatype_t type, const T (&tgt)[4], const T (&srcv)[4], T operand, int api)
  {
    size_t n = (op >= PTL_CSWAP && op <= PTL_MSWAP) ? 1 : 4;
    std::memcpy(window, tgt, sizeof tgt);
    T source[4], fetched[4] = {};
    std::memcpy(source, srcv, sizeof source);
    as(2);
    ptl_handle_md_t put = bind_md(ni0, source, sizeof source, eq0);
    ptl_handle_md_t get = bind_md(ni0, fetched, sizeof fetched, eq0);
    int rc;
    if (api == 0)
      rc = PtlAtomic(put, 0, n * sizeof(T), PTL_ACK_REQ, phys(1), pt, 0, 0, nullptr, 0, op, type);
    else if (api == 1)
      rc = PtlFetchAtomic(get, 0, put, 0, n * sizeof(T), phys(1), pt, 0, 0, nullptr, 0, op, type);
    else
      rc = PtlSwap(get, 0, put, 0, n * sizeof(T), phys(1), pt, 0, 0, nullptr, 0, &operand, op, type);
    T expect;
    if (!reference<T>(op, tgt[0], srcv[0], operand, &expect)) {
      EXPECT_EQ(rc, PTL_ARG_INVALID) << op_name(op) << " on " << datatype_name(type) << " must be refused";
      return;
    }
    ASSERT_EQ(rc, PTL_OK) << op_name(op) << " on " << datatype_name(type);
    nic.run();
    for (size_t i = 0; i < n; ++i) {
      T result;
      std::memcpy(&result, window + i * sizeof(T), sizeof(T));
      reference<T>(op, tgt[i], srcv[i], operand, &expect);
      EXPECT_TRUE(result == expect) << op_name(op) << " on " << datatype_name(type) << ", element " << i;
      if (api != 0) {
        EXPECT_TRUE(fetched[i] == tgt[i]) << "fetched value of " << op_name(op) << " on " << datatype_name(type);
      }
    }
    EXPECT_EQ(PtlMDRelease(put), PTL_OK);
    EXPECT_EQ(PtlMDRelease(get), PTL_OK);
  }

  template <typename T>
  void all_ops(ptl_datatype_t type, const T (&tgt)[4], const T (&srcv)[4], T operand)
  {
    for (ptl_op_t op = 0; op < PTL_OP_LAST; ++op) {
      bool swap = op >= PTL_SWAP;
      if (!swap) {
        check(op, type, tgt, srcv, operand, 0);
        check(op, type, tgt, srcv, operand, 1);
      } else {
        check(op, type, tgt, srcv, operand, 2);
      }
    }
  }
};

TEST_F(AtomicsTest, SignedIntegers)
{
  all_ops<int8_t>(PTL_INT8_T, {5, -3, 0, 100}, {-7, -3, 1, 100}, int8_t{5});
  all_ops<int16_t>(PTL_INT16_T, {500, -3, 0, 7}, {-7, 9, 0, 7}, int16_t{-1});
  all_ops<int32_t>(PTL_INT32_T, {1 << 20, -3, 0, 12}, {-7, 2, 0x55, 3}, int32_t{1 << 20});
  all_ops<int64_t>(PTL_INT64_T, {1ll << 40, -3, 0, 6}, {-7, 2, 5, 6}, int64_t{2});
}

TEST_F(AtomicsTest, UnsignedIntegers)
{
  all_ops<uint8_t>(PTL_UINT8_T, {200, 3, 0, 0xf0}, {100, 3, 1, 0x0f}, uint8_t{0x3c});
  all_ops<uint16_t>(PTL_UINT16_T, {60000, 3, 0, 9}, {10000, 4, 0, 9}, uint16_t{60000});
  all_ops<uint32_t>(PTL_UINT32_T, {4000000000u, 3, 0, 1}, {500000000u, 8, 0, 2}, uint32_t{0xff00ff00u});
  all_ops<uint64_t>(PTL_UINT64_T, {~0ull, 3, 0, 1}, {1, 8, 0, 2}, uint64_t{0x0f0f});
}

TEST_F(AtomicsTest, FloatingPoint)
{
  all_ops<float>(PTL_FLOAT, {1.5f, -2.0f, 0.0f, 3.0f}, {2.25f, -3.0f, 1.0f, 3.0f}, 1.5f);
  all_ops<double>(PTL_DOUBLE, {1.5, -2.0, 0.0, 3.0}, {2.25, -3.0, 1.0, 3.0}, 4.0);
  all_ops<long double>(PTL_LONG_DOUBLE, {1.5L, -2.0L, 0.0L, 3.0L}, {2.25L, -3.0L, 1.0L, 3.0L}, 1.5L);
}

TEST_F(AtomicsTest, ComplexNumbers)
{
  using cf = std::complex<float>;
  using cd = std::complex<double>;
  all_ops<cf>(PTL_FLOAT_COMPLEX, {cf(1, 2), cf(0, 1), cf(3, 0), cf(1, 1)}, {cf(2, -1), cf(1, 1), cf(0, 0), cf(1, 1)},
              cf(1, 2));
  all_ops<cd>(PTL_DOUBLE_COMPLEX, {cd(1, 2), cd(0, 1), cd(3, 0), cd(1, 1)}, {cd(2, -1), cd(1, 1), cd(0, 0), cd(1, 1)},
              cd(5, 5));
}

TEST_F(AtomicsTest, LongDoubleComplex)
{
  using cl = std::complex<long double>;
  all_ops<cl>(PTL_LONG_DOUBLE_COMPLEX, {cl(1, 2), cl(0, 1), cl(3, 0), cl(1, 1)},
              {cl(2, -1), cl(1, 1), cl(0, 0), cl(1, 1)}, cl(1, 2));
}

TEST_F(AtomicsTest, SizeAndKindRules)
{
  int32_t v[4] = {1, 2, 3, 4}, out[4];
  as(2);
  ptl_handle_md_t m = bind_md(ni0, v, sizeof v);
  ptl_handle_md_t g = bind_md(ni0, out, sizeof out);
  int32_t operand   = 0;
  EXPECT_EQ(PtlAtomic(m, 0, 6, PTL_NO_ACK_REQ, phys(1), pt, 0, 0, nullptr, 0, PTL_SUM, PTL_INT32_T), PTL_ARG_INVALID);
  EXPECT_EQ(PtlAtomic(m, 0, 4, PTL_NO_ACK_REQ, phys(1), pt, 0, 0, nullptr, 0, PTL_SWAP, PTL_INT32_T), PTL_ARG_INVALID);
  EXPECT_EQ(PtlFetchAtomic(g, 0, m, 0, 4, phys(1), pt, 0, 0, nullptr, 0, PTL_CSWAP, PTL_INT32_T), PTL_ARG_INVALID);
  EXPECT_EQ(PtlSwap(g, 0, m, 0, 8, phys(1), pt, 0, 0, nullptr, 0, &operand, PTL_CSWAP, PTL_INT32_T), PTL_ARG_INVALID);
  EXPECT_EQ(PtlSwap(g, 0, m, 0, 4, phys(1), pt, 0, 0, nullptr, 0, &operand, PTL_SUM, PTL_INT32_T), PTL_ARG_INVALID);
  EXPECT_EQ(PtlAtomic(m, 0, 4, PTL_NO_ACK_REQ, phys(1), pt, 0, 0, nullptr, 0, PTL_SUM, PTL_DATATYPE_LAST),
            PTL_ARG_INVALID);
  EXPECT_EQ(PtlAtomic(m, 0, 4, PTL_NO_ACK_REQ, phys(1), pt, 0, 0, nullptr, 0, PTL_OP_LAST, PTL_INT32_T),
            PTL_ARG_INVALID);
  std::vector<char> big(1024);
  ptl_handle_md_t b = bind_md(ni0, big.data(), big.size());
  EXPECT_EQ(PtlAtomic(b, 0, 1024, PTL_NO_ACK_REQ, phys(1), pt, 0, 0, nullptr, 0, PTL_SUM, PTL_INT8_T), PTL_ARG_INVALID);
  EXPECT_EQ(nic.pending(), 0u);
}

} // namespace
} // namespace bxisim::portals::testing
