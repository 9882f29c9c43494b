// The SMPI back end's hand-written parts: the functions marked @custom in mpi_api.list, and those
// whose SMPI translation needs more than conversions (generate_mpi.py, BACKENDS["SmpiRank"]["custom"]).

#include "Callbacks.hpp"
#include "Entry.hpp"
#include "SmpiRank.hpp"
#include "TypeElements.hpp"

#include <dlfcn.h>
#include <simgrid/s4u/Host.hpp>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace bxisim::mw
{

void publish_smpi_comm_world(); // SmpiWorld.cpp

std::unique_ptr<RankMpi> make_smpi_rank(void* library, int rank)
{
  return std::make_unique<SmpiRank>(library, rank);
}

int SmpiRank::Init(int* argc, char*** argv)
{
  int result = from_be_errcode(fn_.Init(argc, argv));
  if (result == MPI_SUCCESS)
    publish_smpi_comm_world();
  return result;
}

int SmpiRank::Init_thread(int* argc, char*** argv, int required, int* provided)
{
  // SMPI's MPI_Init_thread answers MPI_THREAD_SINGLE whatever is asked. A rank is one thread of the
  // simulator, so FUNNELED and SERIALIZED hold as well: bxisim answers the level asked, as at the other
  // levels. MULTIPLE cannot be simulated: MPI lets the library provide less than required (the program
  // decides), so bxisim answers MPI_THREAD_SERIALIZED, as the OpenMPI back end does.
  int result = Init(argc, argv);
  if (result == MPI_SUCCESS) {
    thread_level_ =
        required == MPI_THREAD_SINGLE || required == MPI_THREAD_FUNNELED || required == MPI_THREAD_SERIALIZED ? required
        : required == MPI_THREAD_MULTIPLE ? MPI_THREAD_SERIALIZED
                                          : MPI_THREAD_SINGLE;
    if (provided != nullptr)
      *provided = thread_level_;
  }
  return result;
}

int SmpiRank::Query_thread(int* provided)
{
  if (provided == nullptr)
    return MPI_ERR_ARG;
  *provided = thread_level_;
  return MPI_SUCCESS;
}

int SmpiRank::Is_thread_main(int* flag)
{
  if (flag == nullptr)
    return MPI_ERR_ARG;
  *flag = 1; // the rank's only thread
  return MPI_SUCCESS;
}

int SmpiRank::Abort(MPI_Comm, int errorcode)
{
  if (first_job_abort()) { // not again for ranks that abort at the same time, before they are stopped
    FILE* out = message_stream();
    std::fprintf(out, "bxisim: rank %d called MPI_Abort with error code %d; the job ends.\n", rank(), errorcode);
    std::fflush(out);
  }
  abort_job(rank(), errorcode);
  exit_rank(errorcode);
}

namespace
{
/** A predefined error handler called through MPI_Comm_call_errhandler or MPI_Win_call_errhandler. SMPI 3.32
 *  calls the handler's function, which its predefined handlers do not have (a null pointer: the simulator
 *  crashed). MPI_ERRORS_RETURN does nothing; MPI_ERRORS_ARE_FATAL (and MPI_ERRORS_ABORT) end the job, as the
 *  handlers do when SMPI's own calls fail. Returns false for a program's handler, which SMPI calls itself. */
bool predefined_errhandler_called(int rank, MPI_Errhandler handler, const char* function, const char* object,
                                  int errorcode)
{
  if (handler == MPI_ERRORS_RETURN)
    return true;
  if (handler != MPI_ERRORS_ARE_FATAL && handler != MPI_ERRORS_ABORT)
    return false;
  if (first_job_abort()) {
    FILE* out = message_stream();
    std::fprintf(out,
                 "bxisim: rank %d: an error (code %d) went to the error handler of a %s (%s), MPI_ERRORS_ARE_FATAL; "
                 "the job ends.\n",
                 rank, errorcode, object, function);
    std::fflush(out);
  }
  int exit_code = errorcode > 0 && errorcode < 256 ? errorcode : 1;
  abort_job(rank, exit_code);
  exit_rank(exit_code);
}

} // namespace

int SmpiRank::Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
  be_errhandler handler{};
  int result = fn_.Comm_get_errhandler(to_be_comm(comm), &handler);
  if (not be_ok(result))
    return from_be_errcode(result);
  if (predefined_errhandler_called(rank(), from_be_errhandler(handler), "MPI_Comm_call_errhandler", "communicator",
                                   errorcode))
    return MPI_SUCCESS;
  fn_.Errhandler_free(&handler); // the reference MPI_Comm_get_errhandler took
  return from_be_errcode(fn_.Comm_call_errhandler(to_be_comm(comm), to_be_errcode(errorcode)));
}

