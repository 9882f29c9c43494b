/* A fixture with simulated ranks sharing this process, like bxisim's runtime: rank r lives on node
 * r / ranks_per_node with local rank r % ranks_per_node, and the context provider answers for `current`. */
#ifndef BXISIM_TESTS_PORTALS_WORLD_HPP
#define BXISIM_TESTS_PORTALS_WORLD_HPP

#include "tests/portals/TestNicModel.hpp"

#include <gtest/gtest.h>
#include <portals4.h>

#include <vector>

namespace bxisim::portals::testing
{

class PortalsWorld : public ::testing::Test
{
 protected:
  static constexpr unsigned kRanksPerNode = 2;
  TestNicModel nic;
  unsigned current = 0;

  void SetUp() override
  {
    Core::instance().reset();
    Core::instance().set_context_provider([this] {
      ProcessContext c;
      c.id      = current;
      c.nid     = current / kRanksPerNode;
      c.any_pid = current % kRanksPerNode;
      c.uid     = 1000;
      c.nic     = &nic;
      return c;
    });
  }
  void TearDown() override
  {
    Core::instance().set_context_provider(nullptr);
    Core::instance().reset();
  }

  /* Makes `rank` the calling process. */
  void as(unsigned rank) { current = rank; }

  static ptl_process_t phys(unsigned rank)
  {
    ptl_process_t p;
    p.phys.nid = rank / kRanksPerNode;
    p.phys.pid = rank % kRanksPerNode;
    return p;
  }
  static ptl_process_t logical(ptl_rank_t rank)
  {
    ptl_process_t p;
    p.rank = rank;
    return p;
  }

  /* PtlInit + PtlNIInit(PTL_PID_ANY) for `rank`. */
  ptl_handle_ni_t init_ni(unsigned rank, unsigned options = PTL_NI_MATCHING | PTL_NI_PHYSICAL,
                          const ptl_ni_limits_t* desired = nullptr)
  {
    as(rank);
    EXPECT_EQ(PtlInit(), PTL_OK);
    ptl_handle_ni_t ni = PTL_INVALID_HANDLE;
    EXPECT_EQ(PtlNIInit(PTL_IFACE_DEFAULT, options, PTL_PID_ANY, desired, nullptr, &ni), PTL_OK);
    return ni;
  }
  ptl_handle_eq_t alloc_eq(ptl_handle_ni_t ni, ptl_size_t count = 64)
  {
    ptl_handle_eq_t eq = PTL_INVALID_HANDLE;
    EXPECT_EQ(PtlEQAlloc(ni, count, &eq), PTL_OK);
    return eq;
  }
  ptl_handle_ct_t alloc_ct(ptl_handle_ni_t ni)
  {
    ptl_handle_ct_t ct = PTL_INVALID_HANDLE;
    EXPECT_EQ(PtlCTAlloc(ni, &ct), PTL_OK);
    return ct;
  }
  ptl_pt_index_t alloc_pt(ptl_handle_ni_t ni, ptl_handle_eq_t eq, unsigned options = 0)
  {
    ptl_pt_index_t pt = 0;
    EXPECT_EQ(PtlPTAlloc(ni, options, eq, PTL_PT_ANY, &pt), PTL_OK);
    return pt;
  }
  ptl_handle_md_t bind_md(ptl_handle_ni_t ni, void* start, ptl_size_t length, ptl_handle_eq_t eq = PTL_EQ_NONE,
                          ptl_handle_ct_t ct = PTL_CT_NONE, unsigned options = 0)
  {
    ptl_md_t md{start, length, options, eq, ct};
    ptl_handle_md_t h = PTL_INVALID_HANDLE;
    EXPECT_EQ(PtlMDBind(ni, &md, &h), PTL_OK);
    return h;
  }
  static ptl_me_t me(void* start, ptl_size_t length, ptl_match_bits_t bits, ptl_match_bits_t ignore = 0,
                     unsigned options = PTL_ME_OP_PUT | PTL_ME_OP_GET)
  {
    ptl_me_t m{};
    m.start             = start;
    m.length            = length;
    m.ct_handle         = PTL_CT_NONE;
    m.uid               = PTL_UID_ANY;
    m.options           = options;
    m.match_id.phys.nid = PTL_NID_ANY;
    m.match_id.phys.pid = PTL_PID_ANY;
    m.match_bits        = bits;
    m.ignore_bits       = ignore;
    m.min_free          = 0;
    return m;
  }
  /* Every event now in `eq`, in order. */
  std::vector<ptl_event_t> drain(ptl_handle_eq_t eq)
  {
    std::vector<ptl_event_t> out;
    ptl_event_t ev;
    int rc;
    while ((rc = PtlEQGet(eq, &ev)) == PTL_OK || rc == PTL_EQ_DROPPED)
      out.push_back(ev);
    EXPECT_EQ(rc, PTL_EQ_EMPTY);
    return out;
  }
};

} // namespace bxisim::portals::testing

#endif
