#pragma once
// Conversions between bxisim's MPI ABI (the MPI Forum's standard ABI, include/mpi.h) and SMPI's, the
// MPI of SimGrid 3.32 in libsimgrid, for one rank. Every generated function of the SMPI back end
// (SmpiRank, generated from mpi_api.list) converts its arguments in with to_be_<kind>, calls
// libsimgrid's MPI_x through a function pointer, and converts its outputs with from_be_<kind>.
//
// Handles: SMPI's are pointers to its C++ objects. Null handles are null pointers (except
// MPI_DATATYPE_NULL, an object); predefined datatypes, operations, MPI_GROUP_EMPTY and the error
// handlers are libsimgrid's objects smpi_MPI_x, found by name and translated by table both ways.
// MPI_COMM_WORLD is libsimgrid's variable MPI_COMM_WORLD, read at each call; MPI_COMM_SELF and
// MPI_INFO_ENV are per rank (smpi_process_comm_self(), smpi_process_info_env()). SMPI's constant
// values used here are facts of its smpi.h (3.32); this file does not include it (its names clash
// with mpi.h's).

#include "Callbacks.hpp"
#include "OpenMpiAbi.hpp" // Scratch
#include "PredefinedNames.hpp"
#include "SharedObjectAttributes.hpp"
#include "TypeBounds.hpp"
#include "WindowLocks.hpp"