int SmpiRank::Win_call_errhandler(MPI_Win win, int errorcode)
{
  be_errhandler handler{};
  int result = fn_.Win_get_errhandler(to_be_win(win), &handler);
  if (not be_ok(result))
    return from_be_errcode(result);
  if (predefined_errhandler_called(rank(), from_be_errhandler(handler), "MPI_Win_call_errhandler", "window", errorcode))
    return MPI_SUCCESS;
  fn_.Errhandler_free(&handler);
  return from_be_errcode(fn_.Win_call_errhandler(to_be_win(win), to_be_errcode(errorcode)));
}

// SMPI 3.32's MPI_Test of MPI_REQUEST_NULL sets `flag` only when given a status (MPI: true): HPCC's
// MPIRandomAccess tests a null request with MPI_STATUS_IGNORE before its first send and never sent (its
// run at smpi never ended). SMPI is always given one.
int SmpiRank::Test(MPI_Request* request, int* flag, MPI_Status* status)
{
  if (is_composite(*request))
    return composite_test(request, flag, status);
  be_request called = to_be_request(*request);
  be_status answer{};
  int result = fn_.Test(&called, flag, &answer);
  request_ended(*request, called);
  *request = from_be_request(called);
  from_be_single_status(answer, status);
  return from_be_errcode(result);
}

// SMPI 3.32 has no MPI_Get_elements: counted from the status's bytes and the type's constructors.
int SmpiRank::Get_elements_x(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count)
{
  return count_elements(*this, datatype, status_bytes(status), count);
}

// A status's count beyond an int of bytes (MPI_Status_set_elements_x) is bxisim's alone: SMPI would see it cut.
int SmpiRank::Get_count(const MPI_Status* status, MPI_Datatype datatype, int* count)
{
  MPI_Count bytes = status_bytes(status);
  if (bytes <= INT_MAX) {
    be_status converted = to_be_status(status);
    int result          = fn_.Get_count(&converted, to_be_datatype(datatype), count);
    if (be_ok(result) && *count == kSmpiUndefined)
      *count = MPI_UNDEFINED;
    return from_be_errcode(result);
  }
  int size   = 0;
  int result = fn_.Type_size(to_be_datatype(datatype), &size);
  if (not be_ok(result))
    return from_be_errcode(result);
  *count = size == 0 || bytes % size != 0 || bytes / size > INT_MAX ? MPI_UNDEFINED : static_cast<int>(bytes / size);
  return MPI_SUCCESS;
}

int SmpiRank::Get_elements(const MPI_Status* status, MPI_Datatype datatype, int* count)
{
  MPI_Count elements = 0;
  int result         = Get_elements_x(status, datatype, &elements);
  if (result == MPI_SUCCESS)
    *count = elements > INT_MAX ? MPI_UNDEFINED : static_cast<int>(elements);
  return result;
}

int SmpiAbi::created_window(int result, void* window, int flavor, MPI_Win* win)
{
  if (be_ok(result)) {
    flavor_of_[window] = flavor;
    *win               = from_be_win(window);
  }
  return from_be_errcode(result);
}

const void* SmpiAbi::in_place_copy(const void* buffer, MPI_Count count, MPI_Datatype type,
                                   std::vector<unsigned char>& copy)
{
  using Extent = int (*)(void*, MPI_Aint*, MPI_Aint*);
  // libsimgrid's functions, the same for every rank: looked up once
  static const auto extent   = reinterpret_cast<Extent>(resolve_("MPI_Type_get_extent"));
  static const auto true_ext = reinterpret_cast<Extent>(resolve_("MPI_Type_get_true_extent"));
  MPI_Aint lb = 0, stride = 0, true_lb = 0, true_extent = 0;
  if (extent == nullptr || true_ext == nullptr || extent(to_be_datatype(type), &lb, &stride) != kSmpiSuccess ||
      true_ext(to_be_datatype(type), &true_lb, &true_extent) != kSmpiSuccess || count < 0 || stride < 0)
    return nullptr;
  // The bytes the elements span: the first element's true extent, then one extent per further element.
  MPI_Aint span = count == 0 ? 0 : true_extent + static_cast<MPI_Aint>(count - 1) * stride;
  copy.resize(static_cast<size_t>(span) + 1);
  if (span > 0)
    std::memcpy(copy.data(), static_cast<const unsigned char*>(buffer) + true_lb, static_cast<size_t>(span));
  return copy.data() - true_lb;
}

