// SMPI's MPI_COMM_WORLD when SMPI is started from bxisim's own main rather than by smpirun.
//
// libsimgrid's variable MPI_COMM_WORLD holds a placeholder (MPI_COMM_UNINITIALIZED) that forwards to
// the calling process's world communicator; smpirun (smpi_main) replaces it by the instance's world
// communicator. Matching messages in the simulation kernel, outside any process, needs the real one.
// SimGrid 3.32 exports no function giving it; each process's SMPI extension does (its
// ActorExt::comm_world(), exported): this file declares that much of the class, as SimGrid's
// src/smpi/include/smpi_actor.hpp does, and nothing else of it. This file does not include mpi.h.

#include <simgrid/s4u/Actor.hpp>
#include <smpi/forward.hpp>
#include <xbt/Extendable.hpp>

#include <dlfcn.h>

namespace simgrid::smpi
{
class ActorExt
{
 public:
  static simgrid::xbt::Extension<simgrid::s4u::Actor, ActorExt> EXTENSION_ID;
  Comm* comm_world() const;
};
} // namespace simgrid::smpi

namespace bxisim::mw
{

/** After the calling rank's MPI_Init: libsimgrid's MPI_COMM_WORLD becomes the job's world communicator. */
void publish_smpi_comm_world()
{
  static auto** variable = static_cast<simgrid::smpi::Comm**>(dlsym(RTLD_DEFAULT, "MPI_COMM_WORLD"));
  const auto* process    = simgrid::s4u::Actor::self()->extension<simgrid::smpi::ActorExt>();
  if (variable != nullptr && process != nullptr)
    *variable = process->comm_world();
}

} // namespace bxisim::mw
