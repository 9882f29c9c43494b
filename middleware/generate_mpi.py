#!/usr/bin/env python3
"""Generates bxisim's MPI layer from middleware/mpi_api.list (the only place an MPI signature is written).

    generate_mpi.py <mpi_api.list> <output folder>

writes into the output folder:
  include/bxisim_mpi_functions.h  mpi.h's part: MPI_x and PMPI_x declared with the assembler names bxisim_MPI_x,
                                  bxisim_PMPI_x (asm labels)
  MpiFunctions.hpp                the function ids and facts the entry points check (name, before_init)
  MpiInterface.hpp                the per-rank dispatch interface, one virtual per MPI function (ABI types)
  EntryPoints.cpp                 bxisim_MPI_x / bxisim_PMPI_x: which rank calls, state checks, dispatch
  OpenMpiRank.hpp/.cpp            the OpenMPI back end: each function converts in, calls the rank's copy
                                  through a function pointer, converts out (conversions: OpenMpiAbi.hpp)
  SmpiRank.hpp/.cpp               the SMPI back end, the same way over libsimgrid's MPI_x (conversions:
                                  SmpiAbi.hpp)
  PretendMpi.c                    libbxisim-pretend.so, which `BXISIM_PRETEND_CC=1 bxicc` links: every
                                  MPI_x, PMPI_x and bxisim_(P)MPI_x defined, so that configure scripts
                                  find the functions of the list (and only those); calling one says why
                                  it cannot work there and exits

A back end is a class deriving from MpiInterface and from a conversion class that provides, for every
kind of the list, be_<kind> types and to_be_<kind> / from_be_<kind> functions (see OpenMpiAbi.hpp);
each back end of BACKENDS below is generated the same way with its own conversion class.
"""

import re
import sys
from pathlib import Path

HANDLES = {
    "comm": "MPI_Comm", "group": "MPI_Group", "datatype": "MPI_Datatype", "op": "MPI_Op",
    "request": "MPI_Request", "win": "MPI_Win", "info": "MPI_Info", "errhandler": "MPI_Errhandler",
    "message": "MPI_Message", "file": "MPI_File",
}
INT_KINDS = {
    "rank", "tag", "color", "split_type", "thread_level", "compare", "topology", "lock_type", "win_assert",
    "file_amode", "whence", "order", "typeclass", "distribute", "darg", "combiner", "keyval", "errcode", "undef",
}
POINTER_KINDS = {"weights_in": "const int*", "weights_out": "int*"}
CALLBACKS = {
    "user_function": "MPI_User_function*",
    "comm_errhandler_function": "MPI_Comm_errhandler_function*",
    "win_errhandler_function": "MPI_Win_errhandler_function*",
    "file_errhandler_function": "MPI_File_errhandler_function*",
}
# Buffer arguments that may be MPI_IN_PLACE, whose value differs between ABIs: converted by to_be_buffer.
IN_PLACE_BUFFERS = {"sendbuf", "recvbuf"}
# Data buffers of the calls that may be MPI_BOTTOM (absolute addresses in the datatype), whose value differs
# between ABIs: converted by to_be_bottom. Only the point-to-point and one-sided calls, where SMPI itself turns
# its MPI_BOTTOM back into a null pointer (its requests); elsewhere a null pointer stays one, as programs pass
# NULL for buffers a call does not use (a non-root's receive buffer).
BOTTOM_BUFFERS = {"buf", "buffer", "sendbuf", "recvbuf", "origin_addr", "result_addr", "compare_addr"}
# A file view's displacement, which may be MPI_DISPLACEMENT_CURRENT, whose value differs between ABIs (bxisim's -1,
# OpenMPI's -54278278): converted by to_be_file_disp and from_be_file_disp.
FILE_DISPLACEMENTS = {("File_set_view", "disp"), ("File_get_view", "disp")}
# The target datatype and count of an accumulate, for a back end that hands its own (SMPI 3.32 applies the operation
# to each part of a derived type and fails on most: SmpiAccumulateTargets.cpp).
ACCUMULATE_FUNCTIONS = {"Accumulate", "Get_accumulate", "Raccumulate", "Rget_accumulate"}
# The origin or result buffer of one-sided calls that SMPI copies itself on the rank's own window, with its count and
# type, for a back end that hands MPI_BOTTOM its own way there (SmpiBottomBuffers.cpp).
ONE_SIDED_BUFFERS = {"Put": "origin", "Rput": "origin", "Get": "origin", "Rget": "origin", "Get_accumulate": "result",
                     "Rget_accumulate": "result"}
# Every back end: the names of predefined datatypes are bxisim's (PredefinedNames.hpp), unless the program set one.
ANSWERED_FIRST = {"Type_get_name": "  if (predefined_names_.answer(type, type_name, resultlen))\n    return MPI_SUCCESS;\n"}
AFTER_SUCCESS = {"Type_set_name": "  if (be_ok(result_))\n    predefined_names_.renamed(type);\n"}
# Every back end: bxisim's answer (MatchSize.hpp), the first candidate of the back end's own size; no match raises
# MPI_ERR_ARG through MPI_COMM_WORLD's error handler, as MPI does.
WHOLE_BODIES = {"Type_match_size": """  for (MPI_Datatype candidate : matching_predefined_types(typeclass, size)) {
    int its_size = 0;
    if (be_ok(fn_.Type_size(to_be_datatype(candidate), &its_size)) && its_size == size) {
      *type = candidate;
      return MPI_SUCCESS;
    }
  }
  Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_ARG);
  return MPI_ERR_ARG;
""",
# MPI_Cart_map and MPI_Graph_map, by bxisim at every level (SMPI 3.32 has neither; OpenMPI 4.1's give a rank outside
# the topology its own rank, where MPI says MPI_UNDEFINED): the ranks in order, as topology constructors keep them.
                "Cart_map": """  int me          = 0;
  long long nodes = 1;
  for (int d = 0; d < ndims && dims != nullptr; ++d)
    nodes *= dims[d];
  if (newrank == nullptr || ndims < 0 || (ndims > 0 && dims == nullptr) || not be_ok(fn_.Comm_rank(to_be_comm(comm), &me))) {
    Comm_call_errhandler(comm, MPI_ERR_ARG);
    return MPI_ERR_ARG;
  }
  (void)periods;
  *newrank = me < nodes ? me : MPI_UNDEFINED;
  return MPI_SUCCESS;
""",
                # external32, by bxisim at every level (External32.hpp: SMPI lacks it, OpenMPI 4.1.4 is wrong)
                "Pack_external_size": """  int code = pack_external_size(*this, datarep, incount, datatype, size);
  if (code != MPI_SUCCESS)
    Comm_call_errhandler(MPI_COMM_WORLD, code);
  return code;
""",
                "Pack_external": """  int code = pack_external(*this, datarep, inbuf, incount, datatype, outbuf, outsize, position);
  if (code != MPI_SUCCESS)
    Comm_call_errhandler(MPI_COMM_WORLD, code);
  return code;
""",
                "Unpack_external": """  int code = unpack_external(*this, datarep, inbuf, insize, position, outbuf, outcount, datatype);
  if (code != MPI_SUCCESS)
    Comm_call_errhandler(MPI_COMM_WORLD, code);
  return code;
""",
                "Dims_create": """  int code = balanced_dims(nnodes, ndims, dims);
  if (code != MPI_SUCCESS)
    Comm_call_errhandler(MPI_COMM_WORLD, code);
  return code;
""",
                "Graph_map": """  int me = 0;
  if (newrank == nullptr || nnodes < 0 || not be_ok(fn_.Comm_rank(to_be_comm(comm), &me))) {
    Comm_call_errhandler(comm, MPI_ERR_ARG);
    return MPI_ERR_ARG;
  }
  (void)index;
  (void)edges;
  *newrank = me < nnodes ? me : MPI_UNDEFINED;
  return MPI_SUCCESS;
"""}
# MPI_Type_create_f90_*, by bxisim at every level (SMPI 3.32 has none; OpenMPI's Fortran-less build behind bxisim
# gave MPI_COMPLEX, of size 0): the predefined type of the size of gfortran's kind (MatchSize.hpp), as
# MPI_Type_match_size finds it.
for _name, _class, _precision, _range in (("integer", "INTEGER", "MPI_UNDEFINED", "r"), ("real", "REAL", "p", "r"),
                                          ("complex", "COMPLEX", "p", "r")):
    WHOLE_BODIES[f"Type_create_f90_{_name}"] = f"""  int size = f90_size(MPI_TYPECLASS_{_class}, {_precision}, {_range});
  if (newtype != nullptr && size > 0)
    return Type_match_size(MPI_TYPECLASS_{_class}, size, newtype); // raises MPI_ERR_ARG itself for no such type
  if (newtype != nullptr)
    *newtype = MPI_DATATYPE_NULL;
  Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_ARG);
  return MPI_ERR_ARG;
"""
BOTTOM_FUNCTIONS = set("""
Send Recv Bsend Ssend Rsend Isend Ibsend Issend Irsend Irecv Send_init Bsend_init Ssend_init Rsend_init Recv_init
Sendrecv Sendrecv_replace Mrecv Imrecv Put Get Accumulate Get_accumulate Fetch_and_op Compare_and_swap Rput Rget
Raccumulate Rget_accumulate Bcast Ibcast
""".split())

