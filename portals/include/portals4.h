/* bxisim's Portals 4 API.
 *
 * Names, types and constant values follow the Portals 4.x specification (Sandia report SAND2017-3825
 * and its predecessors) and the values of the Sandia reference implementation's header, so that programs
 * written for Portals 4, OpenMPI 4.1.4's portals4 components included, build against it unchanged.
 * The implementation is bxisim's simulated BXI NIC (library bxisim_portals); see portals/README.md.
 *
 * Valid C99 and C++. */
#ifndef BXISIM_PORTALS4_H
#define BXISIM_PORTALS4_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Return codes ---------------------------------------------------------------------------------- */
enum ptl_retvals {
  PTL_OK = 0,          /* success */
  PTL_ARG_INVALID,     /* an argument (a handle, an index, a size...) is invalid */
  PTL_CT_NONE_REACHED, /* PtlCTPoll timed out */
  PTL_EQ_DROPPED,      /* an event is returned, and at least one event before it was dropped */
  PTL_EQ_EMPTY,        /* no event available (PtlEQGet) or timeout (PtlEQPoll) */
  PTL_FAIL,            /* unspecified failure */
  PTL_IGNORED,         /* PtlSetMap: a map was already set, the new one is ignored */
  PTL_IN_USE,          /* the resource is still in use */
  PTL_INTERRUPTED,     /* a wait was interrupted (the NI was finalized, or the simulation deadlocked) */
  PTL_LIST_TOO_LONG,   /* a list would exceed max_list_size */
  PTL_NO_INIT,         /* PtlInit has not been called */
  PTL_NO_SPACE,        /* not enough resources (a limit of ptl_ni_limits_t is reached) */
  PTL_PID_IN_USE,      /* the requested pid is used by another process */
  PTL_PT_FULL,         /* no free portal table entry */
  PTL_PT_EQ_NEEDED,    /* PTL_PT_FLOWCTRL needs an event queue */
  PTL_PT_IN_USE,       /* the portal table entry is busy */
  PTL_ABORTED          /* the operation was aborted */
};
#define PTL_STATUS_LAST (PTL_ABORTED + 1)

/* ---- Base types ------------------------------------------------------------------------------------ */
typedef uint64_t ptl_size_t;
typedef uint32_t ptl_pt_index_t;
typedef uint64_t ptl_match_bits_t;
typedef uint64_t ptl_hdr_data_t;
typedef unsigned int ptl_time_t; /* milliseconds */
typedef unsigned int ptl_interface_t;
typedef uint32_t ptl_nid_t;
typedef uint32_t ptl_pid_t;
typedef uint32_t ptl_rank_t;
typedef uint32_t ptl_uid_t;
typedef uint32_t ptl_jid_t;

typedef enum { PTL_SR_DROP_COUNT, PTL_SR_PERMISSION_VIOLATIONS, PTL_SR_OPERATION_VIOLATIONS } ptl_sr_index_t;
#define PTL_SR_PERMISSIONS_VIOLATIONS PTL_SR_PERMISSION_VIOLATIONS /* spelling of Portals 4.0 */
#define PTL_SR_OPERATIONS_VIOLATIONS PTL_SR_OPERATION_VIOLATIONS   /* spelling of the reference implementation */
#define PTL_SR_LAST (PTL_SR_OPERATION_VIOLATIONS + 1)
typedef int ptl_sr_value_t;

/* Handles are 32-bit values; bxisim encodes the object kind, a table index and a generation in them,
 * so a stale or forged handle is detected (PTL_ARG_INVALID) instead of reaching freed memory. */
typedef uint32_t ptl_handle_any_t;
typedef ptl_handle_any_t ptl_handle_ni_t;
typedef ptl_handle_any_t ptl_handle_eq_t;
typedef ptl_handle_any_t ptl_handle_ct_t;
typedef ptl_handle_any_t ptl_handle_md_t;
typedef ptl_handle_any_t ptl_handle_le_t;
typedef ptl_handle_any_t ptl_handle_me_t;

typedef union {
  ptl_rank_t rank; /* logical addressing (PTL_NI_LOGICAL) */
  struct {
    ptl_nid_t nid; /* bxisim: the node index */
    ptl_pid_t pid; /* bxisim: the local rank on the node when the NI was created with PTL_PID_ANY */
  } phys;          /* physical addressing (PTL_NI_PHYSICAL) */
} ptl_process_t;