#include <mpi.h>

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace bxisim::mw
{

/** The kinds of persistent point-to-point requests (MPI_Send_init, _Bsend_init, _Ssend_init, _Rsend_init,
 * MPI_Recv_init). */
enum class PersistentKind { send, buffered, synchronous, ready, receive };

class SmpiAbi : public BackEndCallbacks
{
 public:
  static constexpr const char* kName = "smpi";

  using be_comm       = void*;
  using be_group      = void*;
  using be_datatype   = void*;
  using be_op         = void*;
  using be_request    = void*;
  using be_win        = void*;
  using be_info       = void*;
  using be_errhandler = void*;
  using be_message    = void*;
  using be_file       = void*;
  /** SMPI's MPI_Status. */
  struct be_status {
    int source;
    int tag;
    int error;
    int count; // bytes
    int cancelled;
  };

  /** Resolves symbols of libsimgrid (dlsym on `library`, RTLD_DEFAULT in bxisim). */
  explicit SmpiAbi(void* library);
  /** For tests: symbols come from `resolve` (nullptr when absent). */
  explicit SmpiAbi(std::function<void*(const char*)> resolve);
  ~SmpiAbi() override = default;

  /** A function or object of libsimgrid; throws std::runtime_error naming it when absent, unless optional. */
  void* symbol(const char* name, bool optional) const;
  /** What a call of a function SMPI does not implement returns, after saying so. */
  int missing(const char* function) const;

  static bool be_ok(int result) { return result == kSmpiSuccess || result == kSmpiErrInStatus; }
  static be_status* be_status_ignore() { return nullptr; }
  static be_status* be_statuses_ignore() { return nullptr; }

  // Handles
  be_comm to_be_comm(MPI_Comm h) const;
  be_group to_be_group(MPI_Group h) const { return to_be(h, MPI_GROUP_NULL); }
  be_datatype to_be_datatype(MPI_Datatype h) const { return to_be(h, MPI_DATATYPE_NULL); }
  be_op to_be_op(MPI_Op h) const { return to_be(h, MPI_OP_NULL); }
  be_request to_be_request(MPI_Request h) const { return to_be(h, MPI_REQUEST_NULL); }
  be_win to_be_win(MPI_Win h) const { return to_be(h, MPI_WIN_NULL); }
  be_info to_be_info(MPI_Info h) const;
  be_errhandler to_be_errhandler(MPI_Errhandler h) const { return to_be(h, MPI_ERRHANDLER_NULL); }
  be_message to_be_message(MPI_Message h) const { return to_be(h, MPI_MESSAGE_NULL); }
  be_file to_be_file(MPI_File h) const { return to_be(h, MPI_FILE_NULL); }
  MPI_Comm from_be_comm(be_comm h) const;
  MPI_Group from_be_group(be_group h) const { return from_be(h, MPI_GROUP_NULL); }
  MPI_Datatype from_be_datatype(be_datatype h) const { return from_be(h, MPI_DATATYPE_NULL); }
  MPI_Op from_be_op(be_op h) const { return from_be(h, MPI_OP_NULL); }
  MPI_Request from_be_request(be_request h) const { return from_be(h, MPI_REQUEST_NULL); }
  /** A copy of the `count` elements of `type` at `buffer`, to send from in place of MPI_IN_PLACE: the address
   * that stands for `buffer` in the copy (its bytes are `copy`'s); nullptr when the type is not known. */
  const void* in_place_copy(const void* buffer, MPI_Count count, MPI_Datatype type, std::vector<unsigned char>& copy);
  /** Keeps `copy` for the request a call made (`result`, SMPI's code), or drops it when the call failed. */
  int keep_in_place_copy(int result, MPI_Request request, std::vector<unsigned char>& copy);
  /** After a completion call: a request the call ended (SMPI's handle now null) frees what was kept for it. */
  void request_ended(MPI_Request request, be_request now)
  {
    if (now != nullptr)
      return;
    if (not in_place_copies_.empty())
      in_place_copies_.erase(request);
    if (not eager_sends_.empty())
      eager_sends_.erase(request);
    if (not completion_actions_.empty())
      run_completion_action(request);
  }
  /** A status of a call that completes one operation: MPI_ERROR is the program's (MPI-3.1 3.2.5), but for the empty
   *  status, whose MPI_ERROR is MPI_SUCCESS (3.7.3). */
  void from_be_single_status(const be_status& status, MPI_Status* out) const;
  MPI_Win from_be_win(be_win h) const { return from_be(h, MPI_WIN_NULL); }
  MPI_Info from_be_info(be_info h) const;
  MPI_Errhandler from_be_errhandler(be_errhandler h) const { return from_be(h, MPI_ERRHANDLER_NULL); }
  MPI_Message from_be_message(be_message h) const { return from_be(h, MPI_MESSAGE_NULL); }
  MPI_File from_be_file(be_file h) const { return from_be(h, MPI_FILE_NULL); }

  /** SMPI's MPI_IN_PLACE is (void*)-222. */
  template <class T>
  static T* to_be_buffer(T* buffer)
  {
    return buffer == MPI_IN_PLACE ? reinterpret_cast<T*>(kSmpiInPlace) : buffer;
  }
  /** SMPI's MPI_BOTTOM is (void*)-111 (bxisim's is a null pointer): without it SMPI refuses a null buffer with a
   * count (MPI_ERR_BUFFER) instead of taking the datatype's displacements as addresses. */
  template <class T>
  static T* to_be_bottom(T* buffer)
  {
    return buffer == MPI_BOTTOM ? reinterpret_cast<T*>(kSmpiBottom) : buffer;
  }

  // Statuses
  be_status to_be_status(const MPI_Status* status) const;
  void from_be_status(const be_status& status, MPI_Status* out) const;

  // Integer values with special meanings
  static int to_be_rank(int rank);
  static int from_be_rank(int rank);
  /** The value of a predefined attribute (a pointer to SMPI's int) as bxisim's ABI has it: ranks (MPI_HOST,
   *  MPI_IO) converted, MPI_LASTUSEDCODE = MPI_ERR_LASTCODE (SMPI has no codes of the program's), others as
   *  they are. */
  const void* from_be_predefined_attribute(int keyval, const void* value);
  static int to_be_tag(int tag) { return tag == MPI_ANY_TAG ? kSmpiAnyTag : tag; }
  static int from_be_tag(int tag) { return tag == kSmpiAnyTag ? MPI_ANY_TAG : tag; }
  static int to_be_color(int color) { return color == MPI_UNDEFINED ? kSmpiUndefined : color; }
  static int from_be_color(int color) { return color == kSmpiUndefined ? MPI_UNDEFINED : color; }
  static int to_be_undef(int value) { return to_be_color(value); }
  static int from_be_undef(int value) { return from_be_color(value); }
  static int to_be_split_type(int split_type);
  static int to_be_thread_level(int level);
  static int from_be_thread_level(int level);
  static int from_be_compare(int result);
  static int from_be_topology(int topology);
  static int to_be_lock_type(int lock_type);
  static int to_be_win_assert(int assert_bits);
  static int to_be_file_amode(int amode);
  static int from_be_file_amode(int amode);
  static int to_be_whence(int whence);
  /** The byte count a bxisim status holds (64-bit, where SMPI's hold an int), and its setting. */
  static MPI_Count status_bytes(const MPI_Status* status);
  static void set_status_bytes(MPI_Status* status, MPI_Count bytes);
  /** A file view's displacement: MPI_DISPLACEMENT_CURRENT differs between ABIs, other values are offsets. */
  static MPI_Offset to_be_file_disp(MPI_Offset disp);
  static MPI_Offset from_be_file_disp(MPI_Offset disp);
  static int to_be_order(int order);
  static int to_be_typeclass(int typeclass);
  static int to_be_distribute(int distribute);
  static int to_be_darg(int darg) { return darg == MPI_DISTRIBUTE_DFLT_DARG ? kSmpiDistributeDfltDarg : darg; }
  static int from_be_combiner(int combiner);
  static int to_be_keyval(int keyval);
  static int from_be_keyval(int keyval);
  static int to_be_win_keyval(int keyval);
  static int to_be_errcode(int code);
  static int from_be_errcode(int code);
  static int from_be_win_flavor(int flavor);
  static int from_be_win_model(int model);

  static const int* to_be_weights_in(const int* weights);
  static int* to_be_weights_out(int* weights) { return const_cast<int*>(to_be_weights_in(weights)); }

  // Callbacks: libsimgrid calls a trampoline, which calls the program's function with bxisim's handles.
  void* to_be_user_function(MPI_User_function* function) const { return user_function_trampoline(function); }
  void* to_be_comm_errhandler_function(MPI_Comm_errhandler_function* function) const
  {
    return comm_errhandler_trampoline(function);
  }
  void* to_be_win_errhandler_function(MPI_Win_errhandler_function* function) const
  {
    return win_errhandler_trampoline(function);
  }
  void* to_be_file_errhandler_function(MPI_File_errhandler_function* function) const
  {
    return file_errhandler_trampoline(function);
  }

  // Array lengths that depend on a communicator (Alltoallw)
  int peer_count(MPI_Comm comm) const;

  // BackEndCallbacks
  MPI_Datatype callback_datatype(void* handle) const override { return from_be_datatype(handle); }
  MPI_Comm callback_comm(void* handle) const override { return from_be_comm(handle); }
  MPI_Win callback_win(void* handle) const override { return from_be_win(handle); }
  MPI_File callback_file(void* handle) const override { return from_be_file(handle); }
  int callback_errcode(int code) const override { return from_be_errcode(code); }
  int callback_to_be_errcode(int code) const override { return to_be_errcode(code); }
  int callback_keyval(int keyval) const override { return from_be_keyval(keyval); }
  void callback_to_be_status(const MPI_Status* status, void* be) const override
  {
    *static_cast<be_status*>(be) = to_be_status(status);
  }

  static constexpr int kSmpiSuccess            = 0;
  static constexpr int kSmpiErrInStatus        = 13;
  static constexpr int kSmpiAnySource          = -555;
  static constexpr int kSmpiProcNull           = -666;
  static constexpr int kSmpiAnyTag             = -444;
  static constexpr int kSmpiUndefined          = -333;
  static constexpr int kSmpiKeyvalInvalid      = -9;
  static constexpr int kSmpiDistributeDfltDarg = 3;
  static constexpr intptr_t kSmpiInPlace       = -222;
  static constexpr intptr_t kSmpiBottom        = -111;
  /** Keyvals the program creates: SMPI numbers them from 0, which is MPI_KEYVAL_INVALID in mpi.h. */
  static constexpr int kUserKeyvalOffset = 1000;
  /** bxisim's predefined handles are below this value (the standard ABI's), the program's above. */
  static constexpr uintptr_t kPredefinedLimit = 0x400;
  /** A function of libsimgrid's SMPI classes by its mangled name (libsimgrid exports them; SimGrid is Debian's 3.32):
   *  `what` names it in the message that ends the run when this libsimgrid lacks it. */
  static void* simgrid_internal(const char* mangled, const char* what);

 protected:
  /** MPI_Type_get_name of predefined datatypes, the same at every level. */
  PredefinedNames predefined_names_;
  /**
   * SMPI 3.32's nonblocking reductions and all-to-alls with MPI_IN_PLACE copy the data into a buffer local to the
   * call and send from it after it is freed (wrong data). bxisim gives them a copy of its own instead, kept by
   * request until a completion call ends it.
   */
  std::unordered_map<MPI_Request, std::vector<unsigned char>> in_place_copies_;
  /**
   * Nonblocking sends SMPI 3.32 made detached (eager or buffered): complete as they are posted, without an activity,
   * so that its MPI_Testany passes over them (SmpiCompositeRequests.cpp, testany_eager_sends). Until a completion call
   * ends them; an entry that outlives its request (freed by a path that does not say) costs a test, never a wrong
   * answer: the test is what says complete.
   */
  std::unordered_set<MPI_Request> eager_sends_;
  /** What to do when a completion call ends a request (a matched message's copy into the program's buffer). */
  std::unordered_map<MPI_Request, std::function<void()>> completion_actions_;
  void run_completion_action(MPI_Request request);
  /** A message MPI_Mprobe/MPI_Improbe matched (SmpiMatchedProbes.cpp): SMPI 3.32 has no matched probe, so bxisim
   *  receives the probed message at once into `bytes`, where no other receive can take it, and copies it into the
   *  program's buffer at MPI_Mrecv/MPI_Imrecv. */
  struct MatchedMessage {
    std::vector<unsigned char> bytes;
    be_request receive = nullptr;
    be_comm comm       = nullptr;
  };
  std::unordered_map<MPI_Message, std::shared_ptr<MatchedMessage>> matched_messages_;
  /** The neighbours of a process topology (SmpiTopologies.cpp): SMPI 3.32 has Cartesian topologies but no graph
   *  ones and no neighbour collectives. By SMPI communicator; `exchange`, the communicator the neighbour
   *  collectives' messages travel on (apart from the program's), is made at the first one. */
  struct Neighbourhood {
    int kind = MPI_UNDEFINED;      // MPI_GRAPH or MPI_DIST_GRAPH (graph queries), MPI_CART (neighbour lists only)
    std::vector<int> index, edges; // MPI_Graph_create's arguments
    std::vector<int> sources, destinations, source_weights, destination_weights;
    bool weighted    = false;
    bool listed      = false; // sources and destinations known (a Cartesian one's are asked of SMPI at first use)
    be_comm exchange = nullptr;
  };
  std::unordered_map<const void*, Neighbourhood> neighbourhoods_;
  /** A request bxisim made of several SMPI requests (SmpiCompositeRequests.cpp): a nonblocking neighbour collective,
   *  MPI_Comm_idup. The program's handle is the object's address, never given to SMPI; completion calls given one
   *  go through bxisim's own completion (`parts` emptied as SMPI completes them). */
  struct CompositeRequest {
    std::vector<be_request> parts;
    std::function<void()> at_completion; // run once, when the parts are complete (MPI_Comm_idup's duplicate)
    // A request of several steps, each waiting for the last (MPI_Iscan's chain, SmpiOrderedScan.cpp): run as the parts
    // complete, it gives the next step's parts (none: the request is complete).
    std::function<std::vector<be_request>()> next_step;
    // A receive on an inter-communicator: its one part's status, whose source is a rank of both groups (the
    // remote rank r is remote_in_bridge[r]).
    bool receive = false;
    be_status status{};
    std::vector<int> remote_in_bridge;
    bool proc_null = false; // a send to or a receive from MPI_PROC_NULL: no part (MPI-3.1 3.11)
    // Persistent (MPI_Send_init to MPI_PROC_NULL, say): kept when complete, inactive until MPI_Start again.
    bool persistent = false, active = true;
    // A persistent point-to-point request (SmpiPersistentRequests.cpp): MPI_Start posts its part, a new nonblocking
    // request of SMPI's; at_free runs as it is freed (its duplicate of the program's datatype goes).
    std::function<int(be_request* part)> start;
    std::function<void()> at_free;
    // An SMPI request SMPI completed while the program still holds it (SmpiEarlyCompletions.cpp): its status kept,
    // the SMPI request alive until this ends (at_completion).
    bool early = false;
    /** Whether its status is its one part's (a receive's source, a cancelled send's flag), kept at completion. */
    bool own_status() const { return receive || early || static_cast<bool>(start); }
  };
  std::unordered_map<MPI_Request, std::unique_ptr<CompositeRequest>> composites_;
  /** An inter-communicator (SmpiIntercomms.cpp; SMPI 3.32 has none). The program's handle is `bridge`, an SMPI
   *  communicator of both groups (the group with the lowest world rank first), on which its point-to-point messages
   *  travel; `collective` holds the same ranks for bxisim's inter-communicator collectives, `local` the local group. */
  struct Intercomm {
    be_comm bridge = nullptr, collective = nullptr, local = nullptr;
    std::vector<int> local_in_bridge, remote_in_bridge; // the bridge rank of each local and remote rank
    std::vector<int> world_of_bridge;                   // the MPI_COMM_WORLD rank of each bridge rank
    // Nonblocking collectives called on it and not run yet, in the order of the calls (SmpiIntercomms.cpp).
    std::deque<std::shared_ptr<std::function<int()>>> pending;
  };
  std::unordered_map<const void*, Intercomm> intercomms_;
  bool is_intercomm(MPI_Comm comm) const { return not intercomms_.empty() && intercomms_.count(to_be_comm(comm)) != 0; }
  /** The status of a message received on an inter-communicator: its source as a remote rank. */
  void from_bridge_status(const std::vector<int>& remote_in_bridge, const be_status& status, MPI_Status* out,
                          bool single) const;
  /** The error classes and codes the program added (SmpiErrorCodes.cpp): each code's class and string. */
  struct AddedError {
    int error_class;
    std::string text;
  };
  std::unordered_map<int, AddedError> added_errors_;
  int last_added_code_ = MPI_ERR_LASTCODE;
  bool is_composite(MPI_Request request) const { return not composites_.empty() && composites_.count(request) != 0; }
  bool holds_composite(int count, const MPI_Request* requests) const
  {
    if (composites_.empty() || requests == nullptr)
      return false;
    for (int i = 0; i < count; ++i)
      if (composites_.count(requests[i]) != 0)
        return true;
    return false;
  }
  /** Attribute values converted to bxisim's constants (MPI_WIN_CREATE_FLAVOR, MPI_WIN_MODEL), kept for the program. */
  std::deque<int> converted_attributes_;
  /** Converted values of predefined communicator attributes, one per key (from_be_predefined_attribute). */
  std::map<int, int> predefined_attribute_values_;
  /** The level MPI_Init_thread provided (SMPI's own answer is always MPI_THREAD_SINGLE). */
  int thread_level_ = MPI_THREAD_SINGLE;
  /** How each window was created (SMPI does not answer MPI_WIN_CREATE_FLAVOR). */
  std::unordered_map<const void*, int> flavor_of_;
  int created_window(int result, void* window, int flavor, MPI_Win* win);
  /** Each window's name in bxisim's table of passive-target locks (WindowLocks.hpp), the windows made over each
   *  group (by its world ranks), and the locks this rank holds, by (window, target). */
  std::unordered_map<const void*, WindowIdentity> window_identities_;
  std::map<std::vector<int>, int> windows_made_over_;
  struct HeldLock {
    int taken;   // MPI_LOCK_EXCLUSIVE or MPI_LOCK_SHARED; 0 under MPI_MODE_NOCHECK (not in the table)
    bool of_all; // taken by MPI_Win_lock_all, which only MPI_Win_unlock_all ends
  };
  std::map<std::pair<const void*, int>, HeldLock> held_window_locks_;
  /** Windows of MPI_Win_allocate_shared over several ranks, laid out by bxisim (SmpiSharedWindows.cpp): each rank's
   *  segment in comm rank order, and the block, which the first rank frees with the window. */
  struct SharedSegment {
    void* base         = nullptr;
    MPI_Aint size      = 0;
    MPI_Aint disp_unit = 1;
  };
  struct SharedWindow {
    std::vector<SharedSegment> segments;
    void* owned_block = nullptr;
  };
  std::unordered_map<const void*, SharedWindow> shared_windows_;
  /** A constructor's arguments as MPI_Type_get_envelope and _contents give them, by type made, where SMPI 3.32
   *  answers otherwise: structs (reported as MPI_COMBINER_INDEXED, or as a contiguous type of bytes for predefined
   *  parts without gaps) and the indexed-block constructors (reported as indexed ones). */
  struct ConstructorArguments {
    int combiner = MPI_COMBINER_NAMED;
    std::vector<int> integers;
    std::vector<MPI_Aint> addresses;
    std::vector<MPI_Datatype> types;
    bool of_predefined_types = true; // answered by bxisim alone (no reference counts of derived parts to keep)
  };
  std::unordered_map<const void*, ConstructorArguments> arguments_of_;
  /** Keeps what a constructor was given, for `made` (SmpiDatatypes.cpp). */
  void keep_arguments(be_datatype made, int combiner, std::vector<int> integers, std::vector<MPI_Aint> addresses,
                      std::vector<MPI_Datatype> types);

  // Datatype layout (SmpiDatatypes.cpp): SMPI 3.32's bounds of derived types are often not MPI's (TypeBounds.hpp);
  // a type whose bounds differ from OpenMPI's is handed out wrapped in a struct that sets them.
  /** The SMPI calls the layout needs (SmpiRank's functions). */
  struct LayoutCalls {
    int (*get_extent)(be_datatype, MPI_Aint*, MPI_Aint*);
    int (*create_struct)(int, const int*, const MPI_Aint*, be_datatype*, be_datatype*);
    int (*free)(be_datatype*);
  };
  /** OpenMPI's bounds of a type: predefined ones from their C layout, derived ones as made (nullopt: unknown). */
  std::optional<TypeBounds> bounds_of(MPI_Datatype type) const;
  /** After an SMPI type constructor (`result`: SMPI's code): the program's handle of `made`, wrapped when SMPI's
   *  bounds differ from `bounds` or when SMPI goes from one element to the next by another distance than the extent
   *  (`smpi_step`, nullopt when unknown); bxisim's error code. */
  int laid_out(int result, be_datatype made, const std::optional<TypeBounds>& bounds, std::optional<MPI_Aint> smpi_step,
               MPI_Datatype* newtype, const LayoutCalls& calls);
  /** A struct over `made` with `bounds` as SMPI's bounds and element step (nullptr: SMPI could not make one). */
  be_datatype wrapped(be_datatype made, const TypeBounds& bounds, const LayoutCalls& calls);
  /** An accumulate's target as SMPI is given it (SmpiAccumulateTargets.cpp). */
  struct AccumulateTarget {
    be_datatype type;
    int count;
  };
  /** Handles of derived types MPI_Type_get_contents gave the program and bxisim (SMPI's own, each one more
   *  reference) not freed yet: freeing one drops that reference only (SmpiDatatypes.cpp). */
  std::unordered_map<const void*, int> contents_references_;
  /** The flat type handed to SMPI for accumulates into (type, count), found at their first use. */
  std::map<std::pair<const void*, int>, be_datatype> accumulate_targets_;
  /** The flat types made, by element type and blocks (place, length): kept for the run (SmpiAccumulateTargets.cpp). */
  std::map<std::pair<const void*, std::vector<std::pair<MPI_Aint, int>>>, be_datatype> flat_types_;
  /** A one-sided call's origin or result buffer as SMPI is given it (SmpiBottomBuffers.cpp). */
  struct BottomBuffer {
    void* buffer;
    int count;
    be_datatype type;
    bool made; // `type` made for the call, freed after it
  };
  /** laid_out for a constructor over one `old` type that SMPI may have made (`result`): `bounds` maps old's bounds
   *  to the new type's, `step` gives SMPI's distance between elements; neither is called for a failed call or a
   *  type not `described` (no block to measure). */
  template <class Bounds, class Step>
  int laid_out_over(int result, be_datatype made, bool described, MPI_Datatype old, Bounds bounds, Step step,
                    MPI_Datatype* newtype, const LayoutCalls& calls)
  {
    if (not be_ok(result) || not described)
      return laid_out(result, made, std::nullopt, std::nullopt, newtype, calls);
    std::optional<TypeBounds> old_bounds = bounds_of(old);
    std::optional<TypeBounds> new_bounds;
    if (old_bounds.has_value())
      new_bounds = bounds(*old_bounds);
    return laid_out(result, made, new_bounds, std::optional<MPI_Aint>(step()), newtype, calls);
  }
  /** The type SMPI made under a wrapped one (for its envelope and contents), or `type` itself. */
  be_datatype made_by_smpi(be_datatype type) const;
  /** `dup` is a duplicate of `type`: the same bounds. */
  void duplicated_type(be_datatype type, be_datatype dup);
  /** Forgets `type` (freed) and frees SMPI's own type under it, if wrapped, with `free_type`. */
  void freed_type(be_datatype type, int (*free_type)(be_datatype*));
  std::unordered_map<const void*, TypeBounds> derived_bounds_;
  std::unordered_map<const void*, be_datatype> made_by_smpi_;
  be_datatype lower_bound_marker_ = nullptr; // SMPI's MPI_LB and MPI_UB (MPI-1's markers, kept by SMPI)
  be_datatype upper_bound_marker_ = nullptr;
  /** Attributes of the program's keyvals on MPI_COMM_WORLD and MPI_COMM_SELF, kept by bxisim (SmpiAttributes.cpp). */
  SharedObjectAttributes comm_attributes_;
  /** Attributes of the program's keyvals on predefined datatypes, kept by bxisim. */
  SharedObjectAttributes type_attributes_;
  bool attribute_kept_here(MPI_Comm comm, int keyval) const;
  bool attribute_kept_here(MPI_Datatype type, int keyval) const;
  /** Sets on `made`, with SMPI's `set_attr`, the copies of the kept attributes of `object`; SMPI's error code. */
  static int copy_kept_attributes(const SharedObjectAttributes& store, uintptr_t key, void* object, void* made,
                                  int (*set_attr)(void*, int, void*));
  /** After SMPI's MPI_Comm_dup(_with_info) of `comm` gave `made` (`result`): the kept attributes copied to it
   *  (freed with `free_comm` when a copy function fails), the program's handle written; bxisim's error code. */
  int duplicated_comm(int result, MPI_Comm comm, void* made, MPI_Comm* newcomm, int (*set_attr)(void*, int, void*),
                      int (*free_comm)(void**));

 private:
  void resolve_predefined();
  void predefined(uintptr_t abi, void* object);
  void predefined(uintptr_t abi, const char* object);

  template <class H>
  void* to_be(H handle, H null_handle) const
  {
    auto value = reinterpret_cast<uintptr_t>(handle);
    if (value >= kPredefinedLimit)
      return reinterpret_cast<void*>(value);
    if (not known_[value]) // a predefined handle SMPI lacks (MPI_REAL2, ...): its kind's null handle
      value = reinterpret_cast<uintptr_t>(null_handle);
    return predefined_[value];
  }
  template <class H>
  H from_be(void* object, H null_handle) const
  {
    if (object == nullptr)
      return null_handle;
    auto it = abi_of_.find(object);
    return reinterpret_cast<H>(it != abi_of_.end() ? it->second : reinterpret_cast<uintptr_t>(object));
  }

  std::function<void*(const char*)> resolve_;
  std::array<void*, kPredefinedLimit> predefined_{};
  std::array<bool, kPredefinedLimit> known_{};
  std::unordered_map<const void*, uintptr_t> abi_of_;

  void** comm_world_                   = nullptr; // libsimgrid's MPI_COMM_WORLD variable
  void* comm_uninitialized_            = nullptr; // what it holds when SMPI was not started by smpirun
  void* (*comm_self_)()                = nullptr;
  void* (*info_env_)()                 = nullptr;
  mutable void* comm_self_value_       = nullptr;
  mutable void* info_env_value_        = nullptr;
  int (*comm_test_inter_)(void*, int*) = nullptr;
  int (*comm_size_)(void*, int*)       = nullptr;
};

} // namespace bxisim::mw