int SmpiAbi::keep_in_place_copy(int result, MPI_Request request, std::vector<unsigned char>& copy)
{
  if (be_ok(result) && not copy.empty() && request != MPI_REQUEST_NULL)
    in_place_copies_[request] = std::move(copy);
  return result;
}

namespace
{
/** The buffer to send from: the program's, or at MPI_IN_PLACE bxisim's copy of the receive buffer (SMPI's own
 * copy would be freed when the call returns); MPI_IN_PLACE itself when no copy could be made. */
const void* send_buffer(SmpiAbi& abi, const void* sendbuf, const void* recvbuf, MPI_Count count, MPI_Datatype type,
                        std::vector<unsigned char>& copy)
{
  if (sendbuf != MPI_IN_PLACE)
    return sendbuf;
  const void* copied = abi.in_place_copy(recvbuf, count, type, copy);
  return copied != nullptr ? copied : sendbuf;
}

/** A nonblocking reduction of SMPI (MPI_Iallreduce, _Iscan, _Iexscan: one signature) with bxisim's in-place copy. */
template <class Reduction>
int reduce_with_copy(SmpiAbi& abi, Reduction reduction, const void* sendbuf, void* recvbuf, int count,
                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request)
{
  std::vector<unsigned char> copy;
  SmpiAbi::be_request made{};
  int result = reduction(SmpiAbi::to_be_buffer(send_buffer(abi, sendbuf, recvbuf, count, datatype, copy)),
                         SmpiAbi::to_be_buffer(recvbuf), count, abi.to_be_datatype(datatype), abi.to_be_op(op),
                         abi.to_be_comm(comm), &made);
  *request   = SmpiAbi::be_ok(result) ? abi.from_be_request(made) : MPI_REQUEST_NULL;
  return abi.from_be_errcode(abi.keep_in_place_copy(result, *request, copy));
}
} // namespace

int SmpiRank::Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                         MPI_Request* request)
{
  if (is_intercomm(comm))
    return inter_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, request);
  return reduce_with_copy(*this, fn_.Iallreduce, sendbuf, recvbuf, count, datatype, op, comm, request);
}

int SmpiRank::Iscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                    MPI_Request* request)
{
  if (is_intercomm(comm))
    return intercomm_unsupported("MPI_Iscan");
  if (not op_commutes(op))
    return ordered_iscan(sendbuf, recvbuf, count, datatype, op, comm, false, request);
  return reduce_with_copy(*this, fn_.Iscan, sendbuf, recvbuf, count, datatype, op, comm, request);
}

int SmpiRank::Iexscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                      MPI_Request* request)
{
  if (is_intercomm(comm))
    return intercomm_unsupported("MPI_Iexscan");
  if (not op_commutes(op))
    return ordered_iscan(sendbuf, recvbuf, count, datatype, op, comm, true, request);
  return reduce_with_copy(*this, fn_.Iexscan, sendbuf, recvbuf, count, datatype, op, comm, request);
}

int SmpiRank::Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                        MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request)
{
  if (is_intercomm(comm))
    return inter_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
  std::vector<unsigned char> copy;
  int size = 0;
  if (sendbuf == MPI_IN_PLACE && be_ok(fn_.Comm_size(to_be_comm(comm), &size))) {
    sendbuf   = send_buffer(*this, sendbuf, recvbuf, static_cast<MPI_Count>(recvcount) * size, recvtype, copy);
    sendcount = recvcount; // as SMPI does in place
    sendtype  = recvtype;
  }
  be_request made{};
  int result = fn_.Ialltoall(to_be_buffer(sendbuf), sendcount, to_be_datatype(sendtype), to_be_buffer(recvbuf),
                             recvcount, to_be_datatype(recvtype), to_be_comm(comm), &made);
  *request   = be_ok(result) ? from_be_request(made) : MPI_REQUEST_NULL;
  return from_be_errcode(keep_in_place_copy(result, *request, copy));
}

