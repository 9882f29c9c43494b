/* The Portals 4 semantics: every Portals object of every simulated process, and the rules that act on
 * them. The C API (portals/api/) calls the first half on behalf of the current process; NIC models call
 * the second half (see NicModel.hpp) to carry out operations. Not thread-safe: SimGrid runs one actor at
 * a time, and so must any other caller. */
#ifndef BXISIM_PORTALS_CORE_HPP
#define BXISIM_PORTALS_CORE_HPP

#include "portals/core/CountingEvent.hpp"
#include "portals/core/EventQueue.hpp"
#include "portals/core/Handles.hpp"
#include "portals/core/MemoryDescriptor.hpp"
#include "portals/core/NetworkInterface.hpp"
#include "portals/core/NicModel.hpp"
#include "portals/core/ProcessContext.hpp"

#include <array>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace bxisim::portals
{

/* A data movement operation as the initiator describes it (PtlPut ... PtlSwap). */
struct OperationRequest {
  OpKind kind                 = OpKind::put;
  ptl_handle_md_t put_md      = PTL_INVALID_HANDLE; // source of the payload (Put, Atomic, FetchAtomic, Swap)
  ptl_handle_md_t get_md      = PTL_INVALID_HANDLE; // destination of the reply (Get, FetchAtomic, Swap)
  ptl_size_t local_put_offset = 0;
  ptl_size_t local_get_offset = 0;
  ptl_size_t length           = 0;
  ptl_ack_req_t ack_req       = PTL_NO_ACK_REQ;
  ptl_process_t target{};
  ptl_pt_index_t pt_index     = 0;
  ptl_match_bits_t match_bits = 0;
  ptl_size_t remote_offset    = 0;
  void* user_ptr              = nullptr;
  ptl_hdr_data_t hdr_data     = 0;
  const void* operand         = nullptr;
  ptl_op_t atomic_op          = 0;
  ptl_datatype_t atomic_type  = 0;
};

/* The visible part of an ME or LE, whichever was given. */
struct EntrySpec {
  bool is_me         = true;
  void* start        = nullptr;
  ptl_size_t length  = 0;
  ptl_handle_ct_t ct = PTL_CT_NONE;
  ptl_uid_t uid      = PTL_UID_ANY;
  unsigned options   = 0;
  ptl_process_t match_id{};
  ptl_match_bits_t match_bits  = 0;
  ptl_match_bits_t ignore_bits = 0;
  ptl_size_t min_free          = 0;
};
EntrySpec to_spec(const ptl_me_t& me);
EntrySpec to_spec(const ptl_le_t& le);

/* The NI limits bxisim offers (what PtlNIInit returns without `desired`). */
ptl_ni_limits_t default_limits();

/* See Core::set_call_edges. */
struct CoreCallEdges {
  void (*enter)() = nullptr;
  void (*leave)() = nullptr;
};

class Core
{
 public:
  static Core& instance();

  /* Installs the function that tells which simulated process is calling. Without one, every call runs as
   * process 0 on node 0, pid 0, without a NIC model (enough for object management, not for data). */
  void set_context_provider(ContextProvider provider) { provider_ = std::move(provider); }
  /* Installs what every API call opens first and closes on return: the runtime ends the calling rank's
   * CPU burst there and marks the code that runs as the simulator's (see runtime/os/SimulatorCall.hpp). */
  /* The scope is told which API function is called and, for the blocking ones, how to describe their
   * arguments (the runtime names them in its deadlock report). Both must outlive the scope returned
   * (the runtime keeps pointers to them, not copies): a string literal, and the caller's own object. */
  using CallArguments = std::function<std::string()>;
  using CallScope     = std::function<std::shared_ptr<void>(const char* function, const CallArguments& arguments)>;
  void set_call_scope(CallScope scope) { call_scope_ = std::move(scope); }
  std::shared_ptr<void> open_call_scope(const char* function, const CallArguments& arguments = {}) const
  {
    return call_scope_ ? call_scope_(function, arguments) : nullptr;
  }
  /* Called first and last by every API entry point (guarded(), api/Guard.hpp), around the call scope:
   * plain functions, so that nothing of the simulator runs before the first nor after the last. The
   * runtime ends the calling rank's CPU burst at `enter` and starts the next at `leave`, so that the
   * entry point's own code is the simulator's, not the rank's computation. */
  using CallEdges = CoreCallEdges;
  static void set_call_edges(CallEdges edges) { call_edges_ = edges; }
  static const CallEdges& call_edges() { return call_edges_; }
  /* Polling: whether an empty poll of process `id` may block it until its next Portals event (the
   * runtime's word: true only where nothing but Portals can make the process progress, e.g. inside a
   * blocking MPI wait over OpenMPI's Portals components). Without a rule, an empty poll always lets the
   * model charge its growing delay. See poll_found_nothing. */
  using PollBlockingRule = std::function<bool(uint32_t id)>;
  void set_poll_blocking(PollBlockingRule rule) { poll_blocking_ = std::move(rule); }
  /* What to tell the user, once per run, when a message that asked for an acknowledgement is dropped (the runtime's
   * word: a library known to take such a NACK for success, whose program then waits for ever); empty: nothing, the
   * initiator hears of it through its PTL_EVENT_ACK's ni_fail_type, as the specification says. */
  void set_acknowledged_drop_advice(std::string advice) { acknowledged_drop_advice_ = std::move(advice); }
  /* Process `id` acted outside Portals since its last poll (the runtime's word: it entered a new MPI call,
   * which may have started work that progresses without Portals, e.g. a 1-rank MPI_Ialltoall): a change,
   * so its sources count their quiet polls from zero again. Called by the rule, before the count. */
  void program_acted(uint32_t id);
  /* Another thread of process `id` acted outside Portals (the runtime's word: it left an MPI call, or began to wait
   * for a condition variable or a mutex, while other threads of the rank were inside MPI calls): what it did may end
   * their wait, or need their progress, without a Portals event (a generalized request completed, a message to
   * itself, a communicator of MPI_COMM_SELF whose request their progress loop must carry on), so a poll blocked
   * until the next change returns and looks again. */
  void wake_process(uint32_t id);
  /* Whether something already under way can still write a process's memory or wake a process: an operation
   * submitted and not finished, or a process in a Portals wait or poll sleep that ends at a set time. The
   * runtime asks before it lets simulated time pass for a rank preempted in its own code (runtime/os/Preemption). */
  bool activity_under_way() const { return !unfinished_.empty() || timed_waits_ > 0; }
  /** How many changes process `id` has seen so far (0 for an unknown process): a count that stands still while
   *  nothing happens to it. */
  uint64_t changes_of(uint32_t id);
  /* Forgets every object and process (tests). */
  void reset();

  /* Handles as programs see them. Inside, a handle names one object of the whole simulation; each
   * process sees its own numbering, from 0 like a process of a real Portals implementation (the
   * reference implementation's tests build PMI keys from their NI handle and expect every process to
   * have the same one). The C API translates every handle it takes (global_handle) and returns
   * (local_handle), for the calling process; PTL_INVALID_HANDLE, PTL_EQ_NONE and PTL_CT_NONE pass. */
  ptl_handle_any_t global_handle(ptl_handle_any_t local);
  ptl_handle_any_t local_handle(ptl_handle_any_t global);

  // ---- The API, on behalf of the current process ----
  int init();
  void fini();
  /* PtlAbort: the calling process's waiting and polling calls return PTL_ABORTED from now on, until its
   * next first PtlInit. */
  void abort();
  int atomic_sync();
  /* The runtime's word that process `id` has ended (returned from main, exited): its NIs are destroyed
   * as by PtlFini, and requests whose payload is still in its memory are dropped. */
  void end_process(uint32_t id);
  int ni_init(ptl_interface_t iface, unsigned options, ptl_pid_t pid, const ptl_ni_limits_t* desired,
              ptl_ni_limits_t* actual, ptl_handle_ni_t* handle);
  int ni_fini(ptl_handle_ni_t ni);
  int ni_status(ptl_handle_ni_t ni, ptl_sr_index_t reg, ptl_sr_value_t* status);
  int ni_handle(ptl_handle_any_t handle, ptl_handle_ni_t* ni);
  int set_map(ptl_handle_ni_t ni, ptl_size_t size, const ptl_process_t* mapping);
  int get_map(ptl_handle_ni_t ni, ptl_size_t size, ptl_process_t* mapping, ptl_size_t* actual_size);
  int get_uid(ptl_handle_ni_t ni, ptl_uid_t* uid);
  int get_id(ptl_handle_ni_t ni, ptl_process_t* id);
  int get_phys_id(ptl_handle_ni_t ni, ptl_process_t* id);
  int bundle(ptl_handle_ni_t ni);

  int pt_alloc(ptl_handle_ni_t ni, unsigned options, ptl_handle_eq_t eq, ptl_pt_index_t req, ptl_pt_index_t* index);
  int pt_free(ptl_handle_ni_t ni, ptl_pt_index_t index);
  int pt_enable(ptl_handle_ni_t ni, ptl_pt_index_t index, bool enable);

  int md_bind(ptl_handle_ni_t ni, const ptl_md_t* md, ptl_handle_md_t* handle);
  int md_release(ptl_handle_md_t md);

  int eq_alloc(ptl_handle_ni_t ni, ptl_size_t count, ptl_handle_eq_t* handle);
  int eq_free(ptl_handle_eq_t eq);
  int eq_get(ptl_handle_eq_t eq, ptl_event_t* ev);
  int eq_wait(ptl_handle_eq_t eq, ptl_event_t* ev);
  int eq_poll(const ptl_handle_eq_t* eqs, unsigned size, ptl_time_t timeout, ptl_event_t* ev, unsigned* which);

  int ct_alloc(ptl_handle_ni_t ni, ptl_handle_ct_t* handle);
  int ct_free(ptl_handle_ct_t ct);
  int ct_cancel_triggered(ptl_handle_ct_t ct);
  int ct_get(ptl_handle_ct_t ct, ptl_ct_event_t* ev);
  int ct_wait(ptl_handle_ct_t ct, ptl_size_t test, ptl_ct_event_t* ev);
  int ct_poll(const ptl_handle_ct_t* cts, const ptl_size_t* tests, unsigned size, ptl_time_t timeout,
              ptl_ct_event_t* ev, unsigned* which);
  int ct_set(ptl_handle_ct_t ct, ptl_ct_event_t value);
  int ct_inc(ptl_handle_ct_t ct, ptl_ct_event_t inc);

  int append(ptl_handle_ni_t ni, ptl_pt_index_t pt, const EntrySpec& spec, ptl_list_t list, void* user_ptr,
             ptl_handle_any_t* handle);
  int unlink(ptl_handle_any_t entry, bool is_me);
  /* PtlTriggeredMEAppend/LEAppend: the handle is returned at once, the entry is appended (consuming
   * unexpected headers, posting its LINK event) when `trig_ct` reaches `threshold`. */
  int triggered_append(ptl_handle_ni_t ni, ptl_pt_index_t pt, const EntrySpec& spec, ptl_list_t list, void* user_ptr,
                       ptl_handle_any_t* handle, ptl_handle_ct_t trig_ct, ptl_size_t threshold);
  /* PtlTriggeredMEUnlink/LEUnlink: the entry is unlinked (as by PtlMEUnlink) when `trig_ct` reaches `threshold`. */
  int triggered_unlink(ptl_handle_any_t entry, bool is_me, ptl_handle_ct_t trig_ct, ptl_size_t threshold);
  int search(ptl_handle_ni_t ni, ptl_pt_index_t pt, const EntrySpec& spec, ptl_search_op_t op, void* user_ptr);

  int issue(const OperationRequest& req);
  int issue_triggered(const OperationRequest& req, ptl_handle_ct_t trig_ct, ptl_size_t threshold);
  int triggered_ct(ptl_handle_ct_t ct, ptl_ct_event_t value, bool increment, ptl_handle_ct_t trig_ct,
                   ptl_size_t threshold);

  // ---- Called by NIC models (NicModel.hpp) ----
  void deliver_request(Message& msg);
  void drop_request(Message& msg);
  void complete_send(Message& msg);
  void complete_response(Message& msg);

  // ---- Introspection (tests, traces) ----
  /* For tests, with the calling process's handle (as the API returned it). */
  const NetworkInterface* find_ni(ptl_handle_ni_t h) { return nis_.find(global_handle(h)); }
  /* Whether an operation from this MD (the calling process's handle) names its target by rank: its NI is logical. */
  bool targets_ranks(ptl_handle_md_t md_handle);
  size_t unexpected_count(ptl_handle_ni_t ni, ptl_pt_index_t pt);

 private:
  struct ProcessState {
    ProcessContext ctx;
    int init_count    = 0;
    bool aborted      = false; // PtlAbort was called
    bool pid_assigned = false;
    ptl_pid_t pid     = 0;
    std::map<std::pair<ptl_interface_t, unsigned>, ptl_handle_ni_t> nis; // (iface, ni_kind_index)
    // Polling (poll_found_nothing): changes so far (every notify, every event taken, every operation the
    // process started), and for each polled source (an EQ, a set of EQs or CTs) how long it has been quiet.
    struct Quiet {
      uint64_t since = 0; // `changes` when the source was first found empty with nothing changed since
      unsigned polls = 0; // empty polls of the source since then
    };
    uint64_t changes = 0;
    std::unordered_map<uint64_t, Quiet> empty_since;
    // The process's own numbering of its handles (global_handle, local_handle), per handle kind.
    struct LocalSlot {
      ptl_handle_any_t global = PTL_INVALID_HANDLE;
      uint32_t generation     = 0;
    };
    std::array<std::vector<LocalSlot>, 8> local_slots;
    std::array<std::vector<uint32_t>, 8> free_local_slots;
  };

  Core();
  ProcessState& current();
  ProcessState* process(uint32_t id);
  NetworkInterface* owned_ni(ptl_handle_ni_t h, const ProcessState& ps);
  template <typename T>
  T* owned(const HandleTable<T>& table, ptl_handle_any_t h, const ProcessState& ps);
  bool valid_eq_or_none(ptl_handle_eq_t eq, const NetworkInterface& ni);
  bool valid_ct_or_none(ptl_handle_ct_t ct, const NetworkInterface& ni);
  /* `memory_valid`: the program still owns its memory (PtlNIFini, PtlFini), so payloads the NIC has not
   * read yet are copied now and those operations complete; otherwise (the rank ended) they are copied
   * only where its memory is still mapped, and dropped where it is not. */
  void destroy_ni(NetworkInterface& ni, bool memory_valid = true);

  // Polling (Waiting.cpp): a poll of `source` by `ps` found nothing; `blockable`: a poll whose caller
  // checks again after it returns (not PtlCTGet, whose caller judges the value it got).
  void poll_found_nothing(ProcessState& ps, uint64_t source, bool blockable);
  bool holds_events(const ProcessState& ps);
  void took_event(ProcessState& ps, const ptl_event_t& ev);

  // Initiator side (Initiator.cpp)
  int validate(const OperationRequest& req, const ProcessState& ps, ptl_handle_ni_t* ni_out);
  int start(const OperationRequest& req, ProcessState& ps, bool triggered = false);
  void finish_if_done(Message& msg);
  friend struct Message;
  void untrack(Message& msg);
  /* Whether the ack of `msg` is recorded by its put MD (its EQ for a full ack, its CT with PTL_MD_EVENT_CT_ACK). */
  bool ack_reaches_put_md(const Message& msg);
  void release_mds(Message& msg, bool put, bool get);

  // Target side (Target.cpp, MatchList.cpp, FlowControl.cpp)
  void fail(Message& msg, ptl_ni_fail_t type);
  void disable_for_flow_control(NetworkInterface& ni, ptl_pt_index_t index, const Message& msg);
  ListEntryPtr find_match(NetworkInterface& ni, PortalTableEntry& pte, const Message& msg, const struct Initiator& who,
                          ptl_list_t* where);
  void unlink_entry(NetworkInterface& ni, const ListEntryPtr& e, bool auto_unlink);
  int check_append(const ProcessState& ps, ptl_handle_ni_t h, ptl_pt_index_t pt, const EntrySpec& spec, ptl_list_t list,
                   ptl_handle_any_t* handle, NetworkInterface** ni_out);
  ListEntryPtr create_entry(NetworkInterface& ni, ptl_pt_index_t pt, const EntrySpec& spec, ptl_list_t list,
                            void* user_ptr);
  void link_entry(NetworkInterface& ni, const ListEntryPtr& e);
  void consume_header(NetworkInterface& ni, PortalTableEntry& pte, std::list<UnexpectedHeader>::iterator it,
                      ListEntry& consumer);
  void release_header_reference(NetworkInterface& ni, const ListEntryPtr& overflow_entry);

  // Events and counters (Events.cpp)
  void post_event(ptl_handle_eq_t eq, const ptl_event_t& ev);
  void post_target_event(const NetworkInterface& ni, const ListEntry& e, const ptl_event_t& ev);
  /* `md` by value: posting the event before may have let the program release it. `operations_only`: an operation
   * completed acknowledgment counts 1 even where the MD counts bytes. */
  void count_initiator(MemoryDescriptor md, unsigned ct_option, ptl_size_t bytes, ptl_ni_fail_t fail,
                       bool operations_only = false);
  void ct_changed(ptl_handle_ct_t ct);
  void drain_ct_work();
  /* Registers `action` on counter `trig` (of `ni`) at `threshold`, once `ps` has posted the registration's command
   * to its NIC as any command (Message::command_only: it may wait for a command queue slot). */
  void post_triggered(ProcessState& ps, NetworkInterface& ni, ptl_handle_ct_t trig, ptl_size_t threshold,
                      std::function<void()> action);
  /* While alive, counter changes are queued (their triggered operations fire when it goes), so that a
   * loop over a list is not changed under it by a triggered operation. */
  class CtDeferral
  {
   public:
    explicit CtDeferral(Core& core) : core_(core), outer_(core.draining_cts_) { core.draining_cts_ = true; }
    ~CtDeferral()
    {
      if (!outer_)
        core_.drain_ct_work();
    }
    CtDeferral(const CtDeferral&)            = delete;
    CtDeferral& operator=(const CtDeferral&) = delete;

   private:
    Core& core_;
    bool outer_;
  };
  void notify(uint32_t process);
  /* While alive, notify() only records whom to wake; they are woken when it goes. Waking a process is a
   * SimGrid simcall after which that process may run at once: a NIC model's call into Core must not
   * let a program see its state half updated. */
  class NotifyBatch
  {
   public:
    explicit NotifyBatch(Core& core) : core_(core), outer_(!core.batching_notify_) { core.batching_notify_ = true; }
    ~NotifyBatch();
    NotifyBatch(const NotifyBatch&)            = delete;
    NotifyBatch& operator=(const NotifyBatch&) = delete;

   private:
    Core& core_;
    bool outer_;
  };

  // Waiting (Waiting.cpp)
  WaitStatus wait_for(ProcessState& ps, double deadline);

  ContextProvider provider_;
  CallScope call_scope_;
  inline static CallEdges call_edges_;
  std::unordered_map<uint32_t, ProcessState> processes_;
  PollBlockingRule poll_blocking_;
  std::string acknowledged_drop_advice_; // set_acknowledged_drop_advice
  bool told_of_acknowledged_drop_ = false;
  std::unordered_map<uint64_t, uint32_t> process_by_address_; // phys_key -> ProcessContext::id
  HandleTable<NetworkInterface> nis_{HandleKind::ni};
  HandleTable<EventQueue> eqs_{HandleKind::eq};
  HandleTable<CountingEvent> cts_{HandleKind::ct};
  HandleTable<MemoryDescriptor> mds_{HandleKind::md};
  HandleTable<ListEntry> mes_{HandleKind::me};
  HandleTable<ListEntry> les_{HandleKind::le};
  struct LocalName {
    uint32_t process; // ProcessContext::id of the owner
    uint32_t index;   // in its local_slots of the handle's kind
  };
  std::unordered_map<ptl_handle_any_t, LocalName> local_names_; // global handle -> its owner's number
  void forget_local_name(ptl_handle_any_t global);
  uint64_t next_message_id_ = 1;
  std::unordered_map<uint64_t, Message*> unfinished_; // submitted, not finished, not destroyed: by id
  unsigned timed_waits_ = 0;                          // processes in a wait or poll sleep with an end date
  std::deque<ptl_handle_ct_t> ct_work_;
  bool draining_cts_    = false;
  bool batching_notify_ = false;
  std::vector<uint32_t> pending_notify_;
};

} // namespace bxisim::portals

#endif