# The back ends: the conversion class, the prefix of the back end's functions (OpenMPI: PMPI_x, so that
# a program's profiling layer is not called twice; SMPI: MPI_x, whose wrappers call the communicator's
# error handler, which SMPI's PMPI_x do not), functions the back end does not implement (they fail
# with a message) and functions whose translation is written by hand for this back end only.
# SMPI 3.32's unimplemented functions (UNIMPLEMENTED_WRAPPED_PMPI_CALL in its smpi_mpi.cpp) only warn
# and return MPI_SUCCESS: bxisim turns them into an error naming the level that has them.
SMPI_ABSENT = set("""
Comm_get_parent
File_preallocate File_iread_at File_iwrite_at File_iread_at_all File_iwrite_at_all File_iread
File_iwrite File_iread_all File_iwrite_all File_iread_shared File_iwrite_shared File_read_at_all_begin
File_read_at_all_end File_write_at_all_begin File_write_at_all_end File_read_all_begin File_read_all_end
File_write_all_begin File_write_all_end File_read_ordered_begin File_read_ordered_end File_write_ordered_begin
File_write_ordered_end
""".split())
# What SMPI 3.32 lacks and bxisim implements over SMPI's own calls (Smpi*.cpp beside SmpiCustom.cpp).
SMPI_BY_BXISIM = set("""
Type_create_darray Add_error_class Add_error_code Add_error_string Intercomm_create Intercomm_merge Comm_remote_size Comm_remote_group
Comm_test_inter
Comm_idup Dist_graph_create Dist_graph_create_adjacent Dist_graph_neighbors Dist_graph_neighbors_count
Graph_create Graphdims_get Graph_get Graph_neighbors_count Graph_neighbors Topo_test
Neighbor_allgather Neighbor_allgatherv Neighbor_alltoall Neighbor_alltoallv Neighbor_alltoallw
Ineighbor_allgather Ineighbor_allgatherv Ineighbor_alltoall Ineighbor_alltoallv Ineighbor_alltoallw
""".split())
# Inter-communicators at smpi (SmpiIntercomms.cpp; SMPI 3.32 has none): calls given one go to bxisim's inter_<name>
# for these, run on the SMPI communicator of both groups (the program's handle) for SMPI_INTERCOMM_AS_IS, and fail
# with a message for every other call with a communicator argument `comm`.
SMPI_INTERCOMM_HANDLED = set("""
Comm_size Comm_rank Comm_group Comm_free Comm_split Comm_create
Send Ssend Bsend Rsend Isend Issend Ibsend Irsend Recv Irecv Probe Iprobe Sendrecv Sendrecv_replace
Barrier Bcast Gather Gatherv Scatter Scatterv Allgather Allgatherv Alltoall Alltoallv Alltoallw Reduce Allreduce
Reduce_scatter Reduce_scatter_block
Ibarrier Ibcast Igather Igatherv Iscatter Iscatterv Iallgather Iallgatherv Ialltoall Ialltoallv Ialltoallw Ireduce
Iallreduce Ireduce_scatter Ireduce_scatter_block
""".split())
SMPI_INTERCOMM_AS_IS = set("""
Abort Attr_delete Attr_get Attr_put Comm_c2f Comm_call_errhandler Comm_delete_attr Comm_get_attr Comm_get_errhandler
Comm_get_info Comm_get_name Comm_set_attr Comm_set_errhandler Comm_set_info Comm_set_name Comm_test_inter
Comm_remote_size Comm_remote_group Comm_dup Comm_dup_with_info Comm_idup Pack Pack_size Unpack Topo_test
""".split())


def intercomm_check(f, backend):
    """The first lines of a generated SMPI function taking a communicator: its course on an inter-communicator."""
    argument = next((a for a in f.arguments if a.name == "comm" and a.kind == "comm"), None)
    if not backend.get("intercomms") or argument is None or f.name in SMPI_INTERCOMM_AS_IS:
        return ""
    test = "comm != nullptr && is_intercomm(*comm)" if argument.direction == "inout" else "is_intercomm(comm)"
    if f.name in SMPI_INTERCOMM_HANDLED:
        return f"  if ({test})\n    return inter_{f.name}({f.argument_names()});\n"
    if f.returns != "int":
        return ""
    return f'  if ({test})\n    return intercomm_unsupported("MPI_{f.name}");\n'


