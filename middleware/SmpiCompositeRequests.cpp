// Requests made of several SMPI requests, at the smpi level: a nonblocking neighbour collective (a receive per
// source, a send per destination), MPI_Comm_idup (none), a receive on an inter-communicator (one, whose status is
// translated), operations SMPI 3.32 lacks. SMPI's own nonblocking
// collectives bundle their messages in one request of SMPI's, which its public functions cannot make; bxisim
// hands out its own object instead and completes it in every MPI_Wait*/MPI_Test* (and MPI_Request_get_status,
// _free, MPI_Cancel): a set holding one is completed here, part by part with SMPI's calls, the program's other
// requests by SMPI as usual.

#include "EmptyStatus.hpp"
#include "SmpiRank.hpp"

#include <xbt/config.hpp>

#include <cstdio>

namespace bxisim::mw
{

MPI_Request SmpiRank::composite_request(std::vector<be_request> parts)
{
  auto made           = std::make_unique<CompositeRequest>();
  made->parts         = std::move(parts);
  auto handle         = reinterpret_cast<MPI_Request>(made.get());
  composites_[handle] = std::move(made);
  return handle;
}

bool SmpiRank::next_composite_step(CompositeRequest& composite)
{
  while (composite.parts.empty() && composite.next_step) {
    composite.parts = composite.next_step();
    if (composite.parts.empty())
      composite.next_step = nullptr;
  }
  return not composite.parts.empty();
}

bool SmpiRank::composite_done(MPI_Request request)
{
  CompositeRequest& composite = *composites_.at(request);
  while (next_composite_step(composite)) {
    int flag = 0;
    be_status status{}; // a receive's, or a persistent request's: its one part's (a cancelled send's says so)
    bool kept = composite.own_status();
    fn_.Testall(static_cast<int>(composite.parts.size()), composite.parts.data(), &flag, kept ? &status : nullptr);
    if (flag && kept)
      composite.status = status;
    if (not flag)
      return false;
    composite.parts.clear();
  }
  return true;
}

void SmpiRank::composite_status(const CompositeRequest& composite, MPI_Status* status, bool single)
{
  if (composite.own_status())
    from_bridge_status(composite.remote_in_bridge, composite.status, status, single);
  else if (composite.proc_null) // as OpenMPI and MPICH say it, for a send too
    set_empty_status(status, MPI_PROC_NULL);
  else
    set_empty_status(status); // a nonblocking collective's (MPI-3.1 5.12)
}

void SmpiRank::composite_ended(MPI_Request* request, MPI_Status* status, bool single)
{
  auto ended = composites_.find(*request);
  if (ended->second->persistent) { // stays, inactive: an inactive one's status is the empty one
    if (ended->second->active)
      composite_status(*ended->second, status, single);
    else
      set_empty_status(status);
    ended->second->active = false;
    return;
  }
  if (ended->second->at_completion)
    ended->second->at_completion();
  composite_status(*ended->second, status, single);
  composites_.erase(ended);
  *request = MPI_REQUEST_NULL;
}

bool SmpiRank::inactive_composite(MPI_Request request) const
{
  auto found = composites_.find(request);
  return found != composites_.end() && found->second->persistent && not found->second->active;
}

int SmpiRank::proc_null_persistent(MPI_Request* request)
{
  int result = proc_null_request(request);
  if (result == MPI_SUCCESS) {
    CompositeRequest& made = *composites_.at(*request);
    made.persistent        = true;
    made.active            = false;
  }
  return result;
}

int SmpiRank::composite_start(MPI_Request* request)
{
  CompositeRequest& composite = *composites_.at(*request);
  if (not composite.persistent || composite.active)
    return raised(MPI_COMM_WORLD, MPI_ERR_REQUEST); // not persistent, or started and not complete (MPI-3.1 3.9)
  if (composite.start) {
    be_request part = nullptr;
    int result      = composite.start(&part); // SMPI's MPI_I*: its errors went through the error handler
    if (not be_ok(result))
      return from_be_errcode(result);
    composite.parts = {part};
  }
  composite.active = true;
  return MPI_SUCCESS;
}

int SmpiRank::composite_startall(int count, MPI_Request* requests)
{
  for (int i = 0; i < count; ++i) {
    int result = Start(&requests[i]);
    if (result != MPI_SUCCESS)
      return result;
  }
  return MPI_SUCCESS;
}

int SmpiRank::composite_free(MPI_Request* request)
{
  CompositeRequest& composite = *composites_.at(*request);
  if (not composite.persistent)
    return Wait(request, MPI_STATUS_IGNORE);
  for (be_request& part : composite.parts) // started: the transfer goes on without it (MPI-3.1 3.7.3)
    fn_.Request_free(&part);
  if (composite.at_free)
    composite.at_free();
  composites_.erase(*request);
  *request = MPI_REQUEST_NULL;
  return MPI_SUCCESS;
}

int SmpiRank::proc_null_request(MPI_Request* request)
{
  if (request == nullptr)
    return raised(MPI_COMM_WORLD, MPI_ERR_REQUEST);
  *request                            = composite_request({});
  composites_.at(*request)->proc_null = true;
  return MPI_SUCCESS;
}

int SmpiRank::composite_wait(MPI_Request* request, MPI_Status* status)
{
  if (inactive_composite(*request)) {
    set_empty_status(status);
    return MPI_SUCCESS;
  }
  CompositeRequest& composite = *composites_.at(*request);
  int result                  = kSmpiSuccess;
  while (be_ok(result) && next_composite_step(composite)) {
    std::vector<be_status> statuses(composite.parts.size());
    if (composite.parts.size() == 1) // SMPI's MPI_Waitall of a cancelled MPI_Issend loses the cancellation
      result = fn_.Wait(composite.parts.data(), statuses.data());
    else
      result = fn_.Waitall(static_cast<int>(composite.parts.size()), composite.parts.data(), statuses.data());
    if (composite.own_status())
      composite.status = statuses[0];
    composite.parts.clear();
  }
  composite_ended(request, status, true);
  return from_be_errcode(result);
}

int SmpiRank::composite_test(MPI_Request* request, int* flag, MPI_Status* status)
{
  *flag = inactive_composite(*request) || composite_done(*request) ? 1 : 0;
  if (*flag)
    composite_ended(request, status, true);
  return MPI_SUCCESS;
}

int SmpiRank::composite_waitall(int count, MPI_Request* requests, MPI_Status* statuses)
{
  std::vector<std::pair<int, MPI_Status>> ended; // the composites' statuses, written after the others'
  for (int i = 0; i < count; ++i) {
    if (is_composite(requests[i])) {
      MPI_Status status{};
      const CompositeRequest& composite = *composites_.at(requests[i]);
      bool own_status                   = composite.own_status() || composite.proc_null;
      int result                        = composite_wait(&requests[i], &status);
      if (result != MPI_SUCCESS)
        return result;
      status.MPI_ERROR = MPI_SUCCESS;
      if (own_status)
        ended.emplace_back(i, status);
    }
  }
  std::vector<MPI_Request> plain(requests, requests + count); // the composites as null: the empty status
  for (auto& request : plain)
    if (is_composite(request))
      request = MPI_REQUEST_NULL;
  int result = Waitall(count, plain.data(), statuses);
  for (int i = 0; i < count; ++i)
    if (not is_composite(requests[i]))
      requests[i] = plain[static_cast<size_t>(i)];
  if (statuses != MPI_STATUSES_IGNORE)
    for (auto& [i, status] : ended)
      statuses[i] = status;
  return result;
}

int SmpiRank::composite_testall(int count, MPI_Request* requests, int* flag, MPI_Status* statuses)
{
  for (int i = 0; i < count; ++i) {
    if (is_composite(requests[i]) && not composite_done(requests[i])) {
      *flag = 0; // complete none unless all are complete
      return MPI_SUCCESS;
    }
  }
  std::vector<MPI_Request> plain(requests, requests + count);
  for (auto& request : plain)
    if (is_composite(request))
      request = MPI_REQUEST_NULL;
  int result = Testall(count, plain.data(), flag, statuses);
  if (result == MPI_SUCCESS && *flag) {
    for (int i = 0; i < count; ++i)
      if (is_composite(requests[i]))
        composite_ended(&requests[i], statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i], false);
    std::copy(plain.begin(), plain.end(), requests);
  }
  return result;
}

