#pragma once
// The dispatch of a rank whose MPI back end changes at region boundaries (bxisim/region.h): SMPI at
// the smpi level, the rank's OpenMPI copy at the message and cycle levels. The generated SwitchRank
// (generate_mpi.py, from mpi_api.list) derives from this class: each MPI call goes to the back end of
// the rank's current level, except calls on a request or a matched message, which go to the back end
// that created it (a request is completed where it was started).
//
// Handles the program holds are bxisim's: the value the back end that made it handed out (its owner).
// Predefined handles (MPI_COMM_WORLD, MPI_INT, MPI_SUM, ...) mean the same in both back ends. A handle
// used in the back end that does not own it is replaced by its mirror there: datatypes and operations
// are re-created from their recorded constructor the first time they are needed (they are local),
// communicators made by the collective constructors (dup, split, create) are re-created at the first
// boundary into the other back end, in creation order, by every rank (a boundary is crossed by all
// ranks together). Windows and files stay in the back end that made them (their calls go there). A
// handle that has no mirror (intercommunicators at smpi, ...) fails loudly, naming it.

#include "Callbacks.hpp"
#include "MpiInterface.hpp"
#include "middleware/RankMpi.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <vector>

namespace bxisim::mw
{

class LevelSwitch : public MpiInterface, public BackEndCallbacks
{
 public:
  static constexpr int kSmpi    = 0;
  static constexpr int kOpenMpi = 1;

  /**
   * `smpi` and `openmpi`: the rank's two dispatches (owned by the runtime); `smpi_hooks`: what
   * surrounds each SMPI call (its calls are simulator calls); `start`: the back end of the run's level.
   */
  LevelSwitch(int rank, RankMpi* smpi, const CallHooks* smpi_hooks, RankMpi* openmpi, int start);
  ~LevelSwitch() override;

  const char* back_end() const override;
  const CallHooks* active_call_hooks() const override;
  int current_back_end() const { return current_; }
  /**
   * Makes `back_end` the rank's current one, at a region boundary that every rank crosses: the
   * first time, the back end is initialised (MPI_Init_thread as the program asked) and the
   * communicators the program made in the other one are re-created in it. Returns an MPI error code.
   */
  int switch_to(int back_end);

  // Used by the generated SwitchRank.
  /** The scope of one call into a back end (its hooks, the callbacks' back end). */
  class Call
  {
   public:
    Call(LevelSwitch& owner, int back_end);
    ~Call();
    Call(const Call&)            = delete;
    Call& operator=(const Call&) = delete;
    MpiInterface& target() const { return *owner_.slots_[back_end_].dispatch; }
    int back_end() const { return back_end_; }

   private:
    LevelSwitch& owner_;
    int back_end_;
    int previous_;
    bool foreign_; // a call to the back end of the other level (a request or message made there)
    void* token_ = nullptr;
  };
  /**
   * After a test (MPI_Test, MPI_Request_get_status, the any/some/all forms) made in `back_end` that found
   * nothing to complete. Called in the other level's back end, the test charged nothing (Call: that back
   * end's polling costs are quieted), so the current level's empty poll is charged here: a loop of such
   * tests takes the time the level's own polling takes, and advances simulated time.
   */
  void after_poll(int back_end, bool found);