int SmpiRank::Ialltoallv(const void* sendbuf, const int* sendcounts, const int* sdispls, MPI_Datatype sendtype,
                         void* recvbuf, const int* recvcounts, const int* rdispls, MPI_Datatype recvtype, MPI_Comm comm,
                         MPI_Request* request)
{
  if (is_intercomm(comm))
    return inter_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm,
                            request);
  std::vector<unsigned char> copy;
  int size = 0;
  if (sendbuf == MPI_IN_PLACE && recvcounts != nullptr && rdispls != nullptr &&
      be_ok(fn_.Comm_size(to_be_comm(comm), &size))) {
    MPI_Count elements = 0; // the receive buffer's elements, from its start to the end of its furthest block
    for (int i = 0; i < size; ++i)
      elements = std::max(elements, static_cast<MPI_Count>(rdispls[i]) + recvcounts[i]);
    sendbuf    = send_buffer(*this, sendbuf, recvbuf, elements, recvtype, copy);
    sendcounts = recvcounts; // as SMPI does in place
    sdispls    = rdispls;
    sendtype   = recvtype;
  }
  be_request made{};
  int result =
      fn_.Ialltoallv(to_be_buffer(sendbuf), sendcounts, sdispls, to_be_datatype(sendtype), to_be_buffer(recvbuf),
                     recvcounts, rdispls, to_be_datatype(recvtype), to_be_comm(comm), &made);
  *request = be_ok(result) ? from_be_request(made) : MPI_REQUEST_NULL;
  return from_be_errcode(keep_in_place_copy(result, *request, copy));
}

int SmpiRank::Ialltoallw(const void* sendbuf, const int* sendcounts, const int* sdispls, const MPI_Datatype* sendtypes,
                         void* recvbuf, const int* recvcounts, const int* rdispls, const MPI_Datatype* recvtypes,
                         MPI_Comm comm, MPI_Request* request)
{
  if (is_intercomm(comm))
    return inter_Ialltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm,
                            request);
  int size = peer_count(comm);
  Scratch<be_datatype> receive_types(recvtypes != nullptr ? static_cast<size_t>(size) : 0);
  for (size_t i = 0; i < receive_types.size(); ++i)
    receive_types[i] = to_be_datatype(recvtypes[i]);
  Scratch<be_datatype> send_types(sendtypes != nullptr ? static_cast<size_t>(size) : 0);
  for (size_t i = 0; i < send_types.size(); ++i)
    send_types[i] = to_be_datatype(sendtypes[i]);
  be_datatype* send_types_given = sendtypes != nullptr ? send_types.data() : nullptr;
  std::vector<unsigned char> copy;
  if (sendbuf == MPI_IN_PLACE && recvcounts != nullptr && rdispls != nullptr && recvtypes != nullptr) {
    // Displacements in bytes, a type per peer: the bytes from the buffer's start to the end of its furthest block.
    MPI_Aint bytes = 0;
    for (int i = 0; i < size; ++i) {
      MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
      if (recvcounts[i] <= 0 || not be_ok(fn_.Type_get_extent(receive_types[i], &lb, &extent)) ||
          not be_ok(fn_.Type_get_true_extent(receive_types[i], &true_lb, &true_extent)))
        continue;
      bytes = std::max(bytes, rdispls[i] + true_lb + static_cast<MPI_Aint>(recvcounts[i] - 1) * extent + true_extent);
    }
    sendbuf          = send_buffer(*this, sendbuf, recvbuf, bytes, MPI_BYTE, copy);
    sendcounts       = recvcounts; // as SMPI does in place
    sdispls          = rdispls;
    send_types_given = receive_types.data();
  }
  be_request made{};
  int result =
      fn_.Ialltoallw(to_be_buffer(sendbuf), sendcounts, sdispls, send_types_given, to_be_buffer(recvbuf), recvcounts,
                     rdispls, recvtypes != nullptr ? receive_types.data() : nullptr, to_be_comm(comm), &made);
  *request = be_ok(result) ? from_be_request(made) : MPI_REQUEST_NULL;
  return from_be_errcode(keep_in_place_copy(result, *request, copy));
}

int SmpiRank::Ireduce_scatter(const void* sendbuf, void* recvbuf, const int* recvcounts, MPI_Datatype datatype,
                              MPI_Op op, MPI_Comm comm, MPI_Request* request)
{
  if (is_intercomm(comm))
    return inter_Ireduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, request);
  std::vector<unsigned char> copy;
  int size = 0;
  if (sendbuf == MPI_IN_PLACE && recvcounts != nullptr && be_ok(fn_.Comm_size(to_be_comm(comm), &size))) {
    MPI_Count total = 0;
    for (int i = 0; i < size; ++i)
      total += recvcounts[i];
    sendbuf = send_buffer(*this, sendbuf, recvbuf, total, datatype, copy);
  }
  be_request made{};
  int result = fn_.Ireduce_scatter(to_be_buffer(sendbuf), to_be_buffer(recvbuf), recvcounts, to_be_datatype(datatype),
                                   to_be_op(op), to_be_comm(comm), &made);
  *request   = be_ok(result) ? from_be_request(made) : MPI_REQUEST_NULL;
  return from_be_errcode(keep_in_place_copy(result, *request, copy));
}