int SmpiRank::composite_waitany(int count, MPI_Request* requests, int* index, MPI_Status* status)
{
  for (;;) {
    std::vector<be_request> pending;           // the program's plain requests, then the composites' parts
    std::vector<std::pair<int, size_t>> owner; // (index in the program's array, part or SIZE_MAX for a plain one)
    for (int i = 0; i < count; ++i) {
      if (requests[i] == MPI_REQUEST_NULL || inactive_composite(requests[i]))
        continue;
      if (not is_composite(requests[i])) {
        pending.push_back(to_be_request(requests[i]));
        owner.emplace_back(i, SIZE_MAX);
        continue;
      }
      CompositeRequest& composite = *composites_.at(requests[i]);
      if (not next_composite_step(composite)) {
        *index = i;
        composite_ended(&requests[i], status, true);
        return MPI_SUCCESS;
      }
      for (size_t p = 0; p < composite.parts.size(); ++p) {
        pending.push_back(composite.parts[p]);
        owner.emplace_back(i, p);
      }
    }
    if (pending.empty()) {
      *index = MPI_UNDEFINED;
      set_empty_status(status); // a nonblocking collective's (MPI-3.1 5.12)
      return MPI_SUCCESS;
    }
    int which = 0;
    be_status got{};
    int result = fn_.Waitany(static_cast<int>(pending.size()), pending.data(), &which, &got);
    if (not be_ok(result))
      return from_be_errcode(result);
    if (which < 0 || static_cast<size_t>(which) >= pending.size())
      continue;
    auto [i, part] = owner[static_cast<size_t>(which)];
    if (part == SIZE_MAX) { // a persistent request stays, inactive
      request_ended(requests[i], pending[static_cast<size_t>(which)]);
      requests[i] = from_be_request(pending[static_cast<size_t>(which)]);
      *index      = i;
      from_be_single_status(got, status);
      return from_be_errcode(result);
    }
    CompositeRequest& composite = *composites_.at(requests[i]);
    if (composite.own_status())
      composite.status = got;
    composite.parts.erase(composite.parts.begin() + static_cast<std::ptrdiff_t>(part)); // ends with its last part
  }
}

