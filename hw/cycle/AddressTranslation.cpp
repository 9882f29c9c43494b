#include "AddressTranslation.hpp"

#include "StageTrace.hpp"

namespace bxisim::hw::cycle
{

bool AddressTranslation::look_up(const Page& page)
{
  auto it = entries_.find(page);
  if (it != entries_.end()) {
    recent_.splice(recent_.begin(), recent_, it->second);
    ++hits;
    return true;
  }
  ++misses;
  if (entries_.size() >= config_.tlb_entries) {
    entries_.erase(recent_.back());
    recent_.pop_back();
  }
  recent_.push_front(page);
  entries_[page] = recent_.begin();
  return false;
}

void AddressTranslation::process(tlm::tlm_generic_payload& command)
{
  Operation& operation = *frame_of(command).operation;
  if (operation.path == PayloadPath::Dma) {
    uint32_t process = operation.message->source_process;
    uint64_t first   = operation.address / config_.page_size;
    uint64_t last    = (operation.address + operation.message->request_bytes() - 1) / config_.page_size;
    bool hit         = look_up({process, first});
    for (uint64_t page = first + 1; page <= last; ++page)
      look_up({process, page}); // walked while the earlier pages move
    sc_core::sc_time start = sc_core::sc_time_stamp();
    wait(hit ? config_.hit : config_.hit + config_.walk);
    if (tracing_stages())
      trace_stage(frame_of(command).from, "address translation", hit ? "TLB hit" : "TLB miss, page walk", start);
  }
  forward(out, command);
}

} // namespace bxisim::hw::cycle