int SmpiRank::Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
                                    MPI_Comm comm, MPI_Request* request)
{
  if (is_intercomm(comm))
    return inter_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, request);
  std::vector<unsigned char> copy;
  int size = 0;
  if (sendbuf == MPI_IN_PLACE && be_ok(fn_.Comm_size(to_be_comm(comm), &size)))
    sendbuf = send_buffer(*this, sendbuf, recvbuf, static_cast<MPI_Count>(recvcount) * size, datatype, copy);
  be_request made{};
  int result = fn_.Ireduce_scatter_block(to_be_buffer(sendbuf), to_be_buffer(recvbuf), recvcount,
                                         to_be_datatype(datatype), to_be_op(op), to_be_comm(comm), &made);
  *request   = be_ok(result) ? from_be_request(made) : MPI_REQUEST_NULL;
  return from_be_errcode(keep_in_place_copy(result, *request, copy));
}

// SMPI 3.32 has no MPI_Comm_get_parent. A bxisim run spawns no process (MPI_Comm_spawn ends the job), so no rank
// has a parent: MPI_COMM_NULL, as OpenMPI answers at the other levels.
int SmpiRank::Comm_get_parent(MPI_Comm* parent)
{
  if (parent == nullptr)
    return MPI_ERR_ARG;
  *parent = MPI_COMM_NULL;
  return MPI_SUCCESS;
}

// SMPI 3.32 sees every core as a host of its own: its MPI_COMM_TYPE_SHARED communicators had one rank each and its
// processor names were the cores' ("node0-core1"), where every other level (and gethostname) says "node0". The
// runtime tells the node of each rank.
int SmpiRank::Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm)
{
  if (is_intercomm(comm))
    return intercomm_unsupported("MPI_Comm_split_type");
  be_comm made{};
  RankNode node = node_of_rank(rank());
  // MPI_UNDEFINED takes part in the same split as MPI_COMM_TYPE_SHARED on the other ranks (SMPI's own split type of
  // MPI_UNDEFINED returns at once: the others waited for ever, MPICH comm/cmsplit_type).
  bool by_node = (split_type == MPI_COMM_TYPE_SHARED || split_type == MPI_UNDEFINED) && node.index >= 0;
  int color    = split_type == MPI_UNDEFINED ? kSmpiUndefined : node.index;
  int result   = by_node
                     ? fn_.Comm_split(to_be_comm(comm), color, key, &made)
                     : fn_.Comm_split_type(to_be_comm(comm), to_be_split_type(split_type), key, to_be_info(info), &made);
  if (newcomm != nullptr)
    *newcomm = be_ok(result) ? from_be_comm(made) : MPI_COMM_NULL;
  return from_be_errcode(result);
}

int SmpiRank::Get_processor_name(char* name, int* resultlen)
{
  RankNode node = node_of_rank(rank());
  if (node.index < 0)
    return from_be_errcode(fn_.Get_processor_name(name, resultlen));
  if (name == nullptr || resultlen == nullptr)
    return MPI_ERR_ARG;
  size_t length = std::min(node.name.size(), static_cast<size_t>(MPI_MAX_PROCESSOR_NAME - 1));
  std::memcpy(name, node.name.data(), length);
  name[length] = '\0';
  *resultlen   = static_cast<int>(length);
  return MPI_SUCCESS;
}

int SmpiRank::File_open(MPI_Comm comm, const char* filename, int amode, MPI_Info info, MPI_File* fh)
{
  if (is_intercomm(comm))
    return intercomm_unsupported("MPI_File_open");
  // SMPI 3.32 stops the whole simulator (xbt_die) when a file is opened on a host without a disk, as
  // on every platform bxisim builds: refused here, with the fix.
  const auto* host = simgrid::s4u::Host::current();
  if (host == nullptr || host->get_disks().empty()) {
    std::fprintf(stderr,
                 "bxisim: MPI_File_open(\"%s\") at the smpi level: SMPI's MPI-IO needs a disk on the host in the "
                 "platform, and this platform's hosts have none; the call fails with MPI_ERR_UNSUPPORTED_OPERATION. "
                 "Open and use the file in a region at the message or cycle level (OpenMPI's MPI-IO), or run at "
                 "--level message.\n",
                 filename != nullptr ? filename : "");
    if (fh != nullptr)
      *fh = MPI_FILE_NULL; // as every failed call (the HLRS suite tests it and stops)
    return MPI_ERR_UNSUPPORTED_OPERATION;
  }
  if (fn_.File_open == nullptr)
    return missing("MPI_File_open");
  be_file opened{};
  int result = fn_.File_open(to_be_comm(comm), filename, to_be_file_amode(amode), to_be_info(info), &opened);
  if (fh != nullptr)
    *fh = be_ok(result) ? from_be_file(opened) : MPI_FILE_NULL;
  return from_be_errcode(result);
}

