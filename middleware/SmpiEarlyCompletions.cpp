// Completion queries SMPI 3.32 answers wrongly, at the smpi level.
//
// MPI_Testall answering false must modify no request (MPI-3.1 3.7.5). SMPI's tests the requests one by one and
// completes (frees, sets to null) each one it finds complete, whatever its answer: a program that keeps its own copy
// of the handles (Boost.MPI's test_all) then held freed requests, and the simulator could crash on them.
// MPI_Request_get_status answers whether a request is complete without freeing it. SMPI's answers true for any
// request whose message it cannot probe: a receive whose message had not even been sent was "complete".
//
// Both are answered with SMPI's own test of each request, while bxisim holds a reference of its own on it (SMPI's
// request counts them): a request SMPI completes then stays alive, so no new request can take its address, and
// becomes a complete composite request under the program's handle with its status kept (SmpiCompositeRequests.cpp):
// the program's next completion call on it ends it and lets SMPI free it. The tests are SMPI's, so are their
// simulated costs (smpi/test), as under smpirun.

#include "EmptyStatus.hpp"
#include "SmpiRank.hpp"

namespace bxisim::mw
{

namespace
{
// simgrid::smpi::Request's reference counting (libsimgrid exports it; SimGrid is Debian's 3.32): ref() is a member
// function without arguments, unref a static one taking the handle's address.
using RequestRef   = void (*)(void* request);
using RequestUnref = void (*)(void** request);

struct RequestReferences {
  RequestRef ref     = nullptr;
  RequestUnref unref = nullptr;
};

const RequestReferences& references()
{
  static const RequestReferences found{reinterpret_cast<RequestRef>(SmpiAbi::simgrid_internal(
                                           "_ZN7simgrid4smpi7Request3refEv", "simgrid::smpi::Request::ref")),
                                       reinterpret_cast<RequestUnref>(SmpiAbi::simgrid_internal(
                                           "_ZN7simgrid4smpi7Request5unrefEPPS1_", "simgrid::smpi::Request::unref"))};
  return found;
}

void hold(SmpiAbi::be_request request)
{
  references().ref(request);
}

/** Drops bxisim's reference; whether that freed the request (else SMPI keeps it: a persistent request). */
bool release(SmpiAbi::be_request request)
{
  void* handle = request;
  references().unref(&handle);
  return handle == nullptr;
}
} // namespace

void SmpiRank::keep_early_completion(MPI_Request request, be_request held, const be_status& status)
{
  auto made            = std::make_unique<CompositeRequest>();
  made->early          = true;
  made->status         = status;
  made->at_completion  = [held] { release(held); };
  composites_[request] = std::move(made);
  request_ended(request, nullptr); // its in-place copy, eager-send mark and completion action: done with it
}

// Each request is tested with SMPI's MPI_Test, as its MPI_Testall does one after the other (so are their costs):
// the answer says whether it completed, which its handle does not while bxisim holds it (SMPI's nonblocking
// collectives' requests are persistent ones, which SMPI's test leaves in place).
int SmpiRank::Testall(int count, MPI_Request* array_of_requests, int* flag, MPI_Status* array_of_statuses)
{
  if (holds_composite(count, array_of_requests))
    return composite_testall(count, array_of_requests, flag, array_of_statuses);
  if (count > 0 && array_of_requests == nullptr)
    return raised(MPI_COMM_WORLD, MPI_ERR_ARG);
  if (count <= 0 || flag == nullptr) // SMPI's answer (MPI_ERR_COUNT, ...)
    return from_be_errcode(fn_.Testall(count, nullptr, flag, be_statuses_ignore()));
  std::vector<be_request> held(static_cast<size_t>(count));
  std::vector<be_status> statuses(held.size()); // kept for the requests completed early, even if ignored
  std::vector<int> done(held.size(), 1);
  int result = kSmpiSuccess;
  *flag      = 1;
  for (size_t i = 0; i < held.size(); ++i) {
    held[i] = to_be_request(array_of_requests[i]);
    if (held[i] == nullptr)
      continue;
    hold(held[i]);
    be_request tested = held[i];
    int code          = fn_.Test(&tested, &done[i], &statuses[i]);
    if (not be_ok(code))
      result = code;
    *flag = *flag && done[i];
  }
  for (size_t i = 0; i < held.size(); ++i) {
    if (held[i] == nullptr)
      continue;
    if (*flag) {
      bool freed = release(held[i]); // SMPI's own reference went as it completed it
      if (freed) {
        request_ended(array_of_requests[i], nullptr);
        array_of_requests[i] = MPI_REQUEST_NULL;
      }
    } else if (done[i]) {
      keep_early_completion(array_of_requests[i], held[i], statuses[i]);
    } else {
      release(held[i]);
    }
  }
  if (*flag && array_of_statuses != MPI_STATUSES_IGNORE)
    for (size_t i = 0; i < statuses.size(); ++i) {
      if (held[i] == nullptr)
        set_empty_status(&array_of_statuses[i]);
      else
        from_be_status(statuses[i], &array_of_statuses[i]);
    }
  return from_be_errcode(result);
}

int SmpiRank::Request_get_status(MPI_Request request, int* flag, MPI_Status* status)
{
  if (is_composite(request))
    return composite_get_status(request, flag, status);
  if (flag == nullptr)
    return from_be_errcode(fn_.Request_get_status(to_be_request(request), flag, be_status_ignore()));
  if (request == MPI_REQUEST_NULL) {
    *flag = 1;
    set_empty_status(status);
    return MPI_SUCCESS;
  }
  be_request held   = to_be_request(request);
  be_request tested = held;
  be_status got{};
  hold(held);
  int result = fn_.Test(&tested, flag, &got);
  if (not be_ok(result) || not *flag) {
    release(held);
    return from_be_errcode(result);
  }
  keep_early_completion(request, held, got); // complete: the program still holds it, until its completion call
  if (status != MPI_STATUS_IGNORE)
    from_be_single_status(got, status);
  return MPI_SUCCESS;
}

} // namespace bxisim::mw