typedef struct {
  void* start;
  ptl_size_t length;
  unsigned int options; /* PTL_MD_* */
  ptl_handle_eq_t eq_handle;
  ptl_handle_ct_t ct_handle;
} ptl_md_t;

typedef struct {
  void* iov_base;
  ptl_size_t iov_len;
} ptl_iovec_t;

typedef struct {
  void* start;
  ptl_size_t length;
  ptl_handle_ct_t ct_handle;
  ptl_uid_t uid;
  unsigned int options; /* PTL_LE_* */
} ptl_le_t;

typedef struct {
  void* start;
  ptl_size_t length;
  ptl_handle_ct_t ct_handle;
  ptl_uid_t uid;
  unsigned int options; /* PTL_ME_* */
  ptl_process_t match_id;
  ptl_match_bits_t match_bits;
  ptl_match_bits_t ignore_bits;
  ptl_size_t min_free;
} ptl_me_t;

/* ---- Constants ------------------------------------------------------------------------------------- */
#define PTL_IOVEC (1) /* start is an array of ptl_iovec_t, length its number of elements */

#define PTL_EQ_NONE ((ptl_handle_eq_t)0x3fffffff)
#define PTL_CT_NONE ((ptl_handle_ct_t)0x5fffffff)
#define PTL_INVALID_HANDLE ((ptl_handle_any_t)0xffffffff)
#define PTL_IFACE_DEFAULT ((ptl_interface_t)0xffffffff)
#define PTL_PID_ANY ((ptl_pid_t)0xffff)
#define PTL_PID_MAX ((ptl_pid_t)1024)
#define PTL_NID_ANY ((ptl_nid_t)0xffff)
#define PTL_UID_ANY ((ptl_uid_t)0xffffffff)
#define PTL_JID_ANY ((ptl_jid_t)0xffffffff)
#define PTL_JID_NONE ((ptl_jid_t)0)
#define PTL_PT_ANY ((ptl_pt_index_t)0xffffffff)
#define PTL_RANK_ANY ((ptl_rank_t)0xffffffff)
#define PTL_TIME_FOREVER ((ptl_time_t)0xffffffff)
#define PTL_SIZE_MAX ((ptl_size_t)0xffffffffffffffffULL)

/* ---- Initialization and network interfaces --------------------------------------------------------- */
int PtlInit(void);
void PtlFini(void);
/* Portals 4.3: the calling process's waiting and polling calls (PtlEQWait, PtlEQPoll, PtlCTWait,
 * PtlCTPoll) return PTL_ABORTED from now on. */
void PtlAbort(void);

#define PTL_NI_MATCHING 0x1
#define PTL_NI_NO_MATCHING 0x2
#define PTL_NI_LOGICAL 0x4
#define PTL_NI_PHYSICAL 0x8
#define PTL_NI_INIT_OPTIONS_MASK 0xf

typedef unsigned char ptl_ni_fail_t;
#define PTL_NI_OK 0
#define PTL_NI_UNDELIVERABLE 1
#define PTL_NI_DROPPED 2
#define PTL_NI_PT_DISABLED 3
#define PTL_NI_PERM_VIOLATION 4
#define PTL_NI_OP_VIOLATION 5
#define PTL_NI_NO_MATCH 6
#define PTL_NI_SEGV 7

#define PTL_TARGET_BIND_INACCESSIBLE 0x1
#define PTL_TOTAL_DATA_ORDERING 0x2
#define PTL_COHERENT_ATOMICS 0x4

typedef struct {
  int max_entries;
  int max_unexpected_headers;
  int max_mds;
  int max_cts;
  int max_eqs;
  int max_pt_index;
  int max_iovecs;
  int max_list_size;
  int max_triggered_ops;
  ptl_size_t max_msg_size;
  ptl_size_t max_atomic_size;
  ptl_size_t max_fetch_atomic_size;
  ptl_size_t max_waw_ordered_size;
  ptl_size_t max_war_ordered_size;
  ptl_size_t max_volatile_size;
  unsigned int features;
} ptl_ni_limits_t;

int PtlNIInit(ptl_interface_t iface, unsigned int options, ptl_pid_t pid, const ptl_ni_limits_t* desired,
              ptl_ni_limits_t* actual, ptl_handle_ni_t* ni_handle);
