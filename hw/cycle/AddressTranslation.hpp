#pragma once
// Address translation (V2P) of DMA payloads: a small LRU TLB per NIC, keyed by process and virtual
// page; a miss costs a page walk (thesis 4.2.1: the NIC walks the page table as the MMU does). Only
// the payload's first page is on the critical path: the walks of later pages overlap the transfer of
// earlier ones (a page of 4 KiB takes 330 ns on the PCIe, a walk 100 ns by default); they are
// counted. Inline and PIO commands carry no address and pass through at once.

#include "CycleNicConfig.hpp"
#include "Stage.hpp"

#include <tlm_utils/simple_initiator_socket.h>

#include <list>
#include <map>

namespace bxisim::hw::cycle
{

class AddressTranslation : public Stage
{
 public:
  tlm_utils::simple_initiator_socket<AddressTranslation> out;

  AddressTranslation(sc_core::sc_module_name name, const AddressTranslationConfig& config)
      : Stage(name, 2), out("out"), config_(config)
  {
  }

  uint64_t hits = 0, misses = 0;

 protected:
  void process(tlm::tlm_generic_payload& command) override;

 private:
  using Page = std::pair<uint32_t, uint64_t>; // process, virtual page number
  /** True on a hit; inserts the page (evicting the least recently used) on a miss. */
  bool look_up(const Page& page);

  AddressTranslationConfig config_;
  std::list<Page> recent_; // most recent first
  std::map<Page, std::list<Page>::iterator> entries_;
};

} // namespace bxisim::hw::cycle
