#pragma once
// Conversions between bxisim's MPI ABI (the MPI Forum's standard ABI, include/mpi.h) and OpenMPI
// 4.1.4's, for one rank's private copy of OpenMPI. Every generated function of the OpenMPI back end
// (OpenMpiRank, generated from mpi_api.list) converts its arguments in with to_be_<kind>, calls the
// copy through a function pointer, and converts its outputs with from_be_<kind>.
//
// Handles: OpenMPI's are pointers to its objects. Predefined ones (MPI_COMM_WORLD is
// &ompi_mpi_comm_world) are found in the rank's copy with dlsym and translated by table, both ways;
// every other handle is OpenMPI's pointer itself (the standard ABI keeps values below 0x400 for
// predefined handles, and no object lives there). OpenMPI's constant values used here are facts of
// its 4.1.4 mpi.h.

#include "Callbacks.hpp"
#include "PredefinedNames.hpp"

#include <mpi.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace bxisim::mw
{

/** Temporary arrays of a conversion: on the stack up to 16 elements. */
template <class T>
class Scratch
{
 public:
  explicit Scratch(size_t size) : size_(size)
  {
    if (size > kInline)
      heap_.resize(size);
  }
  T* data() { return size_ > kInline ? heap_.data() : inline_.data(); }
  size_t size() const { return size_; }
  T& operator[](size_t i) { return data()[i]; }

 private:
  static constexpr size_t kInline = 16;
  size_t size_;
  std::array<T, kInline> inline_{};
  std::vector<T> heap_;
};

class OpenMpiAbi : public BackEndCallbacks
{
 public:
  static constexpr const char* kName = "openmpi";

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
  /** OpenMPI's MPI_Status. */
  struct be_status {
    int source;
    int tag;
    int error;
    int cancelled;
    size_t ucount;
  };

  /** Resolves symbols of the rank's copy (dlsym on `library`). */
  explicit OpenMpiAbi(void* library);
  /** For tests: symbols come from `resolve` (nullptr when absent). */
  explicit OpenMpiAbi(std::function<void*(const char*)> resolve);
  ~OpenMpiAbi() override = default;

  // BackEndCallbacks
  MPI_Datatype callback_datatype(void* handle) const override { return from_be_datatype(handle); }
  MPI_Comm callback_comm(void* handle) const override { return from_be_comm(handle); }
  MPI_Win callback_win(void* handle) const override { return from_be_win(handle); }
  MPI_File callback_file(void* handle) const override { return from_be_file(handle); }
  int callback_errcode(int code) const override { return from_be_errcode(code); }
  int callback_to_be_errcode(int code) const override { return to_be_errcode(code); }
  int callback_keyval(int keyval) const override { return from_be_keyval(keyval); }
  void callback_to_be_status(const MPI_Status* status, void* be_status) const override;

  /** MPI_IN_PLACE has the same value in both ABIs. */
  template <class T>
  static T* to_be_buffer(T* buffer)
  {
    return buffer;
  }
  /** MPI_BOTTOM too (a null pointer). */
  template <class T>
  static T* to_be_bottom(T* buffer)
  {
    return buffer;
  }

  /** A function or object of the back end; throws std::runtime_error naming it when absent, unless optional. */
  void* symbol(const char* name, bool optional) const;
  /** What a call of a function this OpenMPI build lacks returns, after saying so. */
  int missing(const char* function) const;

  static bool be_ok(int result) { return result == kOmpiSuccess || result == kOmpiErrInStatus; }
  static be_status* be_status_ignore() { return nullptr; }
  static be_status* be_statuses_ignore() { return nullptr; }

  // Handles
  be_comm to_be_comm(MPI_Comm h) const { return to_be(h, MPI_COMM_NULL); }
  be_group to_be_group(MPI_Group h) const { return to_be(h, MPI_GROUP_NULL); }
  be_datatype to_be_datatype(MPI_Datatype h) const { return to_be(h, MPI_DATATYPE_NULL); }
  be_op to_be_op(MPI_Op h) const { return to_be(h, MPI_OP_NULL); }
  /** The operation of a reduction of `type`: MPI_MAXLOC and MPI_MINLOC of the Fortran pair types, which bxisim's
   *  OpenMPI lacks, are operations made for them (FortranPairReductions.hpp). */
  be_op to_be_reduction_op(MPI_Op h, MPI_Datatype type) const;
  be_request to_be_request(MPI_Request h) const { return to_be(h, MPI_REQUEST_NULL); }
  be_win to_be_win(MPI_Win h) const { return to_be(h, MPI_WIN_NULL); }
  be_info to_be_info(MPI_Info h) const { return to_be(h, MPI_INFO_NULL); }
  be_errhandler to_be_errhandler(MPI_Errhandler h) const { return to_be(h, MPI_ERRHANDLER_NULL); }
  be_message to_be_message(MPI_Message h) const { return to_be(h, MPI_MESSAGE_NULL); }
  be_file to_be_file(MPI_File h) const { return to_be(h, MPI_FILE_NULL); }
  MPI_Comm from_be_comm(be_comm h) const { return from_be<MPI_Comm>(h); }
  MPI_Group from_be_group(be_group h) const { return from_be<MPI_Group>(h); }
  MPI_Datatype from_be_datatype(be_datatype h) const { return from_be<MPI_Datatype>(h); }
  MPI_Op from_be_op(be_op h) const { return from_be<MPI_Op>(h); }
  MPI_Request from_be_request(be_request h) const { return from_be<MPI_Request>(h); }
  /** After a completion call: OpenMPI keeps nothing of bxisim's per request. */
  void request_ended(MPI_Request, be_request) {}
  MPI_Win from_be_win(be_win h) const { return from_be<MPI_Win>(h); }
  MPI_Info from_be_info(be_info h) const { return from_be<MPI_Info>(h); }
  MPI_Errhandler from_be_errhandler(be_errhandler h) const { return from_be<MPI_Errhandler>(h); }
  MPI_Message from_be_message(be_message h) const { return from_be<MPI_Message>(h); }
  MPI_File from_be_file(be_file h) const { return from_be<MPI_File>(h); }

  // Statuses
  be_status to_be_status(const MPI_Status* status) const;
  void from_be_status(const be_status& status, MPI_Status* out) const;

  // Integer values with special meanings
  static int to_be_rank(int rank);
  static int from_be_rank(int rank);
  static int to_be_tag(int tag) { return tag == MPI_ANY_TAG ? kOmpiAnyTag : tag; }
  static int from_be_tag(int tag) { return tag == kOmpiAnyTag ? MPI_ANY_TAG : tag; }
  static int to_be_color(int color) { return color; } // MPI_UNDEFINED is -32766 in both
  static int from_be_color(int color) { return color; }
  static int to_be_undef(int value) { return value; }
  static int from_be_undef(int value) { return value; }
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
  /** A file view's displacement: MPI_DISPLACEMENT_CURRENT differs between ABIs, other values are offsets. */
  static MPI_Offset to_be_file_disp(MPI_Offset disp);
  static MPI_Offset from_be_file_disp(MPI_Offset disp);
  static int to_be_order(int order);
  static int to_be_typeclass(int typeclass);
  static int to_be_distribute(int distribute);
  static int to_be_darg(int darg) { return darg == MPI_DISTRIBUTE_DFLT_DARG ? kOmpiDistributeDfltDarg : darg; }
  static int from_be_combiner(int combiner);
  static int to_be_keyval(int keyval);
  static int from_be_keyval(int keyval);
  static int to_be_errcode(int code);
  static int from_be_errcode(int code);
  /** The value of a predefined attribute (a pointer to the back end's int) as bxisim's ABI has it: ranks
   *  (MPI_HOST, MPI_IO) and the last error code (MPI_LASTUSEDCODE) converted, others as they are. */
  const void* from_be_predefined_attribute(int keyval, const void* value);
  static int from_be_win_flavor(int flavor);
  static int from_be_win_model(int model);

  static const int* to_be_weights_in(const int* weights);
  static int* to_be_weights_out(int* weights) { return const_cast<int*>(to_be_weights_in(weights)); }

  // Callbacks: the back end calls a trampoline, which calls the program's function with bxisim's handles.
  void* to_be_user_function(MPI_User_function* function) const;
  void* to_be_comm_errhandler_function(MPI_Comm_errhandler_function* function) const;
  void* to_be_win_errhandler_function(MPI_Win_errhandler_function* function) const;
  void* to_be_file_errhandler_function(MPI_File_errhandler_function* function) const;

  // Array lengths that depend on a communicator (Alltoallw, Neighbor_alltoallw)
  int peer_count(MPI_Comm comm) const;
  int in_degree(MPI_Comm comm) const;
  int out_degree(MPI_Comm comm) const;

  static constexpr int kOmpiSuccess            = 0;
  static constexpr int kOmpiErrInStatus        = 18;
  static constexpr int kOmpiAnySource          = -1;
  static constexpr int kOmpiProcNull           = -2;
  static constexpr int kOmpiRoot               = -4;
  static constexpr int kOmpiAnyTag             = -1;
  static constexpr int kOmpiKeyvalInvalid      = -1;
  static constexpr int kUserKeyvalOffset       = 1000; // above the standard ABI's predefined keys (501-606)
  static constexpr int kOmpiDistributeDfltDarg = -1;
  static constexpr int kOmpiErrLastcode        = 92;

 private:
  static constexpr uintptr_t kPredefinedLimit = 0x400;

  void resolve_predefined();
  void predefined(uintptr_t abi, const char* object);
  void alias(uintptr_t abi, uintptr_t same_as);

  template <class H>
  void* to_be(H handle, H null_handle) const
  {
    auto value = reinterpret_cast<uintptr_t>(handle);
    if (value >= kPredefinedLimit)
      return reinterpret_cast<void*>(value);
    void* object = predefined_[value];
    return object != nullptr ? object : predefined_[reinterpret_cast<uintptr_t>(null_handle)];
  }
  template <class H>
  H from_be(void* object) const
  {
    auto it = abi_of_.find(object);
    return reinterpret_cast<H>(it != abi_of_.end() ? it->second : reinterpret_cast<uintptr_t>(object));
  }

  std::function<void*(const char*)> resolve_;
  std::array<void*, kPredefinedLimit> predefined_{};
  std::unordered_map<const void*, uintptr_t> abi_of_;

  // Functions of the copy the conversions themselves need.
  int (*comm_test_inter_)(void*, int*)                        = nullptr;
  int (*comm_size_)(void*, int*)                              = nullptr;
  int (*comm_remote_size_)(void*, int*)                       = nullptr;
  int (*topo_test_)(void*, int*)                              = nullptr;
  int (*dist_graph_neighbors_count_)(void*, int*, int*, int*) = nullptr;
  int (*graph_neighbors_count_)(void*, int, int*)             = nullptr;
  int (*cartdim_get_)(void*, int*)                            = nullptr;
  int (*comm_rank_)(void*, int*)                              = nullptr;
  int (*op_create_)(void*, int, void**)                       = nullptr;
  mutable std::array<be_op, 4> fortran_pair_ops_{}; // made at their first reduction: after MPI_Init

 public:
  // The back end's own attribute callbacks, for MPI_COMM_NULL_COPY_FN and friends.
  void* ompi_comm_null_copy_fn   = nullptr;
  void* ompi_comm_dup_fn         = nullptr;
  void* ompi_comm_null_delete_fn = nullptr;
  void* ompi_type_null_copy_fn   = nullptr;
  void* ompi_type_dup_fn         = nullptr;
  void* ompi_type_null_delete_fn = nullptr;
  void* ompi_win_null_copy_fn    = nullptr;
  void* ompi_win_dup_fn          = nullptr;
  void* ompi_win_null_delete_fn  = nullptr;
  /** Attribute values converted to bxisim's constants (MPI_WIN_CREATE_FLAVOR, MPI_WIN_MODEL), kept for the program. */
  std::deque<int> converted_attributes;
  /** Converted values of predefined communicator attributes, one per key (from_be_predefined_attribute). */
  std::map<int, int> predefined_attribute_values_;
  /** MPI_Type_get_name of predefined datatypes, the same at every level. */
  PredefinedNames predefined_names_;
};

} // namespace bxisim::mw