int PtlNIFini(ptl_handle_ni_t ni_handle);
int PtlNIStatus(ptl_handle_ni_t ni_handle, ptl_sr_index_t status_register, ptl_sr_value_t* status);
int PtlNIHandle(ptl_handle_any_t handle, ptl_handle_ni_t* ni_handle);
int PtlSetMap(ptl_handle_ni_t ni_handle, ptl_size_t map_size, const ptl_process_t* mapping);
int PtlGetMap(ptl_handle_ni_t ni_handle, ptl_size_t map_size, ptl_process_t* mapping, ptl_size_t* actual_map_size);
int PtlGetUid(ptl_handle_ni_t ni_handle, ptl_uid_t* uid);
int PtlGetId(ptl_handle_ni_t ni_handle, ptl_process_t* id);
int PtlGetPhysId(ptl_handle_ni_t ni_handle, ptl_process_t* id);
int PtlHandleIsEqual(ptl_handle_any_t handle1, ptl_handle_any_t handle2);

/* ---- Portal table ---------------------------------------------------------------------------------- */
#define PTL_PT_ONLY_USE_ONCE 0x1
#define PTL_PT_FLOWCTRL 0x2
#define PTL_PT_ONLY_TRUNCATE 0x4
#define PTL_PT_MATCH_UNORDERED 0x8
#define PTL_PT_ALLOC_DISABLED 0x10
#define PTL_PT_ALLOC_OPTIONS_MASK 0x1f

int PtlPTAlloc(ptl_handle_ni_t ni_handle, unsigned int options, ptl_handle_eq_t eq_handle, ptl_pt_index_t pt_index_req,
               ptl_pt_index_t* pt_index);
int PtlPTFree(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index);
int PtlPTDisable(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index);
int PtlPTEnable(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index);

/* ---- Memory descriptors ---------------------------------------------------------------------------- */
#define PTL_MD_EVENT_CT_SEND 0x2
#define PTL_MD_EVENT_CT_REPLY 0x4
#define PTL_MD_EVENT_CT_ACK 0x8
#define PTL_MD_UNORDERED 0x10
#define PTL_MD_EVENT_SUCCESS_DISABLE 0x20
#define PTL_MD_VOLATILE 0x40
#define PTL_MD_EVENT_SEND_DISABLE 0x80
#define PTL_MD_UNRELIABLE 0x100
#define PTL_MD_EVENT_CT_BYTES 0x8000 /* same bit as PTL_ME_EVENT_CT_BYTES */
#define PTL_MD_OPTIONS_MASK (0x1ff | PTL_MD_EVENT_CT_BYTES)

int PtlMDBind(ptl_handle_ni_t ni_handle, const ptl_md_t* md, ptl_handle_md_t* md_handle);
int PtlMDRelease(ptl_handle_md_t md_handle);

/* ---- List entries and match list entries ----------------------------------------------------------- */
typedef unsigned char ptl_list_t;
#define PTL_PRIORITY_LIST 0
#define PTL_OVERFLOW_LIST 1

typedef unsigned char ptl_search_op_t;
#define PTL_SEARCH_ONLY 0
#define PTL_SEARCH_DELETE 1

/* Options of MEs; bit 0 is PTL_IOVEC. */
#define PTL_ME_OP_PUT 0x2
#define PTL_ME_OP_GET 0x4
#define PTL_ME_USE_ONCE 0x8
#define PTL_ME_ACK_DISABLE 0x10
#define PTL_ME_UNEXPECTED_HDR_DISABLE 0x20
#define PTL_ME_IS_ACCESSIBLE 0x40
#define PTL_ME_EVENT_LINK_DISABLE 0x80
#define PTL_ME_EVENT_COMM_DISABLE 0x100
#define PTL_ME_EVENT_FLOWCTRL_DISABLE 0x200
#define PTL_ME_EVENT_SUCCESS_DISABLE 0x400
#define PTL_ME_EVENT_OVER_DISABLE 0x800
#define PTL_ME_EVENT_UNLINK_DISABLE 0x1000
#define PTL_ME_EVENT_CT_COMM 0x2000
#define PTL_ME_EVENT_CT_OVERFLOW 0x4000
#define PTL_ME_EVENT_CT_BYTES 0x8000
#define PTL_ME_MANAGE_LOCAL 0x10000
#define PTL_ME_NO_TRUNCATE 0x20000
#define PTL_ME_MAY_ALIGN 0x40000
#define PTL_ME_LOCAL_INC_UH_RLENGTH 0x80000
#define PTL_ME_APPEND_OPTIONS_MASK 0xfffff