  template <class H>
  H to_called(H handle, int back_end)
  {
    return reinterpret_cast<H>(to_called_value(reinterpret_cast<uintptr_t>(handle), back_end, kind_name(handle)));
  }
  template <class H>
  H from_called(H handle, int back_end)
  {
    return reinterpret_cast<H>(from_called_value(reinterpret_cast<uintptr_t>(handle), back_end));
  }
  /** After a call given a handle by reference (free, commit): the program's handle, or the null the call set. */
  template <class H>
  H after_inout(H program_value, H called_value, int back_end)
  {
    auto called = reinterpret_cast<uintptr_t>(called_value);
    if (called < kPredefinedLimit) { // freed: its kind's null handle
      forget(reinterpret_cast<uintptr_t>(program_value));
      return called_value;
    }
    (void)back_end;
    return program_value;
  }
  template <class H>
  int owner_of(H routed) const
  {
    auto it = routed_.find(reinterpret_cast<uintptr_t>(routed));
    return it != routed_.end() ? it->second : current_;
  }
  /** The back end that made a window or file (their calls go there, at every level). */
  template <class H>
  int owner_of_handle(H handle) const
  {
    auto it = handles_.find(reinterpret_cast<uintptr_t>(handle));
    return it != handles_.end() ? it->second.owner : current_;
  }
  template <class H>
  void note_routed(H routed, int back_end)
  {
    if (reinterpret_cast<uintptr_t>(routed) >= kPredefinedLimit)
      routed_[reinterpret_cast<uintptr_t>(routed)] = back_end;
  }
  template <class H>
  void after_routed(H before, H after)
  {
    if (before != after) {
      routed_.erase(reinterpret_cast<uintptr_t>(before));
      if (not idups_.empty())
        completed_idup(reinterpret_cast<uintptr_t>(before));
      if constexpr (std::is_same_v<H, MPI_Request>)
        receives_.erase(reinterpret_cast<uintptr_t>(before));
    }
  }
  /**
   * The back end a send goes to, counted there: the current one, or the other one when the
   * destination has a receive pending there (posted before the last boundary, on the same
   * communicator, naming this rank or MPI_ANY_SOURCE, with this tag or MPI_ANY_TAG) that no message
   * sent there takes: the message is forwarded to the first such receive (MPI's order of posting).
   */
  int send_route(int dest, int tag, MPI_Comm comm, const char* call);
  /**
   * The back end a receive goes to: the current one, or the other one when a message sent there
   * before the last boundary, and taken by no receive there, matches it and no earlier message at the
   * current level does (it is received where it waits, in the sender's order). Counts the receive.
   */
  int receive_route(int source, int tag, MPI_Comm comm);
  void note_receive_request(MPI_Request request, int source, int tag, int back_end);
  /** Before MPI_Cancel of `request`: a receive no message has reached yet no longer takes one (a message
   * sent at the other level must not be forwarded to it). */
  void note_cancel(MPI_Request request);
  /** The back end a probe looks in: where a message it matches waits, as for a receive (nothing counted). */
  int probe_route(int source, int tag, MPI_Comm comm);
  /** After a matched probe (MPI_Mprobe, MPI_Improbe with a message) in `back_end`: the message it took. */
  void note_matched_probe(int source, int tag, MPI_Comm comm, int back_end);
  /** Before waiting for `request`: a receive of the other level is noted for the deadlock report. */
  void check_wait(MPI_Request request, const char* call);
  void note_wait(MPI_Request request, const char* call); // the same, among others (Waitall)
  /** The receive of the other level the rank waits for (wait_detail_), for a deadlock report. */
  const std::string& wait_detail() const { return wait_detail_; }
  /** Where the rank is, for reports: "region 'solve' (cycle)". */
  void set_place(std::string place) { place_ = std::move(place); }
  /** Messages this rank sent to a receive pending at the other level (forwarded). */
  long forwarded() const { return forwarded_; }
  int peer_count(MPI_Comm comm);
  int in_degree(MPI_Comm comm);
  int out_degree(MPI_Comm comm);

