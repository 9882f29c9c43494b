// Persistent point-to-point requests at the smpi level (MPI_Send_init, _Bsend_init, _Ssend_init, _Rsend_init,
// MPI_Recv_init): bxisim's own persistent composite requests (SmpiCompositeRequests.cpp), each MPI_Start posting a new
// nonblocking request of SMPI's (MPI_Isend, ...) as its part.
//
// SMPI 3.32 loses messages of its own persistent requests started again at once (MPI_Start then MPI_Wait in a loop,
// the usual halo exchange of a time loop: the receiver of 4 eager sends got 2 and waited for ever, under smpirun too);
// a datatype the program freed after MPI_Send_init, as MPI allows, went with them. The request keeps a duplicate of a
// derived datatype until it is freed. SMPI's own MPI_*_init still checks the arguments first, with its error handler.

#include "SmpiRank.hpp"

namespace bxisim::mw
{

int SmpiRank::persistent_request(PersistentKind kind, const void* buf, int count, MPI_Datatype type, int peer, int tag,
                                 MPI_Comm comm, MPI_Request* request)
{
  if (request == nullptr)
    return raised(comm, MPI_ERR_ARG);
  *request                = MPI_REQUEST_NULL;
  be_request checked      = nullptr;
  const void* be_buffer   = to_be_bottom(buf);
  be_datatype be_type     = to_be_datatype(type);
  be_comm be_communicator = to_be_comm(comm);
  int be_peer = to_be_rank(peer), be_tag = to_be_tag(tag);
  int result =
      kind == PersistentKind::receive
          ? fn_.Recv_init(const_cast<void*>(be_buffer), count, be_type, be_peer, be_tag, be_communicator, &checked)
          : fn_.Send_init(be_buffer, count, be_type, be_peer, be_tag, be_communicator, &checked);
  if (not be_ok(result))
    return from_be_errcode(result);
  fn_.Request_free(&checked);
  be_datatype kept = be_type;
  if (reinterpret_cast<uintptr_t>(type) >= kPredefinedLimit && not be_ok(fn_.Type_dup(be_type, &kept)))
    kept = be_type;
  *request                    = composite_request({});
  CompositeRequest& composite = *composites_.at(*request);
  composite.persistent        = true;
  composite.active            = false;
  composite.receive           = kind == PersistentKind::receive;
  composite.start = [this, kind, be_buffer, count, kept, be_peer, be_tag, be_communicator](be_request* part) {
    switch (kind) {
    case PersistentKind::send:
      return fn_.Isend(be_buffer, count, kept, be_peer, be_tag, be_communicator, part);
    case PersistentKind::buffered:
      return fn_.Ibsend(be_buffer, count, kept, be_peer, be_tag, be_communicator, part);
    case PersistentKind::synchronous:
      return fn_.Issend(be_buffer, count, kept, be_peer, be_tag, be_communicator, part);
    case PersistentKind::ready:
      return fn_.Irsend(be_buffer, count, kept, be_peer, be_tag, be_communicator, part);
    case PersistentKind::receive:
      break;
    }
    return fn_.Irecv(const_cast<void*>(be_buffer), count, kept, be_peer, be_tag, be_communicator, part);
  };
  if (kept != be_type)
    composite.at_free = [this, kept]() mutable { fn_.Type_free(&kept); };
  return MPI_SUCCESS;
}

} // namespace bxisim::mw