/* Options of LEs: the subset of the ME options that does not involve matching or local offsets. */
#define PTL_LE_OP_PUT PTL_ME_OP_PUT
#define PTL_LE_OP_GET PTL_ME_OP_GET
#define PTL_LE_USE_ONCE PTL_ME_USE_ONCE
#define PTL_LE_ACK_DISABLE PTL_ME_ACK_DISABLE
#define PTL_LE_UNEXPECTED_HDR_DISABLE PTL_ME_UNEXPECTED_HDR_DISABLE
#define PTL_LE_IS_ACCESSIBLE PTL_ME_IS_ACCESSIBLE
#define PTL_LE_EVENT_LINK_DISABLE PTL_ME_EVENT_LINK_DISABLE
#define PTL_LE_EVENT_COMM_DISABLE PTL_ME_EVENT_COMM_DISABLE
#define PTL_LE_EVENT_FLOWCTRL_DISABLE PTL_ME_EVENT_FLOWCTRL_DISABLE
#define PTL_LE_EVENT_SUCCESS_DISABLE PTL_ME_EVENT_SUCCESS_DISABLE
#define PTL_LE_EVENT_OVER_DISABLE PTL_ME_EVENT_OVER_DISABLE
#define PTL_LE_EVENT_UNLINK_DISABLE PTL_ME_EVENT_UNLINK_DISABLE
#define PTL_LE_EVENT_CT_COMM PTL_ME_EVENT_CT_COMM
#define PTL_LE_EVENT_CT_OVERFLOW PTL_ME_EVENT_CT_OVERFLOW
#define PTL_LE_EVENT_CT_BYTES PTL_ME_EVENT_CT_BYTES
#define PTL_LE_APPEND_OPTIONS_MASK 0xffff

int PtlLEAppend(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index, const ptl_le_t* le, ptl_list_t ptl_list,
                void* user_ptr, ptl_handle_le_t* le_handle);
int PtlLEUnlink(ptl_handle_le_t le_handle);
int PtlLESearch(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index, const ptl_le_t* le, ptl_search_op_t ptl_search_op,
                void* user_ptr);
int PtlMEAppend(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index, const ptl_me_t* me, ptl_list_t ptl_list,
                void* user_ptr, ptl_handle_me_t* me_handle);
int PtlMEUnlink(ptl_handle_me_t me_handle);
int PtlMESearch(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index, const ptl_me_t* me, ptl_search_op_t ptl_search_op,
                void* user_ptr);

/* ---- Counting events ------------------------------------------------------------------------------- */
typedef struct {
  ptl_size_t success;
  ptl_size_t failure;
} ptl_ct_event_t;

typedef enum { PTL_CT_OPERATION, PTL_CT_BYTE } ptl_ct_type_t;

int PtlCTAlloc(ptl_handle_ni_t ni_handle, ptl_handle_ct_t* ct_handle);
int PtlCTFree(ptl_handle_ct_t ct_handle);
int PtlCTCancelTriggered(ptl_handle_ct_t ct_handle);
int PtlCTGet(ptl_handle_ct_t ct_handle, ptl_ct_event_t* event);
int PtlCTWait(ptl_handle_ct_t ct_handle, ptl_size_t test, ptl_ct_event_t* event);
int PtlCTPoll(const ptl_handle_ct_t* ct_handles, const ptl_size_t* tests, unsigned int size, ptl_time_t timeout,
              ptl_ct_event_t* event, unsigned int* which);
int PtlCTSet(ptl_handle_ct_t ct_handle, ptl_ct_event_t new_ct);
int PtlCTInc(ptl_handle_ct_t ct_handle, ptl_ct_event_t increment);

/* ---- Data movement --------------------------------------------------------------------------------- */
typedef unsigned char ptl_ack_req_t;
#define PTL_NO_ACK_REQ 0
#define PTL_ACK_REQ 1
#define PTL_CT_ACK_REQ 2
#define PTL_OC_ACK_REQ 3

int PtlPut(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length, ptl_ack_req_t ack_req,
           ptl_process_t target_id, ptl_pt_index_t pt_index, ptl_match_bits_t match_bits, ptl_size_t remote_offset,
           void* user_ptr, ptl_hdr_data_t hdr_data);
int PtlGet(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length, ptl_process_t target_id,
           ptl_pt_index_t pt_index, ptl_match_bits_t match_bits, ptl_size_t remote_offset, void* user_ptr);