# Completion calls given a request bxisim made of several SMPI requests (a nonblocking neighbour collective).
SMPI_COMPOSITE_FIRST = {
    "Wait": "  if (is_composite(*request))\n    return composite_wait(request, status);\n",
    "Waitall": "  if (holds_composite(count, array_of_requests))\n"
               "    return composite_waitall(count, array_of_requests, array_of_statuses);\n",
    "Waitany": "  if (holds_composite(count, array_of_requests))\n"
               "    return composite_waitany(count, array_of_requests, index, status);\n",
    "Waitsome": "  if (holds_composite(incount, array_of_requests))\n"
                "    return composite_waitsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses);\n",
    "Testall": "  if (holds_composite(count, array_of_requests))\n"
               "    return composite_testall(count, array_of_requests, flag, array_of_statuses);\n",
    "Testany": "  if (holds_composite(count, array_of_requests))\n"
               "    return composite_testany(count, array_of_requests, index, flag, status);\n",
    "Testsome": "  if (holds_composite(incount, array_of_requests))\n"
                "    return composite_testsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses);\n",
    "Request_get_status": "  if (is_composite(request))\n    return composite_get_status(request, flag, status);\n",
    "Cancel": "  if (is_composite(*request))\n    return composite_cancel(request);\n",
    # the receive of a matched message (MPI_Imrecv) still copies into the program's buffer
    "Request_free": "  if (is_composite(*request))\n    return composite_free(request);\n"
                    "  if (completion_actions_.count(*request) != 0)\n"
                    "    return Wait(request, MPI_STATUS_IGNORE);\n",
    # a persistent request to or from MPI_PROC_NULL (proc_null_persistent)
    "Start": "  if (is_composite(*request))\n    return composite_start(request);\n",
    "Startall": "  if (holds_composite(count, array_of_requests))\n    return composite_startall(count, array_of_requests);\n",
    "Comm_free": "  if (comm != nullptr)\n    forget_topology(*comm);\n",
    # error codes and classes the program added (SmpiErrorCodes.cpp)
    "Error_class": "  if (answered_added_error(errorcode, errorclass, nullptr, nullptr))\n    return MPI_SUCCESS;\n",
    "Error_string": "  if (answered_added_error(errorcode, nullptr, string, resultlen))\n    return MPI_SUCCESS;\n",
}
# Point-to-point requests with MPI_PROC_NULL at smpi: SMPI 3.32's handle is taken for an inactive request by
# MPI_Testany (MPI_UNDEFINED: the Graph 500 reference code then indexed its request array with it) and crashes its
# MPI_Waitsome; MPI says such a request is active and completes at once (MPI-3.1 3.11). bxisim hands out a composite
# request with no part instead.
SMPI_PROC_NULL_FIRST = {
    **{name: "  if (dest == MPI_PROC_NULL)\n    return proc_null_request(request);\n"
       for name in ("Isend", "Issend", "Ibsend", "Irsend")},
    "Irecv": "  if (source == MPI_PROC_NULL)\n    return proc_null_request(request);\n",
    # its MPI_Start of a persistent send to MPI_PROC_NULL aborts the simulator ("Actor pid=-666 is gone??"), and its
    # MPI_Waitany, MPI_Testany and MPI_Waitsome take an active persistent receive from it for an inactive request: a
    # persistent composite request without parts, which MPI_Start activates
    **{name: "  if (dest == MPI_PROC_NULL)\n    return proc_null_persistent(request);\n"
       for name in ("Send_init", "Bsend_init", "Ssend_init", "Rsend_init")},
    "Recv_init": "  if (source == MPI_PROC_NULL)\n    return proc_null_persistent(request);\n",
}
BACKENDS = {
    # reduction_ops: the reductions' operation is converted with their datatype (OpenMpiAbi::to_be_reduction_op).
    "OpenMpiRank": {"conversions": "OpenMpiAbi", "prefix": "PMPI_", "absent": set(), "reduction_ops": True,
                    "custom": {"Comm_get_attr", "Attr_get", "Init_thread", "Type_get_contents"},
                    # OpenMPI 4.1.4's MPI_Error_class of a class the program added answers MPI_ERR_UNKNOWN (its
                    # class entries have code MPI_UNDEFINED): a class is its own class (MPICH errhan/adderr)
                    "after_success": {"Add_error_class": "  if (be_ok(result_))\n    added_error_classes_.insert(*errorclass);\n"},
                    "answered_first": {"Error_class": "  if (errorclass != nullptr && added_error_classes_.count(errorcode) != 0) {\n"
                                                      "    *errorclass = errorcode;\n    return MPI_SUCCESS;\n  }\n"},
                    "members": ["std::unordered_set<int> added_error_classes_; // by MPI_Add_error_class"]},
    # null_file_checked: SMPI 3.32 dereferences an open file's handle (the argument fh) without checking it, so
    # MPI_File_close(&fh) of MPI_FILE_NULL crashed the simulator; MPI says MPI_ERR_FILE.
    "SmpiRank": {"conversions": "SmpiAbi", "prefix": "MPI_", "absent": SMPI_ABSENT, "null_file_checked": True,
                 "intercomms": True,
                 "accumulate_targets": True, "bottom_buffers": True,
                 "before_intercomm_check": SMPI_PROC_NULL_FIRST,
                 "custom": {"Init", "Init_thread", "Query_thread", "Abort", "Is_thread_main", "Win_create", "Win_allocate",
                            "Win_allocate_shared", "Win_shared_query", "Win_free", "Win_create_dynamic", "Type_create_struct", "Type_get_envelope",
                            "Type_free", "File_open", "Comm_call_errhandler", "Win_call_errhandler", "Comm_get_attr",
                            "Attr_get", "Comm_set_attr", "Attr_put", "Comm_delete_attr", "Attr_delete", "Type_set_attr",
                            "Type_get_attr", "Type_delete_attr", "Comm_free_keyval", "Keyval_free", "Type_free_keyval",
                            "Comm_dup", "Comm_dup_with_info", "Type_dup", "Finalize", "Status_set_elements",
                            "Status_set_elements_x", "Get_elements", "Get_elements_x", "Test", "Comm_get_parent",
                            "Comm_split_type", "Get_processor_name", "Get_count", "Iallreduce", "Iscan", "Iexscan",
                            "Ialltoall", "Ialltoallv", "Ialltoallw", "Ireduce_scatter", "Ireduce_scatter_block",
                            "Type_contiguous", "Type_vector", "Type_create_hvector", "Type_indexed",
                            "Type_create_hindexed", "Type_create_indexed_block", "Type_create_hindexed_block",
                            "Type_create_resized", "Type_create_subarray", "Type_get_contents",
                            "Type_get_true_extent", "Type_get_true_extent_x", "Mprobe", "Improbe", "Mrecv", "Imrecv", "Win_sync",
                            "Win_test", "Testall", "Request_get_status",
                            # passive-target locks in bxisim's table (SmpiWindowLocks.cpp)
                            "Win_lock", "Win_lock_all", "Win_unlock", "Win_unlock_all"} | SMPI_BY_BXISIM,
                 # helpers of the hand-written parts that need the back end's functions (SmpiDatatypes.cpp)
                 # SMPI 3.32's MPI_Pack and MPI_Unpack divide by the type's size: a type without data crashed them
                 # Cartesian communicators are SMPI's; bxisim lists their neighbours (SmpiTopologies.cpp)
                 "after_success": {
                     "Testany": "  if (be_ok(result_) && *flag && *index == MPI_UNDEFINED)\n"
                                "    return testany_one_by_one(count, array_of_requests, index, flag, status);\n"
                                "  if (be_ok(result_) && not *flag && not eager_sends_.empty())\n"
                                "    return testany_eager_sends(count, array_of_requests, index, flag, status);\n",
                     # sends SMPI makes detached, which its MPI_Testany passes over (testany_eager_sends)
                     **{name: "  if (be_ok(result_))\n    note_eager_send(*request, count, datatype);\n"
                        for name in ("Isend", "Irsend")},
                     "Ibsend": "  if (be_ok(result_))\n    eager_sends_.insert(*request);\n",
                     # SMPI 3.32 returns their error without the error handler: MPI raises an error that concerns no
                     # communicator on MPI_COMM_WORLD (MPI-3.1 8.3), whose default handler ends the job
                     **{name: "  if (not be_ok(result_))\n    return raised(MPI_COMM_WORLD, from_be_errcode(result_));\n"
                        for name in ("Error_string", "Error_class")},
                     "Cart_create": "  if (be_ok(result_) && v_comm_cart != nullptr)\n    neighbourhoods_[v_comm_cart].kind = MPI_CART;\n",
                     "Cart_sub": "  if (be_ok(result_) && v_new_comm != nullptr)\n    neighbourhoods_[v_new_comm].kind = MPI_CART;\n"},
                 "answered_first": {
                     # SMPI 3.32 loses messages of a persistent request started again at once (SmpiPersistentRequests.cpp)
                     **{name: f"  return persistent_request(PersistentKind::{kind}, buf, count, datatype, dest, tag, comm, request);\n"
                        for name, kind in (("Send_init", "send"), ("Bsend_init", "buffered"), ("Ssend_init", "synchronous"),
                                           ("Rsend_init", "ready"))},
                     "Recv_init": "  return persistent_request(PersistentKind::receive, buf, count, datatype, source, tag, comm, request);\n",
                     # SMPI 3.32 applies an operation that does not commute to nothing (SmpiOrderedScan.cpp)
                     "Scan": "  if (not op_commutes(op))\n    return ordered_scan(sendbuf, recvbuf, count, datatype, op, comm, false);\n",
                     "Exscan": "  if (not op_commutes(op))\n    return ordered_scan(sendbuf, recvbuf, count, datatype, op, comm, true);\n",
                     "Pack": "  if (holds_no_data(datatype))\n    return MPI_SUCCESS;\n",
                     "Unpack": "  if (holds_no_data(datatype))\n    return MPI_SUCCESS;\n", **SMPI_COMPOSITE_FIRST},
                 "members": ["MPI_Aint smpi_extent(MPI_Datatype type);",
                             "// SmpiWindowLocks.cpp: a window made (`result`: SMPI's code) gets its identity in the table of locks",
                             "int made_window(int result, void* window, int flavor, MPI_Win* win);",
                             "void forget_window(be_win window);",
                             "/** MPI_ERR_RMA_SYNC through the window's error handler. */\n  int window_sync_error(MPI_Win win);",
                             "/** What SMPI is given for an accumulate's target (SmpiAccumulateTargets.cpp). */\n  AccumulateTarget accumulate_target(MPI_Datatype type, int count, MPI_Op op);",
                             "/** What SMPI is given for a one-sided call's origin or result buffer (SmpiBottomBuffers.cpp). */\n  BottomBuffer bottom_buffer(const void* buffer, int count, MPI_Datatype type, int target_rank, MPI_Win win);",
                             "/** Frees what bottom_buffer made for a call. */\n  void release_bottom_buffer(BottomBuffer* given);",
                             "/** `count` elements of `type` as SMPI moves them, as one hindexed type of their element type (nullptr: not made). */\n  be_datatype flattened(MPI_Datatype type, int count);",
                             "/** A persistent point-to-point request of bxisim's (SmpiPersistentRequests.cpp says why). */\n  int persistent_request(PersistentKind kind, const void* buf, int count, MPI_Datatype type, int peer, int tag, MPI_Comm comm, MPI_Request* request);",
                             "/** Whether `op` commutes (predefined operations do). */\n  bool op_commutes(MPI_Op op);",
                             "/** MPI_Iscan (MPI_Iexscan if `exclusive`) as a chain of steps in rank order (SmpiOrderedScan.cpp). */\n  int ordered_iscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm, bool exclusive, MPI_Request* request);",
                             "/** Runs a composite's next steps while its parts are done; whether it has parts. */\n  bool next_composite_step(CompositeRequest& composite);",
                             "/** `request`, which SMPI completed while the program holds it, becomes a complete composite (SmpiEarlyCompletions.cpp). */\n  void keep_early_completion(MPI_Request request, be_request held, const be_status& status);",
                             "/** MPI_Scan (MPI_Exscan if `exclusive`) as a chain in rank order (SmpiOrderedScan.cpp). */\n  int ordered_scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm, bool exclusive);", "bool holds_no_data(MPI_Datatype type);",
                             "/** Calls `comm`'s error handler with `code` and returns it. */\n  int raised(MPI_Comm comm, int code);",
                             "int matched_probe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message, MPI_Status* status);",
                             "// SmpiTopologies.cpp: the neighbours of `comm` (its exchange communicator made), nullptr without a topology",
                             "Neighbourhood* neighbourhood(MPI_Comm comm);",
                             "const Neighbourhood* graph_of(MPI_Comm comm, int kind) const;",
                             "void forget_topology(MPI_Comm comm);",
                             "void copy_topology(MPI_Comm comm, MPI_Comm duplicate);",
                             "int made_topology(MPI_Comm comm_old, int result, be_comm made, Neighbourhood topology, MPI_Comm* newcomm);",
                             "struct Block { const void* buffer; int count; be_datatype type; };",
                             "/** Posts a receive from each of `from` and a send to each of `to` (SMPI ranks of `on`, MPI_PROC_NULL skipped) into `parts`; SMPI's code. */\n  int post_exchange(be_comm on, const std::vector<int>& from, const std::vector<int>& to, const std::function<Block(size_t)>& send_block, const std::function<Block(size_t)>& receive_block, std::vector<be_request>& parts, int tag = 0);",
                             "int neighbour_exchange(MPI_Comm comm, const std::function<Block(size_t)>& send_block, const std::function<Block(size_t)>& receive_block, MPI_Request* request);",
                             "int allgather_neighbours(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int* recvcounts, const int* displs, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request);",
                             "int alltoall_neighbours(const void* sendbuf, const int* sendcounts, const void* sdispls, int sendcount, const MPI_Datatype* sendtypes, MPI_Datatype sendtype, void* recvbuf, const int* recvcounts, const void* rdispls, int recvcount, const MPI_Datatype* recvtypes, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request);",
                             "/** Whether `errorcode` is one the program added: its class and string given. */\n  bool answered_added_error(int errorcode, int* errorclass, char* string, int* resultlen) const;",
                             "// SmpiIntercomms.cpp",
                             "int intercomm_unsupported(const char* function);",
                             "Intercomm& intercomm_of(MPI_Comm comm) { return intercomms_.at(to_be_comm(comm)); }",
                             "int world_rank();",
                             "int make_intercomm(be_comm local, const std::vector<int>& local_world, const std::vector<int>& remote_world, MPI_Comm* newintercomm);",
                             "int inter_dup(MPI_Comm comm, MPI_Comm* newcomm);",
                             "int when_everyone_called(MPI_Comm comm, std::function<int()> run, MPI_Request* request);",
                             "void run_pending(const void* intercomm, const std::function<int()>* last);",
                             "void* scratch_for(int count, MPI_Datatype datatype, std::vector<unsigned char>& bytes);",
                             "MPI_Aint extent_of(MPI_Datatype datatype);",
                             "int exchange_all(const Intercomm& inter, const std::function<Block(size_t)>& send_block, const std::function<Block(size_t)>& receive_block, bool sends, bool receives);",
                             "// SmpiCompositeRequests.cpp",
                             "MPI_Request composite_request(std::vector<be_request> parts);",
                             "bool composite_done(MPI_Request request);",
                             "void composite_ended(MPI_Request* request, MPI_Status* status, bool single);",
                             "int composite_wait(MPI_Request* request, MPI_Status* status);",
                             "int composite_test(MPI_Request* request, int* flag, MPI_Status* status);",
                             "int composite_waitall(int count, MPI_Request* requests, MPI_Status* statuses);",
                             "int composite_testall(int count, MPI_Request* requests, int* flag, MPI_Status* statuses);",
                             "int composite_waitany(int count, MPI_Request* requests, int* index, MPI_Status* status);",
                             "int composite_testany(int count, MPI_Request* requests, int* index, int* flag, MPI_Status* status);",
                             "int composite_waitsome(int count, MPI_Request* requests, int* outcount, int* indices, MPI_Status* statuses);",
                             "int composite_testsome(int count, MPI_Request* requests, int* outcount, int* indices, MPI_Status* statuses);",
                             "int composite_get_status(MPI_Request request, int* flag, MPI_Status* status);",
                             "int composite_cancel(MPI_Request* request);",
                             "/** The status a completed composite request gives (a receive's, or the empty one). */\n  void composite_status(const CompositeRequest& composite, MPI_Status* status, bool single);",
                             "/** A send to or a receive from MPI_PROC_NULL: a request that completes at once. */\n  int proc_null_request(MPI_Request* request);",
                             "/** MPI_Testany by MPI_Testsome of each request (SmpiCompositeRequests.cpp says why). */\n  int testany_one_by_one(int count, MPI_Request* requests, int* index, int* flag, MPI_Status* status);",
                             "/** MPI_Testany of the eager sends among `requests`, which SMPI's passes over (SmpiCompositeRequests.cpp). */\n  int testany_eager_sends(int count, MPI_Request* requests, int* index, int* flag, MPI_Status* status);",
                             "/** Remembers a nonblocking standard or ready send that SMPI makes detached. */\n  void note_eager_send(MPI_Request request, int count, MPI_Datatype type);",
                             "/** A persistent request to or from MPI_PROC_NULL: inactive until MPI_Start, then complete at once. */\n  int proc_null_persistent(MPI_Request* request);",
                             "/** A persistent composite request started, freed; whether a request is one not started. */\n  int composite_start(MPI_Request* request);",
                             "int composite_startall(int count, MPI_Request* requests);",
                             "int composite_free(MPI_Request* request);",
                             "bool inactive_composite(MPI_Request request) const;",
                             "/** Copies a matched message into the program's buffer: bxisim's error code. */\n  int delivered(const MatchedMessage& matched, void* buf, int count, MPI_Datatype datatype);",
                             "/** The matched message of `message` (MPI_MESSAGE_NULL after), nullptr when unknown (said). */\n  std::shared_ptr<MatchedMessage> taken_message(MPI_Message* message, const char* function);",
                             "LayoutCalls layout_calls() const { return {fn_.Type_get_extent, fn_.Type_create_struct, fn_.Type_free}; }"]},
}