int SmpiRank::Win_create(void* base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win* win)
{
  if (is_intercomm(comm))
    return intercomm_unsupported("MPI_Win_create");
  void* window = nullptr;
  int result   = fn_.Win_create(base, size, disp_unit, to_be_info(info), to_be_comm(comm), &window);
  return made_window(result, window, MPI_WIN_FLAVOR_CREATE, win);
}

int SmpiRank::Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr, MPI_Win* win)
{
  if (is_intercomm(comm))
    return intercomm_unsupported("MPI_Win_allocate");
  void* window = nullptr;
  int result   = fn_.Win_allocate(size, disp_unit, to_be_info(info), to_be_comm(comm), baseptr, &window);
  return made_window(result, window, MPI_WIN_FLAVOR_ALLOCATE, win);
}

int SmpiRank::Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win* win)
{
  if (is_intercomm(comm))
    return intercomm_unsupported("MPI_Win_create_dynamic");
  void* window = nullptr;
  int result   = fn_.Win_create_dynamic(to_be_info(info), to_be_comm(comm), &window);
  return made_window(result, window, MPI_WIN_FLAVOR_DYNAMIC, win);
}

int SmpiRank::Win_get_attr(MPI_Win win, int win_keyval, void* attribute_val, int* flag)
{
  // SMPI does not answer MPI_WIN_CREATE_FLAVOR and MPI_WIN_MODEL: bxisim does, from what created the window.
  if (win_keyval == MPI_WIN_CREATE_FLAVOR || win_keyval == MPI_WIN_MODEL) {
    auto it = flavor_of_.find(to_be_win(win));
    if (it == flavor_of_.end())
      return MPI_ERR_WIN;
    converted_attributes_.push_back(win_keyval == MPI_WIN_CREATE_FLAVOR ? it->second : MPI_WIN_SEPARATE);
    *static_cast<int**>(attribute_val) = &converted_attributes_.back();
    *flag                              = 1;
    return MPI_SUCCESS;
  }
  int result = fn_.Win_get_attr(to_be_win(win), to_be_win_keyval(win_keyval), attribute_val, flag);
  return from_be_errcode(result);
}

// SMPI 3.32 has neither MPI_Win_sync nor MPI_Win_test. A window's memory is the rank's own, which SMPI's one-sided
// operations read and write when they happen: there is no copy to synchronize. MPI_Win_test waits as MPI_Win_wait
// does (SMPI's exposure epoch ends by receiving each origin's MPI_Win_complete, which needs nothing of this rank):
// it answers true once the epoch is over, so a loop that tests until true ends as it would.
int SmpiRank::Win_sync(MPI_Win win)
{
  if (flavor_of_.count(to_be_win(win)) == 0)
    return raised(MPI_COMM_WORLD, MPI_ERR_WIN);
  return MPI_SUCCESS;
}

int SmpiRank::Win_test(MPI_Win win, int* flag)
{
  if (flag == nullptr)
    return MPI_ERR_ARG;
  int result = fn_.Win_wait(to_be_win(win));
  *flag      = be_ok(result) ? 1 : 0;
  return from_be_errcode(result);
}

int SmpiRank::Grequest_start(MPI_Grequest_query_function* query_fn, MPI_Grequest_free_function* free_fn,
                             MPI_Grequest_cancel_function* cancel_fn, void* extra_state, MPI_Request* request)
{
  auto callbacks = grequest_callbacks(query_fn, free_fn, cancel_fn, extra_state);
  void* created  = nullptr;
  int result     = fn_.Grequest_start(callbacks[0], callbacks[1], callbacks[2], callbacks[3], &created);
  if (be_ok(result))
    *request = from_be_request(created);
  else
    discard_grequest_state(callbacks[3]);
  return from_be_errcode(result);
}

} // namespace bxisim::mw