typedef unsigned char ptl_op_t;
#define PTL_MIN 0
#define PTL_MAX 1
#define PTL_SUM 2
#define PTL_PROD 3
#define PTL_LOR 4
#define PTL_LAND 5
#define PTL_BOR 6
#define PTL_BAND 7
#define PTL_LXOR 8
#define PTL_BXOR 9
#define PTL_SWAP 10
#define PTL_CSWAP 11
#define PTL_CSWAP_NE 12
#define PTL_CSWAP_LE 13
#define PTL_CSWAP_LT 14
#define PTL_CSWAP_GE 15
#define PTL_CSWAP_GT 16
#define PTL_MSWAP 17
#define PTL_OP_LAST 18

typedef unsigned char ptl_datatype_t;
#define PTL_INT8_T 0
#define PTL_UINT8_T 1
#define PTL_INT16_T 2
#define PTL_UINT16_T 3
#define PTL_INT32_T 4
#define PTL_UINT32_T 5
#define PTL_FLOAT 6
#define PTL_INT64_T 7
#define PTL_UINT64_T 8
#define PTL_DOUBLE 9
#define PTL_FLOAT_COMPLEX 10
#define PTL_DOUBLE_COMPLEX 11
#define PTL_LONG_DOUBLE 12
#define PTL_LONG_DOUBLE_COMPLEX 13
#define PTL_DATATYPE_LAST 14

int PtlAtomic(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length, ptl_ack_req_t ack_req,
              ptl_process_t target_id, ptl_pt_index_t pt_index, ptl_match_bits_t match_bits, ptl_size_t remote_offset,
              void* user_ptr, ptl_hdr_data_t hdr_data, ptl_op_t operation, ptl_datatype_t datatype);
int PtlFetchAtomic(ptl_handle_md_t get_md_handle, ptl_size_t local_get_offset, ptl_handle_md_t put_md_handle,
                   ptl_size_t local_put_offset, ptl_size_t length, ptl_process_t target_id, ptl_pt_index_t pt_index,
                   ptl_match_bits_t match_bits, ptl_size_t remote_offset, void* user_ptr, ptl_hdr_data_t hdr_data,
                   ptl_op_t operation, ptl_datatype_t datatype);
int PtlSwap(ptl_handle_md_t get_md_handle, ptl_size_t local_get_offset, ptl_handle_md_t put_md_handle,
            ptl_size_t local_put_offset, ptl_size_t length, ptl_process_t target_id, ptl_pt_index_t pt_index,
            ptl_match_bits_t match_bits, ptl_size_t remote_offset, void* user_ptr, ptl_hdr_data_t hdr_data,
            const void* operand, ptl_op_t operation, ptl_datatype_t datatype);
int PtlAtomicSync(void);

/* ---- Events ---------------------------------------------------------------------------------------- */
typedef unsigned char ptl_event_kind_t;
#define PTL_EVENT_GET 0
#define PTL_EVENT_GET_OVERFLOW 1
#define PTL_EVENT_PUT 2
#define PTL_EVENT_PUT_OVERFLOW 3
#define PTL_EVENT_ATOMIC 4
#define PTL_EVENT_ATOMIC_OVERFLOW 5
#define PTL_EVENT_FETCH_ATOMIC 6
#define PTL_EVENT_FETCH_ATOMIC_OVERFLOW 7
#define PTL_EVENT_REPLY 8
#define PTL_EVENT_SEND 9
#define PTL_EVENT_ACK 10
#define PTL_EVENT_PT_DISABLED 11
#define PTL_EVENT_LINK 12
#define PTL_EVENT_AUTO_UNLINK 13
#define PTL_EVENT_AUTO_FREE 14
#define PTL_EVENT_SEARCH 15

typedef struct {
  void* start;
  void* user_ptr;
  ptl_hdr_data_t hdr_data;
  ptl_match_bits_t match_bits;
  ptl_size_t rlength;
  ptl_size_t mlength;
  ptl_size_t remote_offset;
  ptl_process_t initiator;
  ptl_uid_t uid;
  ptl_pt_index_t pt_index;
  ptl_event_kind_t type;
  ptl_list_t ptl_list;
  ptl_ni_fail_t ni_fail_type;
  ptl_op_t atomic_operation;
  ptl_datatype_t atomic_type;
} ptl_event_t;