# Pass-through C types that both ABIs spell the same way (same sizes on the platforms bxisim runs on).
PLAIN_MPI_TYPES = {"MPI_Aint", "MPI_Offset", "MPI_Count", "MPI_Fint"}


class Argument:
    def __init__(self, name, spec):
        self.name = name
        self.direction = "in"
        self.length = None
        words = spec.split()
        if words[0] in ("in", "out", "inout") and len(words) > 1:
            self.direction = words[0]
            spec = " ".join(words[1:])
        m = re.fullmatch(r"(\w+)\[(.+)\]", spec)
        if m and m.group(1) in set(HANDLES) | INT_KINDS | {"status"}:
            spec, self.length = m.group(1), m.group(2)
        self.kind = spec if spec in set(HANDLES) | INT_KINDS | {"status"} | set(POINTER_KINDS) | set(CALLBACKS) else None
        self.ctype = None if self.kind else spec
        if self.kind is None and self.direction != "in":
            raise ValueError(f"argument {name}: a C type ({spec}) takes no direction")

    def abi_declaration(self):
        return declare(self.abi_type(), self.name)

    def abi_type(self):
        if self.ctype:
            return self.ctype
        if self.kind in POINTER_KINDS:
            return POINTER_KINDS[self.kind]
        if self.kind in CALLBACKS:
            return CALLBACKS[self.kind]
        base = HANDLES.get(self.kind, "MPI_Status" if self.kind == "status" else "int")
        if self.kind == "status":
            return "const MPI_Status*" if self.direction == "in" else "MPI_Status*"
        if self.length:
            return f"const {base}*" if self.direction == "in" else f"{base}*"
        return base if self.direction == "in" else f"{base}*"

    def backend_type(self):
        """The type the back end's function takes for this argument."""
        if self.ctype:
            return backend_ctype(self.ctype)
        if self.kind in POINTER_KINDS:
            return POINTER_KINDS[self.kind]
        if self.kind in CALLBACKS:
            return "void*"
        base = f"be_{self.kind}" if self.kind in HANDLES or self.kind == "status" else "int"
        if self.kind == "status" or self.length or self.direction != "in":
            return f"{base}*"
        return base


def declare(ctype, name):
    if "@" in ctype:
        return ctype.replace("@", name)
    return f"{ctype} {name}"


