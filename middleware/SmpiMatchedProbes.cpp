// Matched probes at the smpi level: MPI_Mprobe, MPI_Improbe, MPI_Mrecv, MPI_Imrecv, which SMPI 3.32 lacks.
//
// MPI-3.1 3.8.2: a matched message can be received only through its message handle. bxisim probes with SMPI's
// probe and posts, in the same call, a receive of the probed message's bytes (its source and tag name it: the
// earliest unmatched message from that source with that tag is the one probed), so that no receive the program
// posts afterwards can take it (MPICH's pt2pt/mprobe checks it). MPI_Mrecv waits for that receive and copies
// the bytes into the program's buffer with its datatype; MPI_Imrecv hands out that receive as the request and
// copies when a completion call ends it.

#include "EmptyStatus.hpp"
#include "SmpiRank.hpp"

#include <algorithm>
#include <cstring>

namespace bxisim::mw
{

int SmpiRank::raised(MPI_Comm comm, int code)
{
  Comm_call_errhandler(comm, code);
  return code;
}

int SmpiRank::matched_probe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message, MPI_Status* status)
{
  if (is_intercomm(comm))
    return intercomm_unsupported(flag == nullptr ? "MPI_Mprobe" : "MPI_Improbe");
  if (message == nullptr || (flag == nullptr && fn_.Probe == nullptr))
    return raised(comm, MPI_ERR_ARG);
  be_status probed{};
  int found  = 1;
  int result = flag == nullptr ? fn_.Probe(to_be_rank(source), to_be_tag(tag), to_be_comm(comm), &probed)
                               : fn_.Iprobe(to_be_rank(source), to_be_tag(tag), to_be_comm(comm), &found, &probed);
  if (flag != nullptr)
    *flag = be_ok(result) && found;
  if (not be_ok(result) || not found) {
    *message = MPI_MESSAGE_NULL;
    return from_be_errcode(result);
  }
  if (source == MPI_PROC_NULL) {
    *message = MPI_MESSAGE_NO_PROC;
    from_be_single_status(probed, status);
    return MPI_SUCCESS;
  }
  auto matched  = std::make_shared<MatchedMessage>();
  matched->comm = to_be_comm(comm);
  matched->bytes.resize(static_cast<size_t>(std::max(probed.count, 0)) + 1); // never empty: a valid address
  result = fn_.Irecv(matched->bytes.data(), probed.count, to_be_datatype(MPI_BYTE), probed.source, probed.tag,
                     matched->comm, &matched->receive);
  if (not be_ok(result)) {
    *message = MPI_MESSAGE_NULL;
    return from_be_errcode(result);
  }
  matched->bytes.resize(static_cast<size_t>(std::max(probed.count, 0)));
  *message = reinterpret_cast<MPI_Message>(matched.get());
  matched_messages_.emplace(*message, std::move(matched));
  from_be_single_status(probed, status);
  return MPI_SUCCESS;
}

int SmpiRank::Mprobe(int source, int tag, MPI_Comm comm, MPI_Message* message, MPI_Status* status)
{
  return matched_probe(source, tag, comm, nullptr, message, status);
}

int SmpiRank::Improbe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message, MPI_Status* status)
{
  if (flag == nullptr)
    return raised(comm, MPI_ERR_ARG);
  return matched_probe(source, tag, comm, flag, message, status);
}

int SmpiRank::delivered(const MatchedMessage& matched, void* buf, int count, MPI_Datatype datatype)
{
  be_datatype type = to_be_datatype(datatype);
  int size         = 0;
  MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
  if (count < 0 || not be_ok(fn_.Type_size(type, &size)) || not be_ok(fn_.Type_get_extent(type, &lb, &extent)) ||
      not be_ok(fn_.Type_get_true_extent(type, &true_lb, &true_extent)))
    return MPI_ERR_TYPE;
  size_t room  = static_cast<size_t>(count) * static_cast<size_t>(size);
  size_t bytes = std::min(matched.bytes.size(), room);
  if (bytes > 0 && true_extent == size && (count == 1 || extent == size)) {
    // Contiguous: every byte, a part of an element included (MPICH's getpartelm).
    std::memcpy(static_cast<unsigned char*>(buf) + true_lb, matched.bytes.data(), bytes);
  } else if (size > 0 && bytes >= static_cast<size_t>(size)) {
    int position = 0;
    int elements = static_cast<int>(bytes / static_cast<size_t>(size));
    int result   = fn_.Unpack(const_cast<unsigned char*>(matched.bytes.data()), static_cast<int>(bytes), &position, buf,
                              elements, type, matched.comm);
    if (not be_ok(result))
      return from_be_errcode(result);
  }
  return matched.bytes.size() > room ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
}

std::shared_ptr<SmpiAbi::MatchedMessage> SmpiRank::taken_message(MPI_Message* message, const char* function)
{
  auto found = matched_messages_.find(*message);
  if (found == matched_messages_.end()) {
    std::fprintf(stderr,
                 "bxisim: %s of a message handle that no MPI_Mprobe or MPI_Improbe of this rank handed out (or "
                 "already received): MPI_ERR_ARG\n",
                 function);
    return nullptr;
  }
  std::shared_ptr<MatchedMessage> matched = found->second;
  matched_messages_.erase(found);
  *message = MPI_MESSAGE_NULL;
  return matched;
}

int SmpiRank::Mrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message, MPI_Status* status)
{
  if (message == nullptr)
    return raised(MPI_COMM_WORLD, MPI_ERR_ARG);
  if (*message == MPI_MESSAGE_NO_PROC) {
    *message = MPI_MESSAGE_NULL;
    set_empty_status(status, MPI_PROC_NULL);
    return MPI_SUCCESS;
  }
  std::shared_ptr<MatchedMessage> matched = taken_message(message, "MPI_Mrecv");
  if (matched == nullptr)
    return raised(MPI_COMM_WORLD, MPI_ERR_ARG);
  be_status received{};
  int result = fn_.Wait(&matched->receive, &received);
  if (not be_ok(result))
    return from_be_errcode(result);
  from_be_single_status(received, status);
  int code = delivered(*matched, buf, count, datatype);
  return code == MPI_SUCCESS ? code : raised(from_be_comm(matched->comm), code);
}

int SmpiRank::Imrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message, MPI_Request* request)
{
  if (message == nullptr || request == nullptr)
    return raised(MPI_COMM_WORLD, MPI_ERR_ARG);
  if (*message == MPI_MESSAGE_NO_PROC) { // SMPI's receive from MPI_PROC_NULL completes at once with that status
    *message = MPI_MESSAGE_NULL;
    be_request made{};
    int result = fn_.Irecv(buf, 0, to_be_datatype(MPI_BYTE), kSmpiProcNull, 0, to_be_comm(MPI_COMM_SELF), &made);
    *request   = be_ok(result) ? from_be_request(made) : MPI_REQUEST_NULL;
    return from_be_errcode(result);
  }
  std::shared_ptr<MatchedMessage> matched = taken_message(message, "MPI_Imrecv");
  if (matched == nullptr)
    return raised(MPI_COMM_WORLD, MPI_ERR_ARG);
  *request = from_be_request(matched->receive);
  // A message longer than the buffer fills it (the completion call cannot report MPI_ERR_TRUNCATE afterwards).
  completion_actions_[*request] = [this, matched, buf, count, datatype] { delivered(*matched, buf, count, datatype); };
  return MPI_SUCCESS;
}

} // namespace bxisim::mw