  // After constructors (generate_mpi.py's SWITCH_RECORDED): how to make the same handle in the other back end.
  void record_Comm_dup(MPI_Comm comm, MPI_Comm newcomm);
  void record_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm newcomm);
  void record_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm newcomm);
  void record_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm newcomm);
  void record_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm newcomm);
  void record_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm newcomm);
  void record_Dist_graph_create(MPI_Comm comm_old, int n, const int* sources, const int* degrees,
                                const int* destinations, const int* weights, MPI_Info info, int reorder,
                                MPI_Comm comm_dist_graph);
  void record_Comm_group(MPI_Comm comm, MPI_Group group);
  void record_Cart_create(MPI_Comm old_comm, int ndims, const int* dims, const int* periods, int reorder,
                          MPI_Comm comm_cart);
  void record_Cart_sub(MPI_Comm comm, const int* remain_dims, MPI_Comm new_comm);
  void record_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm bridge_comm, int remote_leader, int tag,
                               MPI_Comm newintercomm);
  void record_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm newintracomm);
  void record_Group_incl(MPI_Group group, int n, const int* ranks, MPI_Group newgroup);
  void record_Op_create(MPI_User_function* function, int commute, MPI_Op op);
  void record_Type_commit(MPI_Datatype type);
  void record_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype newtype);
  void record_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype newtype);
  void record_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                                  MPI_Datatype newtype);
  void record_Type_indexed(int count, const int* blocklengths, const int* displacements, MPI_Datatype oldtype,
                           MPI_Datatype newtype);
  void record_Type_create_hindexed(int count, const int* blocklengths, const MPI_Aint* displacements,
                                   MPI_Datatype oldtype, MPI_Datatype newtype);
  void record_Type_create_indexed_block(int count, int blocklength, const int* displacements, MPI_Datatype oldtype,
                                        MPI_Datatype newtype);
  void record_Type_create_hindexed_block(int count, int blocklength, const MPI_Aint* displacements,
                                         MPI_Datatype oldtype, MPI_Datatype newtype);
  void record_Type_create_subarray(int ndims, const int* sizes, const int* subsizes, const int* starts, int order,
                                   MPI_Datatype oldtype, MPI_Datatype newtype);
  void record_Type_create_darray(int size, int rank, int ndims, const int* array_of_gsizes,
                                 const int* array_of_distribs, const int* array_of_dargs, const int* array_of_psizes,
                                 int order, MPI_Datatype oldtype, MPI_Datatype newtype);
  void record_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype newtype);
  void record_Type_create_struct(int count, const int* blocklengths, const MPI_Aint* displacements,
                                 const MPI_Datatype* types, MPI_Datatype newtype);
  void record_Type_dup(MPI_Datatype type, MPI_Datatype newtype);
  void record_Comm_create_errhandler(MPI_Comm_errhandler_function* function, MPI_Errhandler errhandler);
  void record_Win_create_errhandler(MPI_Win_errhandler_function* function, MPI_Errhandler errhandler);
  void record_File_create_errhandler(MPI_File_errhandler_function* function, MPI_Errhandler errhandler);
  void record_Info_create(MPI_Info info);
  void record_Info_dup(MPI_Info info, MPI_Info newinfo);
  void record_Info_set(MPI_Info info, const char* key, const char* value);
  void record_Info_delete(MPI_Info info, const char* key);

  // Written by hand (LevelSwitch.cpp): start and end, and the calls over arrays of requests.
  int Init(int* argc, char*** argv) override;
  int Init_thread(int* argc, char*** argv, int required, int* provided) override;
  int Finalize() override;
  int Initialized(int* flag) override;
  int Finalized(int* flag) override;
  int Query_thread(int* provided) override;
  int Is_thread_main(int* flag) override;
  int Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
               int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
               MPI_Status* status) override;
  int Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]) override;
  int Waitany(int count, MPI_Request array_of_requests[], int* index, MPI_Status* status) override;
  int Waitsome(int incount, MPI_Request array_of_requests[], int* outcount, int array_of_indices[],
               MPI_Status array_of_statuses[]) override;
  int Testall(int count, MPI_Request array_of_requests[], int* flag, MPI_Status array_of_statuses[]) override;
  int Testany(int count, MPI_Request array_of_requests[], int* index, int* flag, MPI_Status* status) override;
  int Testsome(int incount, MPI_Request array_of_requests[], int* outcount, int array_of_indices[],
               MPI_Status array_of_statuses[]) override;
  int Startall(int count, MPI_Request array_of_requests[]) override;
  int Sendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag,
                       MPI_Comm comm, MPI_Status* status) override;
  // Persistent requests are the switch's own: a request made at one level may be started at the
  // other, and each start is a new Isend/Irecv (Issend, Ibsend, Irsend) routed as any other.
  int Send_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request* request) override;
  int Bsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                 MPI_Request* request) override;
  int Ssend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                 MPI_Request* request) override;
  int Rsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                 MPI_Request* request) override;
  int Recv_init(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                MPI_Request* request) override;
  // Matched probes: routed where the message waits (as MPI_Probe); at the smpi level, the SMPI back end's
  // (SmpiMatchedProbes.cpp).
  int Mprobe(int source, int tag, MPI_Comm comm, MPI_Message* message, MPI_Status* status) override;
  int Improbe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message, MPI_Status* status) override;
  int Mrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message, MPI_Status* status) override;
  int Imrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message, MPI_Request* request) override;
  // Graph topologies: re-created at the other level from the constructor's arguments (each back end
  // answers the queries on its copy).
  int Graph_create(MPI_Comm comm_old, int nnodes, const int* index, const int* edges, int reorder,
                   MPI_Comm* comm_graph) override;
  int Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int* sources, const int* sourceweights,
                                 int outdegree, const int* destinations, const int* destweights, MPI_Info info,
                                 int reorder, MPI_Comm* comm_dist_graph) override;
  // Its record takes its place among the collective constructors at the call (their order is the calls'), its
  // communicator is known at completion (the SMPI back end makes it then): completed_idup.
  int Comm_idup(MPI_Comm comm, MPI_Comm* newcomm, MPI_Request* request) override;
  /**
   * MPI_*_get_errhandler hands out a new reference to the handler, which the program frees: that free
   * only drops bxisim's count (the handle may be the program's handle of a handler of the other back
   * end, whose own free would destroy it).
   */
  void note_errhandler_reference(MPI_Errhandler errhandler)
  {
    if (reinterpret_cast<uintptr_t>(errhandler) >= kPredefinedLimit)
      ++errhandler_references_[reinterpret_cast<uintptr_t>(errhandler)];
  }
  bool drop_errhandler_reference(MPI_Errhandler& errhandler)
  {
    auto it = errhandler_references_.find(reinterpret_cast<uintptr_t>(errhandler));
    if (it == errhandler_references_.end())
      return false;
    if (--it->second == 0)
      errhandler_references_.erase(it);
    errhandler = MPI_ERRHANDLER_NULL;
    return true;
  }
  bool is_persistent(MPI_Request request) const { return persistent_.count(reinterpret_cast<uintptr_t>(request)) != 0; }
  int persistent_start(MPI_Request* request);
  int persistent_wait(MPI_Request* request, MPI_Status* status);
  int persistent_test(MPI_Request* request, int* flag, MPI_Status* status);
  int persistent_free(MPI_Request* request);
  int persistent_cancel(MPI_Request* request);
  int persistent_get_status(MPI_Request request, int* flag, MPI_Status* status);
  // Keyvals and attributes: bxisim keeps those of the program's keyvals (the same at every level);
  // predefined attributes (MPI_TAG_UB, MPI_UNIVERSE_SIZE, MPI_WTIME_IS_GLOBAL, MPI_WIN_BASE, ...) are
  // asked of the current back end.
  int Keyval_create(MPI_Copy_function* copy_fn, MPI_Delete_function* delete_fn, int* keyval,
                    void* extra_state) override;
  int Keyval_free(int* keyval) override;
  int Attr_put(MPI_Comm comm, int keyval, void* attribute_val) override;
  int Attr_get(MPI_Comm comm, int keyval, void* attribute_val, int* flag) override;
  int Attr_delete(MPI_Comm comm, int keyval) override;
  int Comm_create_keyval(MPI_Comm_copy_attr_function* comm_copy_attr_fn,
                         MPI_Comm_delete_attr_function* comm_delete_attr_fn, int* comm_keyval,
                         void* extra_state) override;
  int Comm_free_keyval(int* comm_keyval) override;
  int Comm_set_attr(MPI_Comm comm, int comm_keyval, void* attribute_val) override;
  int Comm_get_attr(MPI_Comm comm, int comm_keyval, void* attribute_val, int* flag) override;
  int Comm_delete_attr(MPI_Comm comm, int comm_keyval) override;
  int Type_create_keyval(MPI_Type_copy_attr_function* type_copy_attr_fn,
                         MPI_Type_delete_attr_function* type_delete_attr_fn, int* type_keyval,
                         void* extra_state) override;
  int Type_free_keyval(int* type_keyval) override;
  int Type_set_attr(MPI_Datatype type, int type_keyval, void* attr_val) override;
  int Type_get_attr(MPI_Datatype type, int type_keyval, void* attribute_val, int* flag) override;
  int Type_delete_attr(MPI_Datatype type, int type_keyval) override;
  int Win_create_keyval(MPI_Win_copy_attr_function* win_copy_attr_fn, MPI_Win_delete_attr_function* win_delete_attr_fn,
                        int* win_keyval, void* extra_state) override;
  int Win_free_keyval(int* win_keyval) override;
  int Win_set_attr(MPI_Win win, int win_keyval, void* attribute_val) override;
  int Win_get_attr(MPI_Win win, int win_keyval, void* attribute_val, int* flag) override;
  int Win_delete_attr(MPI_Win win, int win_keyval) override;
  /** Set in the current back end, and in the other one at each boundary into it (MPI_ERRORS_RETURN stays). */
  int Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) override;

  // BackEndCallbacks: those of the back end being called, with its handles turned into bxisim's.
  MPI_Datatype callback_datatype(void* handle) const override;
  MPI_Comm callback_comm(void* handle) const override;
  MPI_Win callback_win(void* handle) const override;
  MPI_File callback_file(void* handle) const override;
  int callback_errcode(int code) const override;
  int callback_to_be_errcode(int code) const override;
  int callback_keyval(int keyval) const override;
  void callback_to_be_status(const MPI_Status* status, void* be_status) const override;

 protected:
  using Maker = std::function<uintptr_t(LevelSwitch&, int back_end)>;
  /** Records how to re-create, in another back end, the handle `made` (a datatype, operation or group). */
  void record_local_constructor(uintptr_t made, Maker make);
  /**
   * Records a collective constructor (a communicator, MPI_COMM_NULL on ranks left out), replayed at the
   * first boundary into the other back end, in creation order, by every rank.
   */
  void record_collective_constructor(uintptr_t made, uintptr_t parent, Maker make);

 private:
  static constexpr uintptr_t kPredefinedLimit = 0x400;
  struct Slot {
    MpiInterface* dispatch   = nullptr;
    const CallHooks* hooks   = nullptr;
    bool initialized         = false;
    bool finalized           = false;
    MPI_Request idle_request = MPI_REQUEST_NULL; // after_poll's, in this back end
  };
  struct Handle {
    int owner;
    uintptr_t mirror = 0; // in the other back end; 0: none yet
    Maker make;           // local constructors only
    bool committed = false;
  };
  struct Collective {
    int owner;
    uintptr_t made;   // 0: MPI_COMM_NULL on this rank
    uintptr_t parent; // the communicator it was made from
    Maker make;
    bool replayed = false;
    bool freed    = false;     // MPI_Comm_free'd (its value may be handed out again for another one)
    std::string path;          // its path of constructors when made from a followed communicator (same on every rank)
    uintptr_t mirror  = 0;     // made by the replay in the other back end (kept after a free: it may be a parent)
    int freed_at      = -1;    // the back end whose copy the program freed
    int replayed_at   = -1;    // the boundary (its number) that replayed it
    long parent_index = -1;    // the record of `parent` (-1: a predefined communicator, or not recorded)
    bool pending      = false; // an MPI_Comm_idup not complete yet (`made` is 0 until then)
    std::vector<size_t> children{}; // the records made from this one
  };

  static const char* kind_name(MPI_Comm) { return "communicator"; }
  static const char* kind_name(MPI_Group) { return "group"; }
  static const char* kind_name(MPI_Datatype) { return "datatype"; }
  static const char* kind_name(MPI_Op) { return "operation"; }
  static const char* kind_name(MPI_Win) { return "window"; }
  static const char* kind_name(MPI_Info) { return "info"; }
  static const char* kind_name(MPI_Errhandler) { return "error handler"; }
  static const char* kind_name(MPI_File) { return "file"; }
  uintptr_t to_called_value(uintptr_t value, int back_end, const char* kind);
  uintptr_t from_called_value(uintptr_t value, int back_end);
  void forget(uintptr_t value);
  const BackEndCallbacks& called_callbacks() const;
  int init_back_end(int back_end, int* argc, char*** argv);
  /** Whether the requests (those that are not null) all belong to one back end; which one in `back_end`. */
  bool one_owner(int count, const MPI_Request* requests, int& back_end) const;

  /**
   * A communicator whose point-to-point traffic the switch follows: MPI_COMM_WORLD and those made from
   * a followed one by a collective constructor, or identified by their members. `id` is the same on every
   * rank (the path of constructors from MPI_COMM_WORLD, or the members); `world` gives the MPI_COMM_WORLD
   * rank of each rank its point-to-point calls name (an intercommunicator's: the remote group's).
   */
  struct Followed {
    int id;
    std::string path;
    std::vector<int> world;
    int children = 0; // collective constructors called on it so far
    std::string name() const;
  };
  /** A message sent to this rank at one back end (on a followed communicator), not known to be taken yet. */
  struct Message {
    long seq; // the job's order of sending (ranks run one at a time, in simulated time order)
    int comm; // the followed communicator's id
    int from; // the sender's MPI_COMM_WORLD rank
    int tag;
    const char* call;
    std::string place;
  };
  /** A receive (or matched probe) this rank posted at one back end, not known to be matched yet. */
  struct Posted {
    int comm;
    int from;        // MPI_COMM_WORLD rank, -1: MPI_ANY_SOURCE
    int tag;         // or MPI_ANY_TAG
    uint64_t id = 0; // receive_route's number of the receive (0: a probe's)
    bool takes(const Message& message) const
    {
      return message.comm == comm && (from < 0 || message.from == from) && (tag == MPI_ANY_TAG || message.tag == tag);
    }
  };
  /**
   * This rank's point-to-point traffic at one back end, as MPI matches it there: messages sent to it
   * (in the job's order of sending) and receives it posted (in its order of posting). match() pairs
   * them as MPI does (each receive takes the earliest message it matches that no earlier receive took;
   * receives from MPI_ANY_SOURCE take the earliest sent) and keeps only what is left: the messages no
   * receive took (stranded when the rank left the level) and the receives no message reached.
   */
  struct Level {
    std::vector<Message> inbox;
    std::vector<Posted> posted;
    bool dirty        = false;
    size_t compact_at = 1024; // match() when the lists reach this size (memory stays bounded in a long phase)
  };
  /** After something was added to `back_end`'s lists. */
  void added(int back_end);
  struct Receive { // a pending receive request, for the deadlock report
    Posted posted;
    std::string place;
  };
  struct Topology {
    int kind;                                                           // MPI_CART, MPI_GRAPH, MPI_DIST_GRAPH
    std::vector<int> index, edges;                                      // graph
    std::vector<int> sources, sourceweights, destinations, destweights; // distributed graph (adjacent)
    bool weighted = false;
  };
  std::unordered_map<uintptr_t, int> errhandler_references_; // handed out by *_get_errhandler, not freed yet
  std::map<std::string, int> by_members_; // communicators identified by their members so far, per kind and members
  /** Follows `made` (the program's handle, made by the back end of the call) by its members: its path is `kind`,
   * its MPI_COMM_WORLD ranks and how many of that kind and members came before (the same on every member). */
  std::string follow_members(MPI_Comm made, const char* kind);
  /** The MPI_COMM_WORLD ranks of `group` (a program handle), asked of the back end of the call. */
  std::vector<int> group_members(MPI_Group group);
  /** A group of these MPI_COMM_WORLD ranks in back end `be` (the caller frees it). */
  MPI_Group members_group(const std::vector<int>& ranks, int be);
  /** Whether this rank needs its record `i` re-made in `be` at boundary `boundary`: a communicator it holds,
   * or the parent of one replayed (re-made, then freed). */
  bool needs(size_t i, int be, int boundary) const;
  /** Whether every rank of record `i`'s constructor replays it at that boundary: one of them needs it. */
  bool replays(size_t i, int be, int boundary) const;
  std::unordered_map<std::string, size_t> by_path_;    // followed records by path
  std::unordered_map<uintptr_t, size_t> live_records_; // communicator value -> its record, until freed
  struct Idup {
    std::unique_ptr<MPI_Comm> slot; // where the back end writes the new communicator
    MPI_Comm* newcomm;              // the program's (written at completion when the back end makes it then)
    size_t record;
    int back_end;
    std::vector<int> world;                        // its ranks in MPI_COMM_WORLD when followed
    std::vector<std::pair<int, void*>> attributes; // copied at the call
  };
  std::unordered_map<uintptr_t, Idup> idups_; // by request, until the back end makes the communicator
  /** After the request `request` completed: if it was an MPI_Comm_idup's, its communicator is recorded. */
  void completed_idup(uintptr_t request);
  /** The program's handle of an MPI_Comm_idup's communicator, now in `idup.slot`; its record completed. */
  MPI_Comm record_idup(Idup& idup);
  int boundary_ = 0;                                    // boundaries crossed so far (the same on every rank)
  std::pair<uintptr_t, uintptr_t> replay_parent_{0, 0}; // while replaying: a freed parent's value -> its copy
  /** The MPI_COMM_WORLD ranks of `comm` (a back end's own handle) in back end `be`; with `peers`, of the ranks
   * its point-to-point calls name (an intercommunicator's remote group). */
  std::vector<int> world_ranks(MPI_Comm comm, int be, bool peers = false);
  /** A graph communicator in back end `be`. */
  MPI_Comm make_graph(int be, MPI_Comm comm_old, int nnodes, const int* index, const int* edges, int reorder,
                      int* result);
  MPI_Comm make_dist_graph(int be, MPI_Comm comm_old, const Topology& graph, MPI_Info info, int reorder, int* result);
  /** Records a distributed graph communicator, re-created as MPI_Dist_graph_create_adjacent of `graph`. */
  void record_dist_graph(MPI_Comm comm_old, MPI_Comm made, Topology graph, int reorder);
  int matched_probe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message, MPI_Status* status);
  enum class PersistentKind { Send, Bsend, Ssend, Rsend, Recv };
  struct Persistent {
    PersistentKind kind;
    void* buf;
    int count;
    MPI_Datatype datatype; // the program's handles
    int peer;
    int tag;
    MPI_Comm comm;
    MPI_Request active = MPI_REQUEST_NULL; // the Isend/Irecv of the last start, until completed
  };
  int make_persistent(PersistentKind kind, const void* buf, int count, MPI_Datatype datatype, int peer, int tag,
                      MPI_Comm comm, MPI_Request* request);
  /** In an array of requests, persistent ones replaced by their active request (MPI_REQUEST_NULL: inactive). */
  bool has_persistent(int count, const MPI_Request* requests) const;
  std::vector<MPI_Request> unwrap(int count, MPI_Request* requests);
  /** After the call: the persistent requests put back, their active request updated. */
  void rewrap(int count, MPI_Request* requests, const std::vector<MPI_Request>& program);
  std::unordered_map<uintptr_t, std::unique_ptr<Persistent>> persistent_; // by program handle (the object's address)

  /** Pairs the messages and receives of `back_end` (Level), when something was added since the last time. */
  void match(int back_end);
  /** The earliest message left in `back_end` that `posted` takes (inbox index), or -1. */
  long earliest(int back_end, const Posted& posted);
  /** The receive a call names, on a followed communicator; false: not followed (or MPI_PROC_NULL, ...). */
  bool as_posted(int source, int tag, MPI_Comm comm, Posted& posted);
  /** The followed communicator `comm` (nullptr: not followed). */
  Followed* followed(MPI_Comm comm);
  /** After a collective constructor on `parent` made `made` (MPI_COMM_NULL on ranks left out), in back end `be`. */
  void follow(MPI_Comm parent, MPI_Comm made, int be);
  std::string last_path_; // the path follow() gave the communicator just made ("" when not followed)
  enum class AttributeKind { Comm, Type, Win };
  struct Keyval {
    AttributeKind kind;
    void* copy; // 0: none (NULL_COPY_FN), 1: DUP_FN, else the program's function
    void* remove;
    void* extra_state;
    bool freed = false;
  };
  static constexpr int kFirstKeyval = 0x10000; // above every predefined attribute key
  int create_keyval(AttributeKind kind, void* copy, void* remove, int* keyval, void* extra_state);
  int free_keyval(AttributeKind kind, int* keyval);
  const Keyval* user_keyval(AttributeKind kind, int keyval) const;
  int set_attribute(AttributeKind kind, uintptr_t object, int keyval, void* value);
  int get_attribute(uintptr_t object, int keyval, void* value, int* flag) const;
  int delete_attribute(AttributeKind kind, uintptr_t object, int keyval);
  int call_delete(const Keyval& keyval, uintptr_t object, int key, void* value) const;
  /** After a duplication (Comm_dup, Type_dup): the attributes whose keyval copies them. */
  void copy_attributes(AttributeKind kind, uintptr_t from, uintptr_t to);
  /** The (keyval, value) pairs the copy functions give a duplicate of `from`. */
  std::vector<std::pair<int, void*>> copied_attributes(AttributeKind kind, uintptr_t from);
  /** At a boundary into `back_end`: the error handlers the program set, set there too. */
  void apply_errhandlers(int back_end);
  /** Whether `value` (a program handle) has a value in `back_end` without making one. */
  bool present_in(uintptr_t value, int back_end) const;

  std::map<int, Keyval> keyvals_;
  int next_keyval_ = kFirstKeyval;
  std::map<std::pair<uintptr_t, int>, void*> attributes_; // (object, keyval) -> value
  std::unordered_map<uintptr_t, uintptr_t> errhandlers_;  // communicator -> error handler the program set
  std::unordered_map<uintptr_t, std::vector<std::pair<std::string, std::string>>> info_entries_; // in order
  Level levels_[2];
  std::unordered_map<uintptr_t, Receive> receives_;  // pending receive requests on followed communicators
  std::unordered_map<uintptr_t, Followed> followed_; // by program handle (MPI_COMM_WORLD included)
  bool last_posted_valid_ = false;                   // the receive receive_route just counted
  Posted last_posted_{};
  uint64_t receives_posted_ = 0; // numbers the receives receive_route counts
  long forwarded_           = 0; // messages sent to a receive of the other level
  std::string wait_detail_;
  std::string place_ = "outside any region";
  Slot slots_[2];
  int current_;
  int called_          = -1; // the back end of the call in progress (callbacks), -1 outside calls
  bool thread_init_    = false;
  int thread_required_ = MPI_THREAD_SINGLE;
  std::unordered_map<uintptr_t, Handle> handles_;      // by program value
  std::unordered_map<uintptr_t, uintptr_t> canonical_; // mirror value -> program value
  std::vector<Collective> collectives_;                // communicators made collectively, in order
  std::unordered_map<uintptr_t, int> routed_;          // requests and messages -> their back end
};

} // namespace bxisim::mw