int SmpiRank::composite_testany(int count, MPI_Request* requests, int* index, int* flag, MPI_Status* status)
{
  bool pending_composite = false;
  for (int i = 0; i < count; ++i) {
    if (not is_composite(requests[i]) || inactive_composite(requests[i]))
      continue;
    if (composite_done(requests[i])) {
      *index = i;
      *flag  = 1;
      composite_ended(&requests[i], status, true);
      return MPI_SUCCESS;
    }
    pending_composite = true;
  }
  std::vector<MPI_Request> plain(requests, requests + count);
  for (auto& request : plain)
    if (is_composite(request))
      request = MPI_REQUEST_NULL;
  int result = Testany(count, plain.data(), index, flag, status);
  if (result == MPI_SUCCESS && *flag && *index == MPI_UNDEFINED && pending_composite)
    *flag = 0; // not all inactive: a composite is under way
  if (result == MPI_SUCCESS && *flag && *index != MPI_UNDEFINED)
    requests[*index] = plain[static_cast<size_t>(*index)];
  return result;
}

int SmpiRank::composite_testsome(int count, MPI_Request* requests, int* outcount, int* indices, MPI_Status* statuses)
{
  int found          = 0;
  bool any_composite = false;
  std::vector<MPI_Request> plain(requests, requests + count);
  for (int i = 0; i < count; ++i) {
    if (not is_composite(requests[i]))
      continue;
    plain[static_cast<size_t>(i)] = MPI_REQUEST_NULL;
    if (inactive_composite(requests[i]))
      continue;
    any_composite = true;
    if (composite_done(requests[i])) {
      indices[found] = i;
      composite_ended(&requests[i], statuses != MPI_STATUSES_IGNORE ? &statuses[found] : MPI_STATUS_IGNORE, false);
      ++found;
    }
  }
  // Into arrays of its own: the conversion of the back end's statuses writes all `count` of them, past the
  // program's array once composites filled its first entries.
  int more = 0;
  std::vector<int> more_indices(static_cast<size_t>(count));
  std::vector<MPI_Status> more_statuses(statuses != MPI_STATUSES_IGNORE ? static_cast<size_t>(count) : 0);
  int result = Testsome(count, plain.data(), &more, more_indices.data(),
                        statuses != MPI_STATUSES_IGNORE ? more_statuses.data() : MPI_STATUSES_IGNORE);
  if (result != MPI_SUCCESS)
    return result;
  if (more == MPI_UNDEFINED)
    more = 0;
  for (size_t k = 0; k < static_cast<size_t>(more); ++k) {
    indices[found + static_cast<int>(k)] = more_indices[k];
    if (statuses != MPI_STATUSES_IGNORE)
      statuses[found + static_cast<int>(k)] = more_statuses[k];
    requests[more_indices[k]] = plain[static_cast<size_t>(more_indices[k])];
  }
  *outcount = found + more;
  if (*outcount == 0 && not any_composite) // every request inactive
    *outcount = MPI_UNDEFINED;
  return MPI_SUCCESS;
}

