// MPI_Scan and MPI_Exscan at the smpi level with an operation that does not commute (MPI_Op_create(f, 0, ...):
// Boost.MPI makes every one of its operations so). SMPI 3.32's scan and exscan apply such an operation to nothing
// (their non-commutative branch tests `index < rank` where the rank of the peer is meant): each rank got its own value
// (MPI_Scan) or its buffer untouched (MPI_Exscan), under smpirun too. bxisim runs them as a chain over a duplicate of
// the communicator: rank r receives the reduction of ranks 0..r-1 from rank r-1, combines it before its own value (the
// operation's `in` argument, as MPI orders it), and passes the reduction of 0..r on to rank r+1.

#include "SmpiRank.hpp"

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

 private:
  std::vector<unsigned char> bytes_;
  unsigned char* start_ = nullptr;
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

} // namespace bxisim::mw
