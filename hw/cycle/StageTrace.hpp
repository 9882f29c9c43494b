#pragma once
// What the cycle NIC's stages report to the run's timeline (`bxisim run --trace DIR`): spans on a lane
// per stage and counters (link credits, queue occupancy). One SystemC kernel holds every NIC, so one
// trace serves them all; without --trace it is null and each report point costs one pointer test.

#include "Frame.hpp"

#include "hw/trace/OperationTrace.hpp"

#include <systemc>

#include <string>

namespace bxisim::hw::cycle
{

/** Set by CycleNicModel::set_trace: the trace that wants stage reports, or nullptr. */
extern const OperationTrace* stage_trace;

inline bool tracing_stages()
{
  return stage_trace != nullptr;
}

/** Stage `lane` of NIC `node` worked on `name` from `start` until now (call only when tracing_stages()). */
inline void trace_stage(int node, const char* lane, const std::string& name, const sc_core::sc_time& start)
{
  stage_trace->stage(node, lane, name, start.to_seconds(), sc_core::sc_time_stamp().to_seconds());
}

/** Stage `lane` of NIC `node` works on `name` from `start` to `end` (a time it has decided already). */
inline void trace_stage_until(int node, const char* lane, const std::string& name, const sc_core::sc_time& start,
                              const sc_core::sc_time& end)
{
  stage_trace->stage(node, lane, name, start.to_seconds(), end.to_seconds());
}

/** Counter `name` of NIC `node` is now `value` (call only when tracing_stages()). */
inline void trace_counter(int node, const char* name, double value)
{
  stage_trace->counter(node, name, sc_core::sc_time_stamp().to_seconds(), value);
}

/** The S4BXI trace's name of what a frame carries: PUT, GET, ATOMIC, ..., ACK, REPLY, BXI_ACK. */
const char* s4bxi_name(const FrameExtension& frame);
/** "PUT 4096 B", "ACK", "BXI_ACK", "REPLY 100 B": what a frame carries, for stage spans. */
std::string frame_label(const FrameExtension& frame);

} // namespace bxisim::hw::cycle
