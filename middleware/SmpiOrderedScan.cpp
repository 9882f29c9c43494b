// MPI_Scan and MPI_Exscan at the smpi level with an operation that does not commute (MPI_Op_create(f, 0, ...):
// Boost.MPI makes every one of its operations so). SMPI 3.32's scan and exscan apply such an operation to nothing
// (their non-commutative branch tests `index < rank` where the rank of the peer is meant): each rank got its own value
// (MPI_Scan) or its buffer untouched (MPI_Exscan), under smpirun too. bxisim runs them as a chain over a duplicate of
// the communicator: rank r receives the reduction of ranks 0..r-1 from rank r-1, combines it before its own value (the
// operation's `in` argument, as MPI orders it), and passes the reduction of 0..r on to rank r+1. MPI_Iscan and
// MPI_Iexscan (which SMPI gets as wrong) make the same chain a composite request of steps: the receive from rank r-1,
// then, once it has completed (in the program's MPI_Wait or MPI_Test of the request), the combination and the send
// to rank r+1.

#include "SmpiRank.hpp"

#include <memory>
#include <vector>

namespace bxisim::mw
{

namespace
{
/** A buffer of `count` elements of `type` the chain owns (its start: the type's true lower bound taken into account).
 */
class ScanBuffer
{
 public:
  ScanBuffer(SmpiRank& rank, int count, MPI_Datatype type)
  {
    MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
    rank.Type_get_extent(type, &lb, &extent);
    rank.Type_get_true_extent(type, &true_lb, &true_extent);
    bytes_.resize(count > 0 ? static_cast<size_t>((count - 1) * extent + true_extent) : 0);
    start_ = bytes_.data() - true_lb;
  }
  void* start() { return start_; }
  ScanBuffer(const ScanBuffer&)            = delete;
  ScanBuffer& operator=(const ScanBuffer&) = delete;

 private:
  std::vector<unsigned char> bytes_;
  unsigned char* start_ = nullptr;
};
/** What a nonblocking chain keeps between its steps. */
struct ScanChain {
  ScanChain(SmpiRank& rank, int count, MPI_Datatype type)
      : own(rank, count, type), before(rank, count, type), onward(rank, count, type)
  {
  }
  ScanBuffer own, before, onward; // this rank's value, the reduction of the ranks before it, and of 0..rank
  MPI_Comm comm = MPI_COMM_NULL;  // a duplicate of the program's: its messages never meet the chain's
  bool sent     = false;
};
} // namespace

bool SmpiRank::op_commutes(MPI_Op op)
{
  int commute = 1;
  return Op_commutative(op, &commute) != MPI_SUCCESS || commute != 0;
}

int SmpiRank::ordered_scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                           bool exclusive)
{
  int rank = 0, size = 0;
  Comm_rank(comm, &rank);
  Comm_size(comm, &size);
  MPI_Comm chain = MPI_COMM_NULL; // the program's messages on `comm` never meet the chain's
  int result     = Comm_dup(comm, &chain);
  if (result != MPI_SUCCESS)
    return result;
  const void* input = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  ScanBuffer own(*this, count, type); // this rank's value, kept aside: the receive may land where it was
  Sendrecv(input, count, type, 0, 0, own.start(), count, type, 0, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE);
  // What goes on to rank + 1: the reduction of ranks 0..rank.
  ScanBuffer onward(*this, count, type);
  if (rank == 0) {
    Sendrecv(own.start(), count, type, 0, 0, onward.start(), count, type, 0, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE);
  } else {
    ScanBuffer before(*this, count, type); // ranks 0..rank-1
    result = Recv(before.start(), count, type, rank - 1, 0, chain, MPI_STATUS_IGNORE);
    Sendrecv(own.start(), count, type, 0, 0, onward.start(), count, type, 0, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE);
    if (result == MPI_SUCCESS)
      result = Reduce_local(before.start(), onward.start(), count, type, op); // before op own
    if (exclusive)
      Sendrecv(before.start(), count, type, 0, 0, recvbuf, count, type, 0, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE);
  }
  if (not exclusive)
    Sendrecv(onward.start(), count, type, 0, 0, recvbuf, count, type, 0, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE);
  if (result == MPI_SUCCESS && rank + 1 < size)
    result = Send(onward.start(), count, type, rank + 1, 0, chain);
  Comm_free(&chain);
  return result;
}

int SmpiRank::ordered_iscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                            bool exclusive, MPI_Request* request)
{
  int rank = 0, size = 0;
  Comm_rank(comm, &rank);
  Comm_size(comm, &size);
  auto chain = std::make_shared<ScanChain>(*this, count, type);
  int result = Comm_dup(comm, &chain->comm); // blocking: returns once every rank has entered its call
  if (result != MPI_SUCCESS)
    return result;
  const void* input = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  Sendrecv(input, count, type, 0, 0, chain->own.start(), count, type, 0, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE);
  auto copy = [this, count, type](void* from, void* to) {
    Sendrecv(from, count, type, 0, 0, to, count, type, 0, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE);
  };
  auto send_onward = [this, chain, count, type, rank, size]() -> std::vector<be_request> {
    chain->sent = true;
    if (rank + 1 >= size)
      return {};
    be_request sent = nullptr;
    fn_.Isend(to_be_buffer(chain->onward.start()), count, to_be_datatype(type), rank + 1, 0, to_be_comm(chain->comm),
              &sent);
    return {sent};
  };
  std::vector<be_request> first;
  if (rank == 0) {
    copy(chain->own.start(), chain->onward.start());
    if (not exclusive) // rank 0's MPI_Iexscan buffer is undefined: left as it is
      copy(chain->onward.start(), recvbuf);
    first = send_onward();
  } else {
    be_request received = nullptr;
    fn_.Irecv(to_be_buffer(chain->before.start()), count, to_be_datatype(type), rank - 1, 0, to_be_comm(chain->comm),
              &received);
    first = {received};
  }
  *request                    = composite_request(std::move(first));
  CompositeRequest& composite = *composites_.at(*request);
  composite.next_step         = [this, chain, copy, send_onward, recvbuf, count, type, op,
                         exclusive]() -> std::vector<be_request> {
    if (chain->sent)
      return {};
    copy(chain->own.start(), chain->onward.start());
    Reduce_local(chain->before.start(), chain->onward.start(), count, type, op); // before op own
    copy(exclusive ? chain->before.start() : chain->onward.start(), recvbuf);
    return send_onward();
  };
  composite.at_completion = [this, chain] { Comm_free(&chain->comm); };
  return MPI_SUCCESS;
}

} // namespace bxisim::mw