def backend_ctype(ctype):
    if "@" in ctype:
        return ctype.replace("@[]", "(*)")  # int @[][3] -> int (*)[3]
    words = re.findall(r"MPI_\w+", ctype)
    if any(w not in PLAIN_MPI_TYPES for w in words):
        return "void*"  # callbacks and MPI_T handles: only custom or unavailable functions take them
    return ctype


class Function:
    def __init__(self, line, reasons):
        m = re.fullmatch(r"(\w+)\((.*)\)\s*(?:->\s*([\w*]+))?\s*(.*)", line)
        if not m:
            raise ValueError(f"cannot read: {line}")
        self.name, arguments, self.returns, attributes = m.group(1), m.group(2), m.group(3) or "int", m.group(4)
        self.variadic = False
        self.arguments = []
        for part in split_arguments(arguments):
            if part == "...":
                self.variadic = True
                continue
            name, spec = part.split(":", 1)
            self.arguments.append(Argument(name.strip(), spec.strip()))
        self.attributes = {}
        for m in re.finditer(r"@(\w+)(?:\s+([\w]+))?", attributes):
            key, value = m.group(1), m.group(2)
            if key in ("refused", "error"):
                self.attributes[key] = value
            else:
                self.attributes[key] = True
                if value:
                    raise ValueError(f"{self.name}: @{key} takes no value")
        if "refused" in self.attributes:
            self.attributes["refused"] = reasons[self.attributes["refused"]]

    def has(self, attribute):
        return attribute in self.attributes

    @property
    def dispatched(self):
        return not (self.has("local") or self.has("refused") or self.has("error") or self.variadic)

    def abi_return(self):
        return HANDLES.get(self.returns, self.returns)

    def backend_return(self):
        return "void*" if self.returns in HANDLES else self.returns

    def abi_parameters(self):
        parameters = [a.abi_declaration() for a in self.arguments]
        if self.variadic:
            parameters.append("...")
        return ", ".join(parameters) if parameters else "void"

    def argument_names(self):
        return ", ".join(a.name for a in self.arguments)


def describe_call(f):
    """What a timeline shows of a call, when someone observes the calls: the bytes it moves (count x the
    size of its datatype) and its peers (dest, source, root)."""
    count = next((a for a in f.arguments if a.name in ("count", "sendcount") and a.ctype == "int"), None)
    datatype = next((a for a in f.arguments if a.kind == "datatype" and a.name in ("datatype", "sendtype")
                     and a.length is None and a.direction == "in"), None)
    peers = [a for a in f.arguments if a.kind == "rank" and a.direction == "in" and a.length is None]
    parts = []
    code = ""
    if count and datatype:
        code += f"    int size_ = 0;\n    calling_rank_->Type_size({datatype.name}, &size_);\n"
        parts.append(f'"bytes=" + std::to_string(static_cast<long long>({count.name}) * size_)')
    for peer in peers:
        parts.append(f'"{peer.name}=" + std::to_string({peer.name})')
    if not parts:
        return ""
    joined = ' + ", " + '.join(parts)
    return f"  if (scope_.observed()) {{\n{code}    scope_.describe({joined});\n  }}\n"


def split_arguments(text):
    parts, depth, current = [], 0, ""
    for c in text:
        if c in "[(":
            depth += 1
        elif c in "])":
            depth -= 1
        if c == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += c
    if current.strip():
        parts.append(current.strip())
    return parts


def read_list(path):
    reasons, functions = {}, []
    for raw in Path(path).read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("reason "):
            key, text = line[len("reason "):].split(":", 1)
            reasons[key.strip()] = text.strip()
            continue
        functions.append(Function(line, reasons))
    names = [f.name for f in functions]
    duplicates = {n for n in names if names.count(n) > 1}
    if duplicates:
        raise ValueError(f"functions listed twice: {sorted(duplicates)}")
    return functions


HEADER_NOTE = "/* Generated by middleware/generate_mpi.py from middleware/mpi_api.list: do not edit. */\n"


def c_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def write_functions_header(functions):
    # Each function is declared under its own name with the assembler name of bxisim's entry point (GCC's and Clang's
    # asm labels), not renamed by a macro: code that puts a macro of its own in place of MPI_x (PETSc's logging:
    # `#define MPI_Bcast(...) (count, MPI_Bcast(...))`) then neither redefines a macro of mpi.h nor calls the plain
    # name, and a profiling layer's MPI_x definition is bxisim_MPI_x, as before.
    out = [HEADER_NOTE, "#ifndef BXISIM_MPI_FUNCTIONS_H\n#define BXISIM_MPI_FUNCTIONS_H\n"]
    out.append("\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n")
    for f in functions:
        for prefix in ("MPI_", "PMPI_"):
            out.append(f"{f.abi_return()} {prefix}{f.name}({f.abi_parameters()}) __asm__(\"bxisim_{prefix}{f.name}\");\n")
    out.append("\n#ifdef __cplusplus\n}\n#endif\n\n#endif\n")
    return "".join(out)


def write_function_table(functions):
    out = [HEADER_NOTE, "#pragma once\n\nnamespace bxisim::mw\n{\n\nenum class MpiFunction : int {\n"]
    out += [f"  {f.name},\n" for f in functions]
    out.append("};\n\nstruct MpiFunctionFacts {\n  const char* name;\n  bool before_init;\n};\n\n")
    out.append("inline constexpr MpiFunctionFacts kMpiFunctionFacts[] = {\n")
    out += [f'  {{"MPI_{f.name}", {"true" if f.has("before_init") else "false"}}},\n' for f in functions]
    out.append("};\n\n} // namespace bxisim::mw\n")
    return "".join(out)


def write_interface(functions):
    out = [HEADER_NOTE, '#pragma once\n\n#include "middleware/RankMpi.hpp"\n\n#include <mpi.h>\n\n',
           "namespace bxisim::mw\n{\n\n",
           "/** The dispatch of one rank: one function per MPI function of mpi_api.list, in bxisim's ABI. */\n",
           "class MpiInterface : public RankMpi\n{\n public:\n",
           "  using RankMpi::RankMpi;\n",
           "  void mark_initialized() { initialized_ = true; }\n",
           "  void mark_finalized() { finalized_ = true; }\n",
           "\n"]
    for f in functions:
        if f.dispatched:
            out.append(f"  virtual {f.abi_return()} {f.name}({f.abi_parameters()}) = 0;\n")
    out.append("};\n\n} // namespace bxisim::mw\n")
    return "".join(out)


def write_entry_points(functions):
    out = [HEADER_NOTE, '#include "MpiInterface.hpp"\n#include "MpiFunctions.hpp"\n#include "middleware/Entry.hpp"\n\n',
           "namespace bxisim::mw\n{\n"]
    for f in functions:
        if f.has("local") and not f.variadic:
            out.append(f"{f.abi_return()} local_{f.name}({f.abi_parameters()});\n")
    out.append("} // namespace bxisim::mw\n\nusing bxisim::mw::MpiFunction;\n\nextern \"C\" {\n\n")
    for f in functions:
        if f.variadic:
            continue  # written by hand (LocalFunctions.cpp)
        for prefix in ("MPI_", "PMPI_"):
            out.append(f"{f.abi_return()} bxisim_{prefix}{f.name}({f.abi_parameters()})\n{{\n")
            fid = f"MpiFunction::{f.name}"
            if f.has("refused") or f.has("error"):
                out += [f"  (void){a.name};\n" for a in f.arguments]
            if f.has("local") or not (f.has("refused") or f.has("error")):
                out.append("  bxisim::mw::LibraryScope library_;\n")  # first: the entry point is bxisim's code
            if f.has("local"):
                out.append(f"  return bxisim::mw::local_{f.name}({f.argument_names()});\n")
            elif f.has("refused"):
                out.append(f"  return bxisim::mw::refuse({fid}, {c_string(f.attributes['refused'])});\n")
            elif f.has("error"):
                out.append(f"  return bxisim::mw::unavailable({fid}, {f.attributes['error']});\n")
            else:
                out.append(f"  auto* calling_rank_ = bxisim::mw::enter({fid});\n")
                out.append(f'  bxisim::mw::CallScope scope_(calling_rank_, "MPI_{f.name}");\n')
                for a in f.arguments:  # the handle a call writes or reads through a pointer: never a null one
                    if a.kind in HANDLES and a.length is None and a.direction in ("out", "inout"):
                        out.append(f"  if ({a.name} == nullptr)\n    return bxisim::mw::null_handle_pointer(calling_rank_, "
                                   f'"MPI_{f.name}", "{a.name}");\n')
                out.append(describe_call(f))
                call = f"calling_rank_->{f.name}({f.argument_names()})"
                if f.has("starts") or f.has("ends"):
                    mark = "mark_initialized" if f.has("starts") else "mark_finalized"
                    out.append(f"  int result = {call};\n  if (result == MPI_SUCCESS)\n    calling_rank_->{mark}();\n")
                    out.append("  return result;\n")
                else:
                    out.append(f"  return {call};\n")
            out.append("}\n\n")
        out.append(plain_name_aliases(f.name))
    out.append("} // extern \"C\"\n")
    return "".join(out)


