/* Who is calling: the simulated process (rank) on whose behalf a Portals call runs.
 *
 * Many simulated ranks share one OS process, so the semantics layer cannot use getpid() or globals to
 * know whose NI a call refers to. The runtime installs a provider (Core::set_context_provider) that returns
 * the context of the rank currently running. */
#ifndef BXISIM_PORTALS_PROCESS_CONTEXT_HPP
#define BXISIM_PORTALS_PROCESS_CONTEXT_HPP

#include <portals4.h>

#include <cstdint>
#include <functional>

namespace bxisim::portals
{

class NicModel;

struct ProcessContext {
  uint32_t id             = 0;       // unique among the simulated processes (the runtime uses the global rank)
  ptl_nid_t nid           = 0;       // the node index: the nid of the process's physical id
  ptl_pid_t any_pid       = 0;       // the pid PtlNIInit gives for PTL_PID_ANY (the runtime's addressing rule)
  ptl_uid_t uid           = 0;       // PtlGetUid and the uid carried by this process's messages
  NicModel* nic           = nullptr; // the NIC model that carries out this process's commands from now on
  unsigned num_interfaces = 1;       // NICs of the node (PtlNIInit accepts iface 0..num_interfaces-1)
};

using ContextProvider = std::function<ProcessContext()>;

} // namespace bxisim::portals

#endif