int PtlEQAlloc(ptl_handle_ni_t ni_handle, ptl_size_t count, ptl_handle_eq_t* eq_handle);
int PtlEQFree(ptl_handle_eq_t eq_handle);
int PtlEQGet(ptl_handle_eq_t eq_handle, ptl_event_t* event);
int PtlEQWait(ptl_handle_eq_t eq_handle, ptl_event_t* event);
int PtlEQPoll(const ptl_handle_eq_t* eq_handles, unsigned int size, ptl_time_t timeout, ptl_event_t* event,
              unsigned int* which);

/* ---- Triggered operations -------------------------------------------------------------------------- */
int PtlTriggeredPut(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length, ptl_ack_req_t ack_req,
                    ptl_process_t target_id, ptl_pt_index_t pt_index, ptl_match_bits_t match_bits,
                    ptl_size_t remote_offset, void* user_ptr, ptl_hdr_data_t hdr_data, ptl_handle_ct_t trig_ct_handle,
                    ptl_size_t threshold);
int PtlTriggeredGet(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length, ptl_process_t target_id,
                    ptl_pt_index_t pt_index, ptl_match_bits_t match_bits, ptl_size_t remote_offset, void* user_ptr,
                    ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold);
int PtlTriggeredAtomic(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length, ptl_ack_req_t ack_req,
                       ptl_process_t target_id, ptl_pt_index_t pt_index, ptl_match_bits_t match_bits,
                       ptl_size_t remote_offset, void* user_ptr, ptl_hdr_data_t hdr_data, ptl_op_t operation,
                       ptl_datatype_t datatype, ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold);
int PtlTriggeredFetchAtomic(ptl_handle_md_t get_md_handle, ptl_size_t local_get_offset, ptl_handle_md_t put_md_handle,
                            ptl_size_t local_put_offset, ptl_size_t length, ptl_process_t target_id,
                            ptl_pt_index_t pt_index, ptl_match_bits_t match_bits, ptl_size_t remote_offset,
                            void* user_ptr, ptl_hdr_data_t hdr_data, ptl_op_t operation, ptl_datatype_t datatype,
                            ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold);
int PtlTriggeredSwap(ptl_handle_md_t get_md_handle, ptl_size_t local_get_offset, ptl_handle_md_t put_md_handle,
                     ptl_size_t local_put_offset, ptl_size_t length, ptl_process_t target_id, ptl_pt_index_t pt_index,
                     ptl_match_bits_t match_bits, ptl_size_t remote_offset, void* user_ptr, ptl_hdr_data_t hdr_data,
                     const void* operand, ptl_op_t operation, ptl_datatype_t datatype, ptl_handle_ct_t trig_ct_handle,
                     ptl_size_t threshold);
int PtlTriggeredCTInc(ptl_handle_ct_t ct_handle, ptl_ct_event_t increment, ptl_handle_ct_t trig_ct_handle,
                      ptl_size_t threshold);
int PtlTriggeredCTSet(ptl_handle_ct_t ct_handle, ptl_ct_event_t new_ct, ptl_handle_ct_t trig_ct_handle,
                      ptl_size_t threshold);

/* Portals 4.3 (and the reference implementation's PtlTriggeredMEAppend/MEUnlink): list operations
 * deferred until `trig_ct_handle` reaches `threshold`. The handle is returned at once; the entry is
 * appended, or unlinked, when the counter gets there. */
int PtlTriggeredMEAppend(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index, const ptl_me_t* me, ptl_list_t ptl_list,
                         void* user_ptr, ptl_handle_me_t* me_handle, ptl_handle_ct_t trig_ct_handle,
                         ptl_size_t threshold);
int PtlTriggeredMEUnlink(ptl_handle_me_t me_handle, ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold);
int PtlTriggeredLEAppend(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index, const ptl_le_t* le, ptl_list_t ptl_list,
                         void* user_ptr, ptl_handle_le_t* le_handle, ptl_handle_ct_t trig_ct_handle,
                         ptl_size_t threshold);
int PtlTriggeredLEUnlink(ptl_handle_le_t le_handle, ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold);

/* ---- Operation bundles (hints; every operation is issued at once in bxisim) ------------------------ */
int PtlStartBundle(ptl_handle_ni_t ni_handle);
int PtlEndBundle(ptl_handle_ni_t ni_handle);

#ifdef __cplusplus
}
#endif

#endif /* BXISIM_PORTALS4_H */