def plain_name_aliases(name):
    """BXI_x and PBXI_x, other names of bxisim_MPI_x and bxisim_PMPI_x (keep in step with LocalFunctions.cpp's).
    Code whose calls name MPI_x (compiled with bxisim's earlier mpi.h, whose names were macros, behind a macro of
    its own: PETSc's logging) calls the plain name, which libsimgrid's SMPI defines: bxisim rewrites "MPI" to "BXI"
    in those names in each rank's copy (runtime/launch/PlainMpiNames.hpp). The linker may store MPI_x inside the
    string of bxisim_MPI_x (or PMPI_x inside bxisim_PMPI_x) when the file calls both: the rewrite then makes that
    name bxisim_BXI_x (bxisim_PBXI_x), which are aliases too."""
    lines = []
    for alias, target in ((f"BXI_{name}", f"bxisim_MPI_{name}"), (f"PBXI_{name}", f"bxisim_PMPI_{name}"),
                          (f"bxisim_BXI_{name}", f"bxisim_MPI_{name}"), (f"bxisim_PBXI_{name}", f"bxisim_PMPI_{name}")):
        lines += [f".globl {alias}", f".type {alias}, @function", f".set {alias}, {target}"]
    return 'asm("' + "\\n".join(lines) + '");\n\n'



def backend_class_header(functions, cls, conversions, backend):
    out = [HEADER_NOTE, "#pragma once\n\n", f'#include "middleware/{conversions}.hpp"\n', '#include "MpiInterface.hpp"\n\n',
           "namespace bxisim::mw\n{\n\n",
           f"class {cls} final : public MpiInterface, public {conversions}\n{{\n public:\n",
           f"  {cls}(void* library, int rank);\n",
           f'  const char* back_end() const override {{ return {conversions}::kName; }}\n\n']
    for f in functions:
        if f.dispatched:
            out.append(f"  {f.abi_return()} {f.name}({f.abi_parameters()}) override;\n")
    out.append("\n private:\n")
    for member in backend.get("members", []):
        out.append(f"  {member}\n")
    if backend.get("intercomms"):
        out.append("  // SmpiIntercomms.cpp: the calls on an inter-communicator\n")
        for f in functions:
            if f.name in SMPI_INTERCOMM_HANDLED:
                out.append(f"  int inter_{f.name}({f.abi_parameters()});\n")
    out.append("  /** The back end's functions, with its types. */\n  struct Functions {\n")
    for f in functions:
        if f.dispatched:
            types = ", ".join(a.backend_type() for a in f.arguments)
            out.append(f"    {f.backend_return()} (*{f.name})({types}) = nullptr;\n")
    out.append("  } fn_;\n};\n\n} // namespace bxisim::mw\n")
    return "".join(out)


def conversion_code(f, backend=None):
    """Returns (before, call arguments, after) for a function's generated back-end body."""
    before, args, after = [], [], []
    for a in f.arguments:
        n = a.name
        if backend is not None and backend.get("bottom_buffers") and f.name in ONE_SIDED_BUFFERS:
            prefix = ONE_SIDED_BUFFERS[f.name]
            if n in (f"{prefix}_addr", f"{prefix}_count", f"{prefix}_datatype"):
                if n.endswith("_addr"):
                    before.append(f"  BottomBuffer {prefix}_buffer_ = bottom_buffer({n}, {prefix}_count, {prefix}_datatype, target_rank, win);\n")
                    after.append(f"  release_bottom_buffer(&{prefix}_buffer_);\n")
                args.append(f"{prefix}_buffer_." + {"addr": "buffer", "count": "count", "datatype": "type"}[n.split("_")[1]])
                continue
        if (backend is not None and backend.get("accumulate_targets") and f.name in ACCUMULATE_FUNCTIONS
                and n in ("target_count", "target_datatype")):
            if n == "target_count":
                before.append("  const AccumulateTarget target_ = accumulate_target(target_datatype, target_count, op);\n")
            args.append("target_.count" if n == "target_count" else "target_.type")
            continue
        if a.ctype:
            bt = a.backend_type()
            if f.name in BOTTOM_FUNCTIONS and n in BOTTOM_BUFFERS and a.ctype in ("void*", "const void*"):
                args.append(f"to_be_bottom({n})")
                continue
            if n in IN_PLACE_BUFFERS and a.ctype in ("void*", "const void*"):
                args.append(f"to_be_buffer({n})")
                continue
            if (f.name, n) in FILE_DISPLACEMENTS:
                if a.ctype == "MPI_Offset":
                    args.append(f"to_be_file_disp({n})")
                else:
                    args.append(n)
                    after.append(f"  if (be_ok(result_) && {n} != nullptr)\n    *{n} = from_be_file_disp(*{n});\n")
                continue
            args.append(f"reinterpret_cast<{bt}>({n})" if bt == "void*" and a.ctype != "void*" else n)
            continue
        k = a.kind
        if k in POINTER_KINDS or k in CALLBACKS:
            args.append(f"to_be_{k}({n})")
            continue
        if (k == "op" and backend is not None and backend.get("reduction_ops") and a.direction == "in"
                and any(b.name == "datatype" for b in f.arguments) and not any(b.kind == "win" for b in f.arguments)):
            args.append(f"to_be_reduction_op({n}, datatype)")  # MPI forbids a program's operations in one-sided calls
            continue
        be = f"be_{k}" if k in HANDLES or k == "status" else "int"
        if k == "status":
            if a.length:
                before.append(f"  Scratch<be_status> s_{n}({n} != MPI_STATUSES_IGNORE ? static_cast<size_t>({a.length}) : 0);\n")
                args.append(f"{n} != MPI_STATUSES_IGNORE ? s_{n}.data() : be_statuses_ignore()")
                after.append(f"  if ({n} != MPI_STATUSES_IGNORE)\n    for (size_t i = 0; i < s_{n}.size(); ++i)\n"
                             f"      from_be_status(s_{n}[i], &{n}[i]);\n")
            elif a.direction == "in":
                before.append(f"  be_status s_{n} = to_be_status({n});\n")
                args.append(f"&s_{n}")
            else:
                if a.direction == "inout":
                    before.append(f"  be_status s_{n} = {n} != MPI_STATUS_IGNORE ? to_be_status({n}) : be_status{{}};\n")
                else:
                    before.append(f"  be_status s_{n}{{}};\n")
                args.append(f"{n} != MPI_STATUS_IGNORE ? &s_{n} : be_status_ignore()")
                if a.direction == "inout":
                    after.append(f"  if ({n} != MPI_STATUS_IGNORE)\n    from_be_status(s_{n}, {n});\n")
                else:
                    # MPI-3.1 3.2.5: only the calls returning several statuses write the error field; a
                    # single-completion call (Recv, Wait, Probe, Mrecv, ...) leaves the program's value,
                    # except in the empty status (a null or inactive request), whose error is MPI_SUCCESS (3.7.3).
                    after.append(f"  if ({n} != MPI_STATUS_IGNORE) {{\n    int error_ = {n}->MPI_ERROR;\n"
                                 f"    from_be_status(s_{n}, {n});\n"
                                 f"    bool empty_ = {n}->MPI_SOURCE == MPI_ANY_SOURCE && {n}->MPI_TAG == MPI_ANY_TAG;\n"
                                 f"    {n}->MPI_ERROR = empty_ ? MPI_SUCCESS : error_;\n  }}\n")
            continue
        if a.length:
            before.append(f"  Scratch<{be}> a_{n}({n} != nullptr ? static_cast<size_t>({a.length}) : 0);\n")
            if a.direction in ("in", "inout"):
                before.append(f"  for (size_t i = 0; i < a_{n}.size(); ++i)\n    a_{n}[i] = to_be_{k}({n}[i]);\n")
            args.append(f"{n} != nullptr ? a_{n}.data() : nullptr")
            if a.direction != "in":
                guard = "" if a.direction == "inout" else "if (be_ok(result_))\n    "
                indent = "    " if guard else ""
                if k == "request" and a.direction == "inout":  # completions: the back end may keep state per request
                    after.append(f"  for (size_t i = 0; i < a_{n}.size(); ++i) {{\n"
                                 f"    request_ended({n}[i], a_{n}[i]);\n    {n}[i] = from_be_{k}(a_{n}[i]);\n  }}\n")
                    continue
                after.append(f"  {guard}for (size_t i = 0; i < a_{n}.size(); ++i)\n"
                             f"    {indent}{n}[i] = from_be_{k}(a_{n}[i]);\n")
            continue
        if a.direction == "in":
            args.append(f"to_be_{k}({n})")
        elif a.direction == "inout":
            before.append(f"  {be} v_{n} = to_be_{k}(*{n});\n")
            args.append(f"&v_{n}")
            if k == "request":  # completions: the back end may keep state per request
                after.append(f"  request_ended(*{n}, v_{n});\n")
            after.append(f"  *{n} = from_be_{k}(v_{n});\n")
        else:
            before.append(f"  {be} v_{n}{{}};\n")
            args.append(f"&v_{n}")
            after.append(f"  if (be_ok(result_))\n    *{n} = from_be_{k}(v_{n});\n")
            if k in HANDLES:  # a failed call hands back the null handle, as the libraries do, never garbage
                after.append(f"  else if ({n} != nullptr)\n    *{n} = {HANDLES[k].upper()}_NULL;\n")
    return before, args, after