// SMPI 3.32's MPI_Testany takes a request that completed without a transfer under way (an eager send already
// delivered) for an inactive one: with no other request pending it answers flag true and MPI_UNDEFINED, as for an
// array of inactive requests, and the Graph 500 reference code then indexed its array of requests with it. Its
// MPI_Testsome of that one request knows it complete: asked of each request in turn after such an answer, the first
// complete one is the answer. (Persistent requests are bxisim's, SmpiPersistentRequests.cpp.)
int SmpiRank::testany_one_by_one(int count, MPI_Request* requests, int* index, int* flag, MPI_Status* status)
{
  for (int i = 0; i < count; ++i) {
    if (requests[i] == MPI_REQUEST_NULL)
      continue;
    int done         = 0;
    int which        = 0;
    MPI_Status at[1] = {};
    int result       = Testsome(1, &requests[i], &done, &which, status != MPI_STATUS_IGNORE ? at : MPI_STATUSES_IGNORE);
    if (result != MPI_SUCCESS)
      return result;
    if (done == 1) {
      *index = i;
      *flag  = 1;
      if (status != MPI_STATUS_IGNORE)
        *status = at[0];
      return MPI_SUCCESS;
    }
  }
  *index = MPI_UNDEFINED; // every request null or inactive: SMPI's answer was right
  *flag  = 1;
  set_empty_status(status);
  return MPI_SUCCESS;
}

// SMPI 3.32 makes a standard or ready send shorter than smpi/send-is-detached-thresh detached, and every buffered
// send: complete as it is posted, with no activity, so that its MPI_Testany passes over it and answers flag false
// while another request of the array is pending. MPI says the answer is one of the complete requests: a program that
// polls MPI_Testany over its sends and receives waited for its receive (for ever, if the peer waits for what comes
// after the send). After SMPI's flag false, the first eager send of the array that MPI_Test finds complete is the
// answer.
void SmpiRank::note_eager_send(MPI_Request request, int count, MPI_Datatype type)
{
  static const long threshold = simgrid::config::get_value<int>("smpi/send-is-detached-thresh");
  int size                    = 0;
  if (Type_size(type, &size) == MPI_SUCCESS && static_cast<long>(count) * size < threshold)
    eager_sends_.insert(request);
}

int SmpiRank::testany_eager_sends(int count, MPI_Request* requests, int* index, int* flag, MPI_Status* status)
{
  for (int i = 0; i < count; ++i) {
    if (requests[i] == MPI_REQUEST_NULL || eager_sends_.count(requests[i]) == 0)
      continue;
    int done      = 0;
    MPI_Status at = {};
    int result    = Test(&requests[i], &done, status != MPI_STATUS_IGNORE ? &at : MPI_STATUS_IGNORE);
    if (result != MPI_SUCCESS)
      return result;
    if (done) {
      *index = i;
      *flag  = 1;
      if (status != MPI_STATUS_IGNORE)
        *status = at;
      return MPI_SUCCESS;
    }
  }
  return MPI_SUCCESS; // SMPI's answer stands: nothing complete
}