def backend_source(functions, cls, conversions, backend):
    out = [HEADER_NOTE, f'#include "{cls}.hpp"\n#include "middleware/DimsCreate.hpp"\n#include "middleware/External32.hpp"\n#include "middleware/MatchSize.hpp"\n\n', "namespace bxisim::mw\n{\n\n",
           f"{cls}::{cls}(void* library, int rank) : MpiInterface(rank), {conversions}(library)\n{{\n"]
    for f in functions:
        if f.dispatched:
            optional = "true" if f.has("optional") else "false"
            if f.name in backend["absent"]:
                continue  # never looked up: the back end's function is a stub
            out.append(f'  fn_.{f.name} = reinterpret_cast<decltype(fn_.{f.name})>(symbol("{backend["prefix"]}{f.name}", {optional}));\n')
    out.append("}\n\n")
    for f in functions:
        if not f.dispatched or f.has("custom") or f.name in backend["custom"]:
            continue
        out.append(f"{f.abi_return()} {cls}::{f.name}({f.abi_parameters()})\n{{\n")
        if f.name in WHOLE_BODIES:
            out.append(WHOLE_BODIES[f.name] + "}\n\n")
            continue
        if f.name in backend["absent"]:
            out += [f"  (void){a.name};\n" for a in f.arguments]
            # A handle the call would have made is the null handle: a program that goes on after the
            # error (MPI_ERRORS_RETURN) frees or tests it without touching memory it does not own.
            out += [f"  if ({a.name} != nullptr)\n    *{a.name} = {HANDLES[a.kind].upper()}_NULL;\n"
                    for a in f.arguments if a.direction == "out" and a.kind in HANDLES and a.length is None]
            fallback = f'missing("MPI_{f.name}")'
            if f.returns in HANDLES:
                fallback = f"({fallback}, {HANDLES[f.returns].upper()}_NULL)"
            elif f.returns != "int":
                fallback = f"({fallback}, 0)"
            out.append(f"  return {fallback};\n}}\n\n")
            continue
        if f.has("optional"):
            fallback = f'missing("MPI_{f.name}")'
            if f.returns in HANDLES:
                fallback = f"({fallback}, {HANDLES[f.returns].upper()}_NULL)"
            elif f.returns != "int":
                fallback = f"({fallback}, 0)"
            out.append(f'  if (fn_.{f.name} == nullptr)\n    return {fallback};\n')
        if backend.get("null_file_checked"):
            for a in f.arguments:
                if a.name == "fh" and a.kind == "file" and a.length is None and a.direction in ("in", "inout"):
                    null = f"{a.name} == MPI_FILE_NULL" if a.direction == "in" else \
                        f"{a.name} == nullptr || *{a.name} == MPI_FILE_NULL"
                    out.append(f"  if ({null})\n    return MPI_ERR_FILE;\n")
        out.append(backend.get("before_intercomm_check", {}).get(f.name, ""))
        out.append(intercomm_check(f, backend))
        out.append(ANSWERED_FIRST.get(f.name, ""))
        out.append(backend.get("answered_first", {}).get(f.name, ""))
        before, args, after = conversion_code(f, backend)
        after += [AFTER_SUCCESS[f.name]] if f.name in AFTER_SUCCESS else []
        after += [backend["after_success"][f.name]] if f.name in backend.get("after_success", {}) else []
        out += before
        call = f"fn_.{f.name}({', '.join(args)})"
        if f.returns == "int":
            out.append(f"  int result_ = {call};\n")
            out += after
            out.append("  return from_be_errcode(result_);\n")
        elif f.returns in HANDLES:
            out.append(f"  return from_be_{f.returns}({call});\n")
        else:
            out.append(f"  return {call};\n")
        out.append("}\n\n")
    out.append("} // namespace bxisim::mw\n")
    return "".join(out)


def write_pretend_library(functions):
    """The library configure scripts link against (BXISIM_PRETEND_CC=1): a test such as autoconf's
    AC_CHECK_FUNC([MPI_Init]) declares the function itself and links, so every name a program may
    reference must be defined; the signatures do not matter to the linker. The message a call prints is
    runtime/wrappers/PretendCalled.c's, shared with the Portals 4, PMI and bxisim functions of the library."""
    out = [HEADER_NOTE, '__attribute__((visibility("hidden"), noreturn)) void bxisim_pretend_called(const char* name);\n\n']
    for f in functions:
        for prefix in ("MPI_", "PMPI_", "bxisim_MPI_", "bxisim_PMPI_"):
            name = prefix + f.name
            out.append(f"void {name}(void);\nvoid {name}(void) {{ bxisim_pretend_called(\"{name}\"); }}\n")
    return "".join(out)


# The switching dispatch of a run whose regions change level (SwitchRank, base: middleware/LevelSwitch.hpp):
# every call goes to the back end of the rank's current level, or, for a request or matched message, to
# the back end that created it. Handles are bxisim's: a handle made by the other back end is replaced by
# its mirror in the called one (to_called), and a handle the back end hands out is replaced by the
# bxisim handle it mirrors, or recorded as made there (from_called). Functions over arrays of requests,
# and MPI_Init/MPI_Finalize, are written by hand (LevelSwitch.cpp).
SWITCH_ROUTED = {"request", "message"}
# Constructors whose handle the other back end re-creates: after a successful call, record_<Name> (written by
# hand, LevelSwitch.cpp) gets the program's arguments and the new handle.
SWITCH_RECORDED = {"Comm_dup", "Comm_split", "Comm_create", "Comm_group", "Group_incl", "Op_create", "Type_commit",
                   "Type_contiguous", "Type_vector", "Type_create_hvector", "Type_indexed", "Type_create_hindexed",
                   "Type_create_indexed_block", "Type_create_hindexed_block", "Type_create_subarray", "Type_create_darray", "Type_create_resized",
                   "Type_create_struct", "Type_dup", "Comm_create_errhandler", "Info_create", "Info_dup", "Info_set",
                   "Info_delete", "Win_create_errhandler", "File_create_errhandler", "Cart_create", "Cart_sub", "Intercomm_create", "Intercomm_merge",
                   "Comm_create_group", "Comm_dup_with_info", "Comm_split_type", "Dist_graph_create"}