int SmpiRank::composite_waitsome(int count, MPI_Request* requests, int* outcount, int* indices, MPI_Status* statuses)
{
  int result = composite_testsome(count, requests, outcount, indices, statuses);
  if (result != MPI_SUCCESS || *outcount != 0)
    return result;
  int first = 0;
  MPI_Status first_status;
  result = composite_waitany(count, requests, &first, &first_status);
  if (result != MPI_SUCCESS || first == MPI_UNDEFINED) {
    *outcount = MPI_UNDEFINED;
    return result;
  }
  result = composite_testsome(count, requests, outcount, indices + 1,
                              statuses != MPI_STATUSES_IGNORE ? statuses + 1 : MPI_STATUSES_IGNORE);
  if (*outcount == MPI_UNDEFINED)
    *outcount = 0;
  indices[0] = first;
  if (statuses != MPI_STATUSES_IGNORE)
    statuses[0] = first_status;
  *outcount += 1;
  return result;
}

int SmpiRank::composite_get_status(MPI_Request request, int* flag, MPI_Status* status)
{
  if (inactive_composite(request)) {
    *flag = 1;
    set_empty_status(status);
    return MPI_SUCCESS;
  }
  *flag = composite_done(request) ? 1 : 0;
  if (*flag)
    composite_status(*composites_.at(request), status, true);
  return MPI_SUCCESS;
}

int SmpiRank::composite_cancel(MPI_Request* request)
{
  CompositeRequest& composite = *composites_.at(*request);
  if (composite.own_status() && not composite.parts.empty()) // its one part: SMPI's cancel
    return from_be_errcode(fn_.Cancel(&composite.parts[0]));
  if (composite.persistent) // inactive: nothing to cancel
    return MPI_SUCCESS;
  if (composite.receive || composite.early || composite.proc_null) // complete: the cancel has no effect
    return MPI_SUCCESS;
  std::fprintf(stderr, "bxisim: MPI_Cancel of the request of a nonblocking collective or of MPI_Comm_idup, which "
                       "MPI does not allow (MPI-3.1 5.12): MPI_ERR_REQUEST. Wait for it instead.\n");
  return raised(MPI_COMM_WORLD, MPI_ERR_REQUEST);
}

int SmpiRank::Comm_idup(MPI_Comm comm, MPI_Comm* newcomm, MPI_Request* request)
{
  if (request == nullptr)
    return raised(comm, MPI_ERR_ARG);
  // SMPI's MPI_Comm_dup is blocking (its new communicator's number is broadcast from rank 0): made when the request
  // completes, so that a rank does not wait in MPI_Comm_idup for others still busy elsewhere (MPICH's comm_idup).
  // Its part is SMPI's MPI_Ibarrier on the communicator, entered here: it ends at the communicator's rank 0 once
  // every rank has called MPI_Comm_idup, at the others once rank 0 has (SMPI's). MPI_Test answers no before that (a
  // test that waited for every rank's duplicate never returned when a rank waited for the tester before its own
  // call); then the duplicate is made in the completion call, which the others reach too. (The exact barrier of
  // the inter-communicator collectives, SmpiIntercomms.cpp, needs a communicator of bxisim's own.)
  if (newcomm == nullptr)
    return raised(comm, MPI_ERR_ARG);
  *newcomm            = MPI_COMM_NULL;
  be_request everyone = nullptr;
  int result          = fn_.Ibarrier(to_be_comm(comm), &everyone);
  if (not be_ok(result))
    return raised(comm, from_be_errcode(result));
  *request                                = composite_request({everyone});
  composites_.at(*request)->at_completion = [this, comm, newcomm] { Comm_dup(comm, newcomm); };
  return MPI_SUCCESS;
}

} // namespace bxisim::mw