# Point-to-point traffic on MPI_COMM_WORLD and the communicators made from it, which the switch follows
# to handle messages that cross a boundary (LevelSwitch.hpp): a send goes to the back end of a receive
# pending for it at the other level, or to the current one (send_route); a receive goes to the back end
# where a message sent before the boundary waits for it (receive_route).
SWITCH_SENDS = {"Send", "Ssend", "Bsend", "Rsend", "Isend", "Issend", "Ibsend", "Irsend"}
SWITCH_RECEIVES = {"Recv", "Irecv"}
# Look where a matching message sent before the boundary waits; a matched probe takes it (note_matched_probe).
SWITCH_PROBES = {"Probe", "Iprobe"}
# Persistent requests are the switch's own (LevelSwitch.hpp): each MPI_Start posts a new Isend/Irecv where
# it is routed; the calls on a request first check whether it is one of them.
SWITCH_PERSISTENT = {
    "Start": "  if (is_persistent(*request))\n    return persistent_start(request);\n",
    "Wait": "  if (is_persistent(*request))\n    return persistent_wait(request, status);\n",
    "Test": "  if (is_persistent(*request))\n    return persistent_test(request, flag, status);\n",
    "Request_free": "  if (is_persistent(*request))\n    return persistent_free(request);\n",
    "Cancel": "  if (is_persistent(*request))\n    return persistent_cancel(request);\n  note_cancel(*request);\n",
    "Request_get_status": "  if (is_persistent(request))\n    return persistent_get_status(request, flag, status);\n",
    # a reference handed out by MPI_*_get_errhandler is the program's handle: its free drops that reference
    "Errhandler_free": "  if (errhandler != nullptr && drop_errhandler_reference(*errhandler))\n    return MPI_SUCCESS;\n",
}
# Tests of one request: one that finds nothing in the other level's back end is charged the current level's poll.
SWITCH_POLLS = {"Test", "Request_get_status"}
SWITCH_CUSTOM = {"Sendrecv", "Sendrecv_replace", "Graph_create", "Dist_graph_create_adjacent", "Comm_idup", "Mprobe", "Improbe", "Mrecv", "Imrecv", "Send_init", "Bsend_init", "Ssend_init", "Rsend_init", "Recv_init",
                 "Init", "Init_thread", "Finalize", "Initialized", "Finalized", "Waitall", "Waitany", "Waitsome",
                 "Testall", "Testany", "Testsome", "Startall", "Query_thread", "Is_thread_main",
                 # keyvals and attributes are bxisim's (LevelSwitch.cpp), predefined ones asked of the back end
                 "Keyval_create", "Keyval_free", "Attr_put", "Attr_get", "Attr_delete", "Comm_create_keyval",
                 "Comm_free_keyval", "Comm_set_attr", "Comm_get_attr", "Comm_delete_attr", "Type_create_keyval",
                 "Type_free_keyval", "Type_set_attr", "Type_get_attr", "Type_delete_attr", "Win_create_keyval",
                 "Win_free_keyval", "Win_set_attr", "Win_get_attr", "Win_delete_attr",
                 # set in the current back end, and in the other one at each boundary
                 "Comm_set_errhandler"}


def switch_header(functions):
    out = [HEADER_NOTE, "#pragma once\n\n", '#include "middleware/LevelSwitch.hpp"\n\n',
           "namespace bxisim::mw\n{\n\n",
           "class SwitchRank final : public LevelSwitch\n{\n public:\n",
           "  using LevelSwitch::LevelSwitch;\n\n"]
    for f in functions:
        if f.dispatched and f.name not in SWITCH_CUSTOM:
            out.append(f"  {f.abi_return()} {f.name}({f.abi_parameters()}) override;\n")
    out.append("};\n\n} // namespace bxisim::mw\n")
    return "".join(out)


def switch_source(functions):
    out = [HEADER_NOTE, '#include "SwitchRank.hpp"\n\n#include <vector>\n\n', "namespace bxisim::mw\n{\n\n"]
    for f in functions:
        if not f.dispatched or f.name in SWITCH_CUSTOM:
            continue
        before, args, after = [], [], []
        route = "current_back_end()"
        for a in f.arguments:
            n, k = a.name, a.kind
            if k not in HANDLES:
                args.append(n)
                continue
            t = HANDLES[k]
            if k in SWITCH_ROUTED:
                if a.length:
                    raise ValueError(f"{f.name}: arrays of {k} are written by hand (SWITCH_CUSTOM)")
                if a.direction == "out":
                    args.append(n)
                    after.append(f"  if (result_ == MPI_SUCCESS)\n    note_routed(*{n}, call_.back_end());\n")
                else:
                    value = n if a.direction == "in" else f"*{n}"
                    route = f"owner_of({value})"
                    args.append(n)
                    if a.direction == "inout":
                        after.append(f"  if (result_ == MPI_SUCCESS)\n    after_routed(before_{n}, *{n});\n")
                        before.append(f"  {t} before_{n} = *{n};\n")
                continue
            if a.length:
                if a.direction == "in":
                    before.append(f"  std::vector<{t}> a_{n};\n  if ({n} != nullptr)\n"
                                  f"    for (size_t i = 0; i < static_cast<size_t>({a.length}); ++i)\n"
                                  f"      a_{n}.push_back(to_called({n}[i], call_.back_end()));\n")
                    args.append(f"{n} != nullptr ? a_{n}.data() : nullptr")
                elif a.direction == "out":
                    args.append(n)
                    after.append(f"  if (result_ == MPI_SUCCESS && {n} != nullptr)\n"
                                 f"    for (size_t i = 0; i < static_cast<size_t>({a.length}); ++i)\n"
                                 f"      {n}[i] = from_called({n}[i], call_.back_end());\n")
                else:
                    raise ValueError(f"{f.name}: inout arrays of handles are not handled")
                continue
            if k in ("win", "file") and a.direction in ("in", "inout"):
                # windows and files have no copy at the other level: their calls go to the back end that made them
                route = f"owner_of_handle({n if a.direction == 'in' else '*' + n})"
            if a.direction == "in":
                args.append(f"to_called({n}, call_.back_end())")
            elif a.direction == "inout":
                before.append(f"  {t} v_{n} = to_called(*{n}, call_.back_end());\n")
                args.append(f"&v_{n}")
                after.append(f"  if (result_ == MPI_SUCCESS)\n    *{n} = after_inout(*{n}, v_{n}, call_.back_end());\n")
            else:
                args.append(n)
                after.append(f"  if (result_ == MPI_SUCCESS)\n    *{n} = from_called(*{n}, call_.back_end());\n")
        if f.name in SWITCH_SENDS:
            route = f"send_route(dest, tag, comm, \"MPI_{f.name}\")"
        if f.name in SWITCH_PROBES:
            route = "probe_route(source, tag, comm)"
        if f.name in SWITCH_RECEIVES:
            route = "receive_route(source, tag, comm)"
            if f.name == "Irecv":
                after.append("  if (result_ == MPI_SUCCESS)\n    note_receive_request(*request, source, tag, call_.back_end());\n")
        out.append(f"{f.abi_return()} SwitchRank::{f.name}({f.abi_parameters()})\n{{\n")
        out.append(SWITCH_PERSISTENT.get(f.name, ""))
        if f.name == "Wait":
            out.append("  check_wait(*request, \"MPI_Wait\");\n")
        out.append(f"  Call call_(*this, {route});\n")
        out += before
        call = f"call_.target().{f.name}({', '.join(args)})"
        if f.name in ("Comm_get_errhandler", "Win_get_errhandler", "File_get_errhandler"):
            after.append("  if (result_ == MPI_SUCCESS)\n    note_errhandler_reference(*errhandler);\n")
        if f.name in SWITCH_RECORDED:
            names = [f"*{a.name}" if a.kind in HANDLES and a.direction != "in" else a.name for a in f.arguments]
            after.append(f"  if (result_ == MPI_SUCCESS)\n    record_{f.name}({', '.join(names)});\n")
        if f.name in SWITCH_POLLS:
            after.append("  if (result_ == MPI_SUCCESS)\n    after_poll(call_.back_end(), *flag != 0);\n")
        if f.returns == "int":
            out.append(f"  int result_ = {call};\n")
            out += after
            out.append("  return result_;\n")
        elif f.returns in SWITCH_ROUTED:
            out.append(f"  auto result_ = {call};\n  note_routed(result_, call_.back_end());\n  return result_;\n")
        elif f.returns in HANDLES:
            out.append(f"  return from_called({call}, call_.back_end());\n")
        else:
            out.append(f"  return {call};\n")
        out.append("}\n\n")
    out.append("} // namespace bxisim::mw\n")
    return "".join(out)


def main():
    list_path, output = Path(sys.argv[1]), Path(sys.argv[2])
    functions = read_list(list_path)
    files = {
        "include/bxisim_mpi_functions.h": write_functions_header(functions),
        "MpiFunctions.hpp": write_function_table(functions),
        "MpiInterface.hpp": write_interface(functions),
        "EntryPoints.cpp": write_entry_points(functions),
        "PretendMpi.c": write_pretend_library(functions),
    }
    for cls, backend in BACKENDS.items():
        files[f"{cls}.hpp"] = backend_class_header(functions, cls, backend["conversions"], backend)
        files[f"{cls}.cpp"] = backend_source(functions, cls, backend["conversions"], backend)
    files["SwitchRank.hpp"] = switch_header(functions)
    files["SwitchRank.cpp"] = switch_source(functions)
    for name, text in files.items():
        path = output / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text() != text:  # unchanged files keep their time: no rebuild
            path.write_text(text)


if __name__ == "__main__":
    main()
