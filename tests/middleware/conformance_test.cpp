// Regression tests for what MPICH's MPI test suite (test/mpi, run by benchmarks/external/run_mpich_tests.py)
// found wrong in bxisim: the same program at every level this build has (BXISIM_MPI_TEST_LEVELS), across
// nodes (--ppn 1) and inside a node (--ppn 2).

#include "MpiTestLevels.hpp"
#include "tests/runtime/RunOutput.hpp"
#include "tests/support/CommandRunner.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <sstream>
#include <tuple>

using namespace bxisim::test;
using testing::HasSubstr;
using testing::Not;

namespace
{
const std::string kPrograms = BXISIM_MW_TEST_PROGRAMS;

class Conformance : public testing::TestWithParam<std::tuple<std::string, int>> // level, ranks per node
{
 protected:
  const std::string& level() const { return std::get<0>(GetParam()); }
  int ppn() const { return std::get<1>(GetParam()); }

  CommandResult run(int ranks, const std::string& arguments, const std::string& options = "") const
  {
    return run_command("'" BXISIM_BINARY "' run -q --no-summary --level " + level() + " --no-cpu-simulation -n " +
                       std::to_string(ranks) + " --ppn " + std::to_string(ppn()) + " " + options + " " + kPrograms +
                       "/conformance " + arguments + " 2>&1");
  }
};

/** The run ended well, no check failed, and each of `ranks` ranks printed its fields (returned). */
std::map<int, Fields> expect_passed(const CommandResult& result, size_t ranks)
{
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, Not(HasSubstr("bad_"))) << result.output;
  auto fields = fields_by_rank(result.output);
  EXPECT_EQ(fields.size(), ranks) << result.output;
  return fields;
}

std::string placement_name(const testing::TestParamInfo<std::tuple<std::string, int>>& param)
{
  return std::get<0>(param.param) + "_ppn" + std::to_string(std::get<1>(param.param));
}
} // namespace

// MPICH errhan/errfatal and errhan/commcall: SMPI 3.32 calls the function of the handler it finds, and its
// predefined handlers have none, so MPI_Comm_call_errhandler on a communicator with MPI_ERRORS_RETURN (or the
// default MPI_ERRORS_ARE_FATAL) crashed the simulator with a segmentation fault.
TEST_P(Conformance, CallErrhandlerReturnsOrCallsTheProgramsHandler)
{
  auto result = run(2, "errhandler_return");
  auto fields = expect_passed(result, 2);
  for (auto& [rank, mine] : fields) {
    EXPECT_EQ(mine["ok"], "1") << "rank " << rank;
    EXPECT_EQ(mine["handler_calls"], "2") << "rank " << rank; // once per handler the program made
    EXPECT_EQ(mine["finalized"], "1") << "rank " << rank;
  }
}

TEST_P(Conformance, CallingMpiErrorsAreFatalEndsTheJob)
{
  auto result = run(2, "errhandler_fatal");
  // The job ends with the error code (MPI_ERR_OTHER, 16 in the standard ABI and in OpenMPI 4.1), as OpenMPI's
  // MPI_ERRORS_ARE_FATAL ends it; not a crash (exit code 4), and rank 1 never returns from the call.
  EXPECT_EQ(result.exit_code, 16) << result.output;
  EXPECT_THAT(result.output, Not(HasSubstr("crashed"))) << result.output;
  EXPECT_THAT(result.output, Not(HasSubstr("returned_from_fatal"))) << result.output;
  EXPECT_THAT(result.output, HasSubstr("MPI_ERRORS_ARE_FATAL")) << result.output;
}

// MPICH attr/baseattr2 and attr/baseattrcomm: MPI_HOST came back as OpenMPI's MPI_PROC_NULL (-2), and
// MPI_LASTUSEDCODE as the back end's last code (OpenMPI's 92, SMPI's 74), below the standard ABI's
// MPI_ERR_LASTCODE; the program's error codes were OpenMPI's numbers, inside the predefined range.
TEST_P(Conformance, PredefinedAttributesAndTheProgramsErrorCodesAreInBxisimsAbi)
{
  auto result = run(2, "attributes");
  auto fields = expect_passed(result, 2);
  for (auto& [rank, mine] : fields) {
    EXPECT_EQ(mine["ok"], "1") << "rank " << rank;
    // SMPI 3.32 has no MPI_Add_error_class (the call failed): bxisim's at smpi; OpenMPI 4.1.4 gave an added
    // class the class MPI_ERR_UNKNOWN: bxisim answers (MPICH errhan/adderr).
    EXPECT_EQ(mine["add_error"], "ok") << "rank " << rank;
  }
}

// Hundreds of keyvals (MPICH's attr tests): at message and cycle OpenMPI numbered the 490th or so program
// keyval 501, which bxisim passed through unchanged: the standard ABI's MPI_TAG_UB.
TEST_P(Conformance, ManyKeyvalsNeverTakeAPredefinedKeysNumber)
{
  for (auto& [rank, mine] : expect_passed(run(2, "many_keyvals"), 2)) {
    EXPECT_EQ(mine["keyvals"], "700") << "rank " << rank;
    EXPECT_EQ(mine["clashes"], "0") << "rank " << rank;
    EXPECT_EQ(mine["ok"], "1") << "rank " << rank;
  }
}

// MPICH's rma/win_shared_* inside a node at smpi: SMPI 3.32 answered MPI_Win_shared_query with the node block's start
// for every rank and sized the block as the first rank's segment times the ranks (stores landed in another rank's
// segment; unequal segments damaged the heap). Four ranks: two nodes of two at --ppn 2, four nodes of one at --ppn 1.
TEST_P(Conformance, SharedWindowSegmentsAreEachRanksAndContiguous)
{
  for (auto& [rank, mine] : expect_passed(run(4, "shared_window"), 4)) {
    EXPECT_EQ(mine["node_size"], std::get<1>(GetParam()) == 1 ? "1" : "2") << "rank " << rank;
    EXPECT_EQ(mine["shared_good"], "1") << "rank " << rank;
    EXPECT_EQ(mine["ok"], "1") << "rank " << rank;
  }
}

// MUMPS's Fortran examples ended every rank with gfortran's "Note: The following floating-point exceptions are
// signalling: IEEE_INVALID_FLAG": ranks and the simulator share one thread, whose floating-point exception flags held
// what the simulator's computations and the other ranks had raised. Each rank keeps its own flags across its calls.
TEST_P(Conformance, FloatingPointExceptionFlagsAreEachRanksOwn)
{
  for (auto& [rank, mine] : expect_passed(run(2, "fp_flags"), 2)) {
    EXPECT_EQ(mine["fp_after_calls"], "0") << "rank " << rank;
    EXPECT_EQ(mine["fp_divbyzero"], rank == 0 ? "1" : "0") << "rank " << rank;
    EXPECT_EQ(mine["ok"], "1") << "rank " << rank;
  }
}

// A rank's fesetround(FE_UPWARD) and flush-to-zero were the thread's, so every rank and the simulator's own arithmetic
// ran with them: the other ranks rounded upwards, and the simulated times of the same calls changed in their last bits.
// Each rank keeps its own control bits; the simulator keeps its own.
TEST_P(Conformance, FloatingPointControlIsEachRanksOwn)
{
  auto with_defaults = expect_passed(run(3, "fp_control keep"), 3);
  auto rank0_changes = expect_passed(run(3, "fp_control set"), 3);
  for (auto& [rank, mine] : rank0_changes) {
    EXPECT_EQ(mine["fp_upward"], rank == 0 ? "1" : "0") << "rank " << rank;
    EXPECT_EQ(mine["fp_flushes"], rank == 0 ? "1" : "0") << "rank " << rank;
    EXPECT_EQ(mine["fp_denormal_kept"], rank == 0 ? "0" : "1") << "rank " << rank;
    EXPECT_EQ(mine["fp_start"], with_defaults[rank]["fp_start"]) << "rank " << rank;
    EXPECT_EQ(mine["fp_end"], with_defaults[rank]["fp_end"]) << "rank " << rank;
    EXPECT_EQ(mine["ok"], "1") << "rank " << rank;
  }
}

// A program built with -Ofast sets flush-to-zero as it loads (crtfastmath's constructor): its ranks flush denormals as
// under mpirun, after MPI calls too (the constructor ran as the rank's code, its setting is the rank's).
TEST_P(Conformance, FastMathProgramsFlushDenormalsAsUnderMpirun)
{
  auto result =
      run_command("'" BXISIM_BINARY "' run -q --no-summary --level " + level() + " --no-cpu-simulation -n 2 --ppn " +
                  std::to_string(ppn()) + " " + kPrograms + "/fast_math 2>&1");
  for (auto& [rank, mine] : expect_passed(result, 2)) {
    EXPECT_EQ(mine["fast_flushes"], "1") << "rank " << rank;
    EXPECT_EQ(mine["fast_denormal_kept"], "0") << "rank " << rank;
    EXPECT_EQ(mine["ok"], "1") << "rank " << rank;
  }
}

// OpenCoarrays' LOCK and atomic_cas: with a thread level above MPI_THREAD_SINGLE, OpenMPI's osc/pt2pt answered a
// remote compare-and-swap with a blocking send whose wait, nested in the target's own progress, slept on a condition
// nothing would signal (mpi_patches/0008): the target's barrier never ended, at message and cycle across nodes.
TEST_P(Conformance, CompareAndSwapCompletesWhateverTheThreadLevel)
{
  for (const std::string thread_level : {"funneled", "serialized", "multiple"}) {
    auto result = run_command("'" BXISIM_BINARY "' run -q --no-summary --wall-limit 60 --level " + level() +
                              " --no-cpu-simulation -n 3 --ppn " + std::to_string(ppn()) + " " + kPrograms +
                              "/threaded_compare_and_swap " + thread_level + " 2>&1");
    if (thread_level == "multiple" && result.output.find("does not support MPI_THREAD_MULTIPLE") != std::string::npos)
      continue; // OpenMPI's osc/pt2pt refuses windows across nodes then (docs/mpi.md)
    auto fields = expect_passed(result, 3);
    // SMPI runs one actor per rank: MPI_THREAD_SERIALIZED for MPI_THREAD_MULTIPLE there (docs/mpi.md)
    bool serialized_for_multiple = level() == "smpi" && thread_level == "multiple";
    for (auto& [rank, mine] : fields) {
      EXPECT_EQ(mine["provided"], serialized_for_multiple ? "2048" : mine["wanted"])
          << thread_level << " rank " << rank;
      EXPECT_EQ(mine["tries_ok"], "1") << thread_level << " rank " << rank;
    }
    EXPECT_EQ(fields[0]["total"], "6") << thread_level << "\n" << result.output;
  }
}

// MPICH attr/fkeyval, attrend, attrend2 at smpi: SMPI 3.32 keeps attributes in its MPI_COMM_WORLD and MPI_INT,
// one object for every rank, so rank 1's MPI_Comm_dup(MPI_COMM_WORLD) copied rank 0's attributes too (6 copies
// instead of 3), the last rank's MPI_Finalize deleted every rank's, after MPI_Finalized said true; and
// MPI_Status_set_elements then MPI_Get_count gave MPI_UNDEFINED.
TEST_P(Conformance, AttributesOnWorldSelfAndPredefinedTypesAreEachRanksOwn)
{
  for (auto& [rank, mine] : expect_passed(run(2, "attributes_per_rank"), 2)) {
    // MPI_Comm_dup twice and MPI_Type_dup once copy; two communicator frees, a type free and a delete delete.
    EXPECT_EQ(mine["copies"], "3") << "rank " << rank;
    EXPECT_EQ(mine["deletes"], "4") << "rank " << rank;
    EXPECT_EQ(mine["foreign"], "0") << "rank " << rank;
    EXPECT_EQ(mine["count"], "3") << "rank " << rank;
    // MPI_COMM_SELF's first, the last set first, while MPI is up; then MPI_COMM_WORLD's
    EXPECT_EQ(mine["finalize_deletes"], "self4,self2,world3") << "rank " << rank;
    EXPECT_EQ(mine["ok"], "1") << "rank " << rank;
  }
}

// A user operation and an error handler created by every rank took a trampoline per rank from pools of 512:
// the 513th rank's MPI_Op_create ended the run. One slot per function now, each rank calling its own copy (its
// own counters). 600 ranks at smpi (cheap); at message and cycle 4 ranks check that each calls its own copy.
// What a user operation printed inside a collective at smpi went to the last rank that had run its code.
TEST_P(Conformance, UserOperationsAndErrorHandlersOfManyRanksCallEachRanksOwnCopy)
{
  const int ranks   = level() == "smpi" ? 600 : 4;
  const int nodes   = (ranks + ppn() - 1) / ppn();
  std::string large = "--platform single-switch --set platform.nodes=" + std::to_string(nodes);
  auto result       = run(ranks, "user_functions", large);
  for (auto& [rank, mine] : expect_passed(result, static_cast<size_t>(ranks))) {
    EXPECT_EQ(mine["sum"], std::to_string(ranks)) << "rank " << rank;
    EXPECT_EQ(mine["handler_calls"], "1") << "rank " << rank;
    // what the operation printed inside MPI_Allreduce is this rank's output (at smpi, other ranks ran before)
    EXPECT_EQ(mine["op_rank"], std::to_string(rank)) << "rank " << rank;
    EXPECT_EQ(mine["ok"], "1") << "rank " << rank;
  }
}

// MPICH datatype/get_elements, struct_empty_el at smpi: SMPI 3.32 has no MPI_Get_elements (the job ended).
TEST_P(Conformance, GetElementsCountsWholeAndPartialCopiesOfATypesElements)
{
  auto fields = expect_passed(run(2, "get_elements"), 2);
  // 20 bytes of {int; double[2]}: 3; 12 bytes: the int and a double, 2; 14 bytes end inside a double:
  // MPI_UNDEFINED (-1); 36 bytes of a vector of 6 ints: one copy and half the next, 9; nothing: 0
  EXPECT_EQ(fields[1]["elements"], "3,2,-1,9,0");
  // MPICH datatype/lots_of_types, getpartelm at smpi: MPI_Get_count of a part of a copy answered SMPI's
  // MPI_UNDEFINED (-333), not bxisim's
  EXPECT_EQ(fields[1]["counts"], "1,-1,-1,-1,0");
}

// HPCC's MPIRandomAccess at smpi never ended: SMPI 3.32's MPI_Test of MPI_REQUEST_NULL with MPI_STATUS_IGNORE
// left the flag unset (MPI-3.1 3.7.3: true), so its loop waited for a send it never made.
TEST_P(Conformance, CompletingANullRequestWithTheStatusIgnoredSaysDone)
{
  for (auto& [rank, mine] : expect_passed(run(2, "null_requests"), 2)) {
    EXPECT_EQ(mine["test"], "1") << "rank " << rank;
    EXPECT_EQ(mine["testany"], "1") << "rank " << rank;
    EXPECT_EQ(mine["testall"], "1") << "rank " << rank;
    EXPECT_EQ(mine["get_status"], "1") << "rank " << rank;
  }
}

// The HLRS suite's nonblocking file tests at message and cycle: MPI_Wait on an MPI_File_iwrite_at request ended
// in a reported deadlock (OpenMPI's POSIX aio ran on a glibc thread, unseen by the simulation). At smpi, SMPI
// opens no file on bxisim's platforms (docs/mpi.md).
TEST_P(Conformance, NonblockingFileReadsAndWritesComplete)
{
  if (level() == "smpi")
    GTEST_SKIP() << "SMPI 3.32 opens files only on hosts with a disk, which bxisim's platforms do not have";
  // a name in the working folder, as programs give (MPI_MODE_DELETE_ON_CLOSE removes it)
  auto result = run(2, "file_nonblocking conformance-file-" + level() + std::to_string(ppn()));
  EXPECT_THAT(result.output, Not(HasSubstr("deadlock"))) << result.output;
  for (auto& [rank, mine] : expect_passed(result, 2)) {
    EXPECT_EQ(mine["written"], "1000") << "rank " << rank;
    EXPECT_EQ(mine["wrong"], "0") << "rank " << rank;
    EXPECT_EQ(mine["pieces_wrong"], "0") << "rank " << rank;
  }
}

// The HLRS suite's file tests stop when MPI_File_open fails and hands back MPI_FILE_NULL; at smpi (which opens no
// file on bxisim's platforms) the handle was left as it was, and they wrote through it.
TEST_P(Conformance, AFailedFileOpenHandsBackTheNullFile)
{
  for (auto& [rank, mine] : expect_passed(run(2, "file_open_failure"), 2)) {
    EXPECT_EQ(mine["failed"], "1") << "rank " << rank;
    EXPECT_EQ(mine["null"], "1") << "rank " << rank;
  }
}

// MPICH io/setviewcur: MPI_DISPLACEMENT_CURRENT reached OpenMPI as bxisim's value (-1), a plain offset: the view
// of a sequential file did not start at the shared file pointer, and another file's was not refused.
TEST_P(Conformance, TheCurrentDisplacementOfAFileViewIsTranslated)
{
  if (level() == "smpi")
    GTEST_SKIP() << "SMPI 3.32 opens files only on hosts with a disk, which bxisim's platforms do not have";
  auto result = run(2, "displacement_current conformance-displacement-" + level() + std::to_string(ppn()));
  for (auto& [rank, mine] : expect_passed(result, 2)) {
    EXPECT_EQ(mine["set"], "0") << "rank " << rank;
    EXPECT_EQ(mine["displacement"], mine["expected"]) << "rank " << rank;
    EXPECT_EQ(mine["plain_refused"], "1") << "rank " << rank;
  }
}

// ompi-tests-public collective-big-count: SMPI 3.32's MPI_Iallreduce and MPI_Ialltoall with MPI_IN_PLACE sent from a
// copy freed when the call returned (8 of 65,536 ints wrong); bxisim gives them a copy kept until completion.
TEST_P(Conformance, NonblockingCollectivesInPlaceGiveTheRightData)
{
  for (auto& [rank, mine] : expect_passed(run(2, "in_place_nonblocking"), 2))
    EXPECT_EQ(mine["in_place_wrong"], "0") << "rank " << rank;
}

// HLRS and ompi-tests-public datatype tests at smpi: SMPI 3.32 computes the bounds of derived types its own way ({int,
// char} 5 bytes long, negative extents, subarrays without the array's extent), so three elements of such a type
// landed elsewhere than at the other levels, and a reduction of {double, int} structs with the program's operation
// gave wrong values and damaged the heap. bxisim gives every level OpenMPI's bounds. MPICH datatype/typename:
// predefined datatypes were named differently at each level (MPI_REAL "MPI_FLOAT" at message, MPI_2REAL "MPI_2FLOAT" at
// smpi). ScaLAPACK's BLACS: MPI_Type_match_size failed at message and cycle and was missing at smpi, and SMPI's
// MPI_Pack of a type without data crashed the simulator (a division by its size).
TEST_P(Conformance, DerivedDatatypesHaveMpisBoundsAndLayout)
{
  for (auto& [rank, mine] : expect_passed(run(2, "datatype_layout"), 2))
    EXPECT_EQ(mine["layouts_checked"], "7") << "rank " << rank;
}

// ARMCI-MPI's strided accumulates at smpi: SMPI 3.32 applies an accumulate's operation to each part of the target's
// type as it built it and stopped the simulator on MPI_LB ("Failed to apply SUM_OP to type MPI_LB": subarrays, resized
// types) or on a vector whose blocks touch ("... to type MPI_Datatype"). Several elements of such targets, a derived
// origin, MPI_Get_accumulate's old values and MPI_MAXLOC on pairs, at every level.
TEST_P(Conformance, AccumulatesIntoDerivedTargetsAddEveryElementOnce)
{
  for (auto& [rank, mine] : expect_passed(run(2, "derived_accumulates"), 2))
    EXPECT_EQ(mine["derived_accumulates_ok"], "1") << "rank " << rank;
}

// ARMCI-MPI's test_mutex_rmw at smpi, now and then a deadlock with CPU simulation on: SMPI 3.32's MPI_Win_unlock gave
// the exclusive lock up before completing the epoch's operations, so the next holder read the data as it was before.
TEST_P(Conformance, AnExclusiveLockIsTakenAfterThePreviousEpochsOperationsComplete)
{
  auto fields = expect_passed(run(3, "exclusive_lock_order"), 3);
  EXPECT_EQ(fields[2]["after_lock"], "1");
}

// OpenCoarrays' EVENT WAIT (a shared lock held) beside EVENT POST (exclusive locks) at smpi: SMPI 3.32 granted an
// exclusive lock while shared ones were held (rank 1's reads saw rank 2's put) and the first unlock reset the others'
// mode, so its mutex stayed taken (a later lock waited for ever) or was released by a rank that held none.
TEST_P(Conformance, SharedAndExclusiveLocksOfOneTargetExcludeEachOther)
{
  auto fields = expect_passed(run(4, "mixed_lock_modes"), 4);
  EXPECT_EQ(fields[1]["shared_reads_unchanged"], "1");
  EXPECT_EQ(fields[0]["own_value"], "5"); // rank 2's put, then 1 from each of the 4 ranks
  EXPECT_EQ(fields[1]["own_value"], "1"); // rank 2's addition
  EXPECT_EQ(fields[2]["own_value"], "0");
  EXPECT_EQ(fields[3]["own_value"], "0");
}

// MPI_Win_unlock in an MPI_Win_lock_all epoch and MPI_Win_unlock_all after MPI_Win_lock on every target are erroneous:
// MPI_ERR_RMA_SYNC, as OpenMPI answers, and the locks stay usable (at smpi the exclusive locks were released as shared
// ones and later locks of the target waited for ever).
TEST_P(Conformance, MismatchedUnlocksFailWithRmaSyncAndLeaveTheLocksUsable)
{
  auto fields = expect_passed(run(3, "mismatched_unlocks"), 3);
  for (auto& [rank, mine] : fields) {
    EXPECT_EQ(mine["unlock_in_lock_all"], "1") << "rank " << rank;
    EXPECT_EQ(mine["unlock_all_of_locks"], "1") << "rank " << rank;
  }
  EXPECT_EQ(fields[0]["sum"], "3");
}

// ompi-tests-public status/: a status set to more than 2^31 - 1 bytes (MPI_Status_set_elements_x) at smpi, where
// SMPI's statuses hold an int of bytes: the call failed unnoticed and MPI_Get_count answered 1.
TEST_P(Conformance, AStatusHoldsCountsBeyondAnIntOfBytes)
{
  for (auto& [rank, mine] : expect_passed(run(2, "status_big_count"), 2)) {
    EXPECT_EQ(mine["set"], "0") << "rank " << rank;
    EXPECT_EQ(mine["count"], "536870922") << "rank " << rank;
    EXPECT_EQ(mine["elements"], "536870922") << "rank " << rank;
    EXPECT_EQ(mine["huge_count_undefined"], "1") << "rank " << rank;
    EXPECT_EQ(mine["huge_elements"], "2147483648") << "rank " << rank;
    EXPECT_EQ(mine["small"], "7") << "rank " << rank;
  }
}

// ompi-tests-public: at smpi MPI_Get_processor_name named the core ("node0-core1") and MPI_COMM_TYPE_SHARED made
// communicators of one rank (SMPI sees each core as a host); MPI_Comm_get_parent ended the job (SMPI lacks it).
// MPICH comm/cmsplit_type: MPI_UNDEFINED on some ranks beside MPI_COMM_TYPE_SHARED on others hung at smpi.
TEST_P(Conformance, ProcessorNameSharedCommunicatorAndParentFollowTheNode)
{
  for (auto& [rank, mine] : expect_passed(run(2, "node_identity"), 2)) {
    EXPECT_EQ(mine["same_name"], "1") << "rank " << rank;
    EXPECT_EQ(mine["length_ok"], "1") << "rank " << rank;
    EXPECT_EQ(mine["shared"], std::to_string(ppn())) << "rank " << rank; // 2 ranks, ppn per node
    EXPECT_EQ(mine["parent_null"], "1") << "rank " << rank;
  }
}

// MPICH io tests go on after MPI_File_open failed (at smpi: no disk) and close the null handle: SMPI 3.32 used it
// unchecked and the simulator crashed; MPI says MPI_ERR_FILE.
TEST_P(Conformance, FileCallsOnTheNullFileReturnErrFile)
{
  for (auto& [rank, mine] : expect_passed(run(2, "file_null_calls"), 2)) {
    EXPECT_EQ(mine["close"], "1") << "rank " << rank;
    EXPECT_EQ(mine["size"], "1") << "rank " << rank;
    EXPECT_EQ(mine["sync"], "1") << "rank " << rank;
  }
}

// MPICH f90 datatype/typecntsf90: MPI_Type_get_contents with maxima above the envelope crashed at message and
// cycle (OpenMPI 4.1.4's bug, open-mpi/ompi#14051).
TEST_P(Conformance, TypeContentsWithLargerMaximaThanTheEnvelope)
{
  for (auto& [rank, mine] : expect_passed(run(2, "contents_large_maxima"), 2)) {
    EXPECT_EQ(mine["contents"], "3,2,5") << "rank " << rank;
    EXPECT_EQ(mine["ok"], "1") << "rank " << rank;
  }
}

// MPICH rma/linked_list_fop: loops of MPI_Iprobe that find nothing, between one-sided operations. With
// OpenMPI's cm path each MPI_Iprobe waits for its own PtlMESearch's event; after 8 of them the empty polls
// blocked the rank until a Portals change that no other rank would make (every rank was in such a loop):
// a deadlock at t=0. Both OpenMPI paths at message and cycle; SMPI's own Iprobe at smpi.
TEST_P(Conformance, IprobeLoopsThatFindNothingEnd)
{
  std::vector<std::string> paths = {""};
  if (level() != "smpi")
    paths.push_back("--pml cm");
  for (const auto& path : paths) {
    auto result = run(4, "iprobe_loop", path);
    EXPECT_THAT(result.output, Not(HasSubstr("deadlock"))) << path << "\n" << result.output;
    for (auto& [rank, mine] : expect_passed(result, 4)) {
      EXPECT_EQ(mine["iprobes"], "2000") << "rank " << rank << " " << path;
      EXPECT_EQ(mine["found"], "0") << "rank " << rank << " " << path;
      EXPECT_EQ(mine["ok"], "1") << "rank " << rank << " " << path;
    }
  }
}

// MPICH rma/linked_list_fop, mutex_bench (and _shm, _shm_ordered), linked_list_lockall, overlap_wins_cas: three
// ranks compare-and-swap a counter in rank 0's window while rank 0 waits in MPI_Barrier. OpenMPI 4.1.4's osc/pt2pt
// replied to a compare-and-swap with a blocking send while holding the window's accumulate lock; that send's
// progress processed the next compare-and-swap, which spun for the lock for ever (rank 0 blocked in PtlEQGet, the
// others polling: simulated time ran on). The limit of 50 ms of simulated time is far above a passing run's.
// osc/sm (a window of ranks of one node) named its segment in /dev/shm by node, job id and communicator id, the same
// in every run: two runs at once shared their windows (OSHMPI's tests under `make -j2 check` crashed). It is the
// run's own file now, which goes with the run.
TEST_P(Conformance, AWindowsSharedSegmentIsTheRunsOwn)
{
  for (auto& [rank, mine] : expect_passed(run(2, "window_segment"), 2)) {
    EXPECT_EQ(mine["segment"].rfind("/dev/shm", 0), std::string::npos) << "rank " << rank << ": " << mine["segment"];
    if (level() != "smpi" && ppn() == 2) { // osc/sm: both ranks on one node
      EXPECT_THAT(mine["segment"], HasSubstr("/osc_sm.")) << "rank " << rank;
    }
  }
}

TEST_P(Conformance, ConcurrentCompareAndSwapsOnOneWindowEnd)
{
  auto result = run(4, "concurrent_cas", "--sim-time-limit 0.05");
  EXPECT_THAT(result.output, Not(HasSubstr("time limit"))) << result.output;
  for (auto& [rank, mine] : expect_passed(result, 4)) {
    EXPECT_EQ(mine["expected"], "150") << "rank " << rank; // 3 ranks of 50 successful swaps
    if (level() == "smpi") // SMPI 3.32's compare-and-swap is not atomic: swaps are lost (smpirun: the same)
      EXPECT_LE(std::atoi(mine["counter"].c_str()), 150) << "rank " << rank;
    else
      EXPECT_EQ(mine["counter"], "150") << "rank " << rank;
    EXPECT_EQ(mine["ok"], "1") << "rank " << rank;
  }
}

// MPICH comm/commname, group/groupnullincl (util/mtest.c made inter-communicators, which SMPI 3.32 lacks): the call
// failed with a message whatever the error handler, the program went on with the handle it never got and SMPI
// crashed (segmentation fault) freeing it. Inter-communicators are bxisim's at smpi now: the function here is one
// SMPI and bxisim still lack.
TEST_P(Conformance, AFunctionSmpiLacksRaisesItsErrorThroughTheErrorHandler)
{
  auto returned = run(4, "unsupported_return");
  EXPECT_EQ(returned.exit_code, 0) << returned.output;
  auto fatal = run(4, "unsupported_fatal");
  EXPECT_THAT(fatal.output, Not(HasSubstr("crashed"))) << fatal.output;
  if (level() == "smpi") { // SMPI 3.32 has no MPI_File_preallocate
    for (auto& [rank, mine] : fields_by_rank(returned.output))
      EXPECT_EQ(mine["unsupported_result"], "1") << "rank " << rank; // MPI_ERR_UNSUPPORTED_OPERATION
    EXPECT_THAT(returned.output, HasSubstr("MPI_File_preallocate is not implemented by SMPI"));
    EXPECT_EQ(fatal.exit_code, 55) << fatal.output; // MPI_ERR_UNSUPPORTED_OPERATION, as a fatal handler ends
    EXPECT_THAT(fatal.output, HasSubstr("MPI_ERRORS_ARE_FATAL: the job ends")) << fatal.output;
    EXPECT_THAT(fatal.output, Not(HasSubstr("unsupported_result"))) << fatal.output;
  } else {
    for (auto& [rank, mine] : fields_by_rank(returned.output))
      EXPECT_EQ(mine["unsupported_result"], "2") << "rank " << rank; // MPI_ERR_FILE
    EXPECT_EQ(fatal.exit_code, 0) << fatal.output;
  }
}

// MPICH attr/attrerrtype: a call that fails left the program's output handle as it was, where OpenMPI and
// MPICH write the null handle; the program then freed what its uninitialised variable held, and the heap
// corruption crashed the simulator at exit (after " No Errors").
TEST_P(Conformance, AFailedCallHandsBackTheNullHandle)
{
  auto result = run(2, "failed_dup");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, Not(HasSubstr("bad_"))) << result.output;
  EXPECT_THAT(result.output, Not(HasSubstr("crashed"))) << result.output;
  for (auto& [rank, mine] : fields_by_rank(result.output)) {
    EXPECT_EQ(mine["ok"], "1") << "rank " << rank;
    EXPECT_EQ(mine["dup_failed"], "1") << "rank " << rank; // both libraries fail the dup when a copy fails
  }
}

// MPICH attr/fkeyval (one rank), comm/dupic, comm/ic1: a rank making a communicator waits in OpenMPI for
// rounds that progress without network activity; the polling rule blocked it ("deadlock" at one rank).
TEST_P(Conformance, CommunicatorsAreMadeBackToBackFromOneRankUp)
{
  for (int ranks : {1, 4}) {
    bool intercomm = level() != "smpi" && ranks > 1; // SMPI 3.32 has no inter-communicators
    auto result    = run(ranks, intercomm ? "communicators_intercomm" : "communicators");
    EXPECT_EQ(result.exit_code, 0) << result.output;
    EXPECT_THAT(result.output, Not(HasSubstr("deadlock"))) << result.output;
    EXPECT_THAT(result.output, Not(HasSubstr("bad_"))) << result.output;
    auto fields = fields_by_rank(result.output);
    ASSERT_EQ(fields.size(), static_cast<size_t>(ranks)) << result.output;
    for (auto& [rank, mine] : fields) {
      EXPECT_EQ(mine["communicators"], intercomm ? "9" : "6") << "rank " << rank;
      EXPECT_EQ(mine["ok"], "1") << "rank " << rank;
    }
  }
}

// Empty polls inside the calls that make a communicator slept (cpu.poll_delay_min doubling to _max) while OpenMPI
// agreed on the id, since that agreement progresses without Portals events: MPI_Comm_dup(MPI_COMM_SELF) took 2.3 us
// at message, 16 us with longer sleeps. OpenMPI now counts the work its progress does (mpi_patches 0007) and
// these calls block like any other wait: their times do not depend on the sleeps, and a rank alone takes none.
TEST_P(Conformance, MakingACommunicatorTakesNoTimeFromPollSleeps)
{
  auto plain = expect_passed(run(4, "communicator_times"), 4);
  auto slower =
      expect_passed(run(4, "communicator_times", "--set cpu.poll_delay_min=100ns --set cpu.poll_delay_max=5us"), 4);
  ASSERT_EQ(plain.size(), 4u);
  for (auto& [rank, mine] : plain) {
    for (const char* field : {"dup_world", "split", "dup_self", "dup_split"}) {
      ASSERT_EQ(mine.count(field), 1u) << "rank " << rank << " " << field;
      EXPECT_EQ(mine[field], slower[rank][field]) << "rank " << rank << " " << field;
    }
    EXPECT_GT(std::strtod(mine["dup_world"].c_str(), nullptr), 0.0)
        << "rank " << rank;  // its agreement is network traffic
    if (level() != "smpi") { // SMPI charges its own per-call costs
      EXPECT_EQ(mine["dup_self"], "0x0p+0") << "rank " << rank;
    }
  }
}

// MPICH init/initstat: MPI_Init_thread(MPI_THREAD_MULTIPLE) ended the job; MPI lets a library provide less
// than required and the program decide. A rank is one thread of the simulator: bxisim provides SERIALIZED.
TEST_P(Conformance, ThreadMultipleIsAnsweredWithTheLevelProvided)
{
  auto result = run(2, "thread_multiple");
  EXPECT_THAT(result.output, Not(HasSubstr("not supported"))) << result.output;
  auto fields = expect_passed(result, 2);
  for (auto& [rank, mine] : fields) {
    // SMPI 3.32 runs one actor per rank: MPI_THREAD_SERIALIZED; OpenMPI with simulated threads: MULTIPLE.
    EXPECT_EQ(mine["provided"], level() == "smpi" ? "2" : "3") << "rank " << rank;
    EXPECT_EQ(mine["ok"], "1") << "rank " << rank;
    EXPECT_EQ(mine["finalized"], "1") << "rank " << rank;
  }
}

// MPICH pt2pt/mprobe: bxisim wrote the back end's error field (MPI_SUCCESS) into the program's status after
// MPI_Mprobe, MPI_Mrecv, MPI_Recv, ...; MPI says only the calls returning several statuses write it.
TEST_P(Conformance, ASingleCompletionLeavesTheStatusErrorField)
{
  auto result = run(2, "status_error");
  auto fields = expect_passed(result, 2);
  for (auto& [rank, mine] : fields)
    EXPECT_EQ(mine["ok"], "1") << "rank " << rank;
}

// MPICH pt2pt/mprobe at smpi: SMPI 3.32 has no matched probe (the job ended). bxisim receives the probed message
// in the probe itself, so that a receive posted after it takes the next message (MPI-3.1 3.8.2).
TEST_P(Conformance, AMatchedMessageIsReceivedOnlyThroughItsHandle)
{
  auto fields = expect_passed(run(2, "matched_probes"), 2);
  EXPECT_EQ(fields[1]["matched"], "2");
}

// MPI_Type_create_f90_* at smpi: SMPI 3.32 has none (the job ended); the sizes are gfortran's kinds, as OpenMPI's.
TEST_P(Conformance, F90TypesHaveTheSizeOfTheirKind)
{
  for (auto& [rank, mine] : expect_passed(run(1, "f90_types"), 1))
    EXPECT_EQ(mine["f90_sizes"], "4,8,4,8,8") << "rank " << rank;
}

// MPICH datatype/simple_pack_external at smpi: SMPI 3.32 has no MPI_Pack_external; at message and cycle OpenMPI
// 4.1.4 unpacked the long double it had packed as garbage. bxisim's external32 at every level.
TEST_P(Conformance, External32IsBigEndianAndUnpacksBack)
{
  auto result = run(1, "pack_external");
  for (auto& [rank, mine] : expect_passed(result, 1))
    EXPECT_EQ(mine["external32"], "30") << "rank " << rank; // int 4 + double 8 + short 2 + long double 16
  EXPECT_THAT(result.output, HasSubstr("\"native\" is not one MPI defines for MPI_Pack_external")) << result.output;
}

// MPICH datatype/darray_pack, darray_cyclic at smpi: SMPI 3.32 has no MPI_Type_create_darray (the job ended).
TEST_P(Conformance, DarrayTypesHoldTheElementsEachRankOwns)
{
  for (auto& [rank, mine] : expect_passed(run(4, "darray"), 4)) // 4 rows x columns 0, 1, 4, 5 or 2, 3
    EXPECT_EQ(mine["darray_elements"], rank % 2 == 0 ? "16" : "8") << "rank " << rank;
}

// MPICH rma/wintest, win_shared at smpi: SMPI 3.32 has neither MPI_Win_test nor MPI_Win_sync (the job ended).
TEST_P(Conformance, WinTestEndsAnExposureEpochAndWinSyncSucceeds)
{
  for (auto& [rank, mine] : expect_passed(run(2, "window_test_sync"), 2))
    EXPECT_EQ(mine["window_tested"], "1") << "rank " << rank;
}

// MPICH pt2pt/mprobe (a 1 MiB MPI_Type_vector): at the OpenMPI levels the receive never ended (deadlock).
// ob1 pipelines non-contiguous data over the 32 KiB eager limit in fragments up to btl_max_send_size
// (64 KiB), and OpenMPI 4.1.4's btl/portals4 drops every fragment longer than its eager limit; bxisim
// sets btl_portals4_max_send_size to the eager limit. Vectors of 2, 33 (65 KiB) and 512 blocks.
TEST_P(Conformance, NoncontiguousMessagesOverTheEagerLimitArrive)
{
  auto result = run(2, "noncontiguous");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, Not(HasSubstr("deadlock"))) << result.output;
  EXPECT_THAT(result.output, Not(HasSubstr("bad_"))) << result.output;
  auto fields = fields_by_rank(result.output);
  ASSERT_EQ(fields.size(), 2u) << result.output;
  EXPECT_EQ(fields[1]["vectors"], "9") << result.output;
  for (auto& [rank, mine] : fields)
    EXPECT_EQ(mine["ok"], "1") << "rank " << rank;
}

// Boost.MPI's test_all: SMPI 3.32's MPI_Testall answering false completed and freed the requests it found complete
// (MPI: none is modified), and the program's copies of the handles then named freed requests (the simulator could
// crash); its MPI_Request_get_status answered true for a receive whose message had not been sent.
TEST_P(Conformance, TestallAnsweringFalseAndGetStatusLeaveTheRequestsToTheProgram)
{
  auto fields = expect_passed(run(2, "completion_queries"), 2);
  EXPECT_EQ(fields[0]["completion_queries"], "1");
  EXPECT_EQ(fields[1]["completion_queries"], "1");
}

// MPICH's pt2pt/multi_psend_derived: SMPI 3.32 lost messages of a persistent request started again at once (the
// receiver of 16 got fewer and waited for ever, under smpirun too), and the datatype freed after MPI_Send_init.
TEST_P(Conformance, PersistentRequestsStartedAgainAtOnceDeliverEveryMessage)
{
  auto fields = expect_passed(run(2, "persistent_restarts"), 2);
  EXPECT_EQ(fields[1]["persistent_received"], "16");
  EXPECT_EQ(fields[0]["persistent_exchanged"], "16");
  EXPECT_EQ(fields[1]["persistent_exchanged"], "16");
}

// Boost.MPI's scan_test: SMPI 3.32's MPI_Scan and MPI_Exscan applied an operation that does not commute to nothing
// (each rank got its own value), and so do its MPI_Iscan and MPI_Iexscan; the products of 2x2 matrices in rank order.
TEST_P(Conformance, ScansOfAnOperationThatDoesNotCommuteFollowRankOrder)
{
  auto fields = expect_passed(run(4, "ordered_scans"), 4);
  EXPECT_EQ(fields[3]["scan_corner"], "43");  // [[1,1],[1,0]] [[2,1],[1,0]] [[3,1],[1,0]] [[4,1],[1,0]]
  EXPECT_EQ(fields[3]["iscan_corner"], "43"); // MPI_Iscan's
}

// PETSc's -log_view in XML (sys_tutorials-ex3f90_xml) reduces MPI_2DOUBLE_PRECISION with MPI_MAXLOC: bxisim's OpenMPI,
// built without Fortran, had the pair types but not these operations (MPI_ERR_OP, the job ended).
TEST_P(Conformance, FortranPairTypesReduceWithMaxlocAndMinloc)
{
  auto fields = expect_passed(run(4, "fortran_pairs"), 4);
  for (auto& [rank, mine] : fields) {
    EXPECT_EQ(mine["pair_max"], "2:2") << "rank " << rank;
    EXPECT_EQ(mine["pair_min"], "0:0") << "rank " << rank; // of the equal minima of ranks 0 and 3, the lower index
  }
}

// MPICH rma/put_bottom (and pt2pt/bottom): MPI_BOTTOM is a null pointer in bxisim's ABI and (void*)-111 in SMPI
// 3.32; passed as it was, SMPI refused the buffer (MPI_ERR_BUFFER under MPI_ERRORS_ARE_FATAL: the job ended).
// ARMCI-MPI's vector gets (armci-test's aggregate get): on a rank's own window SMPI copies the data itself at its
// MPI_BOTTOM, each element 111 bytes below its place (wrong data, then a damaged heap).
TEST_P(Conformance, MpiBottomWithAbsoluteAddressesIsABuffer)
{
  auto fields = expect_passed(run(2, "bottom"), 2);
  EXPECT_EQ(fields[0]["bottom_transfers"], "1"); // MPI_Get into MPI_BOTTOM
  EXPECT_EQ(fields[1]["bottom_transfers"], "5"); // MPI_Recv, MPI_Irecv, MPI_Put's target, MPI_Bcast, MPI_Ibcast
  for (auto& [rank, mine] : fields) {
    EXPECT_EQ(mine["bottom_self_transfers"], "2") << "rank " << rank; // MPI_Put then MPI_Get, MPI_Get_accumulate
    EXPECT_EQ(mine["ok"], "1") << "rank " << rank;
  }
}

// MPICH coll/redscat2 and red_scat_block2 (`int err;` counted by their reduction operations): a program is a
// shared object loaded into the simulator, and a global it defines with the name of a symbol the simulator's
// process exports (libc's function `err`) was that symbol: the program read libc's code bytes as its error
// count (" Found 1672611104 errors") and a write crashed. bxicc links with -Bsymbolic since.
TEST_P(Conformance, TheProgramsGlobalsNamedLikeLibcFunctionsAreItsOwn)
{
  auto result = run(4, "global_names");
  EXPECT_THAT(result.output, Not(HasSubstr("crashed"))) << result.output;
  for (auto& [rank, mine] : expect_passed(result, 4)) {
    EXPECT_EQ(mine["err"], std::to_string(rank + 1)) << "rank " << rank;
    EXPECT_EQ(mine["total"], "10") << "rank " << rank; // 1 + 2 + 3 + 4
    EXPECT_EQ(mine["ok"], "1") << "rank " << rank;
  }
}

// MPICH coll/nonblocking2 and nonblocking3 on 1 rank (message, cycle): the 9th MPI_Ialltoall + MPI_Wait in a row
// deadlocked at t=0. The polling rule counted a source's empty polls across MPI calls: each wait of a 1-rank
// non-blocking collective progresses without Portals, so nine calls made nine quiet polls and the rank blocked.
TEST_P(Conformance, NonblockingCollectivesOnOneRankEnd)
{
  for (int ranks : {1, 2}) {
    auto result = run(ranks, "ialltoall_waits");
    EXPECT_THAT(result.output, Not(HasSubstr("deadlock"))) << result.output;
    for (auto& [rank, mine] : expect_passed(result, static_cast<size_t>(ranks))) {
      EXPECT_EQ(mine["ialltoall_rounds"], "20") << "rank " << rank;
      EXPECT_EQ(mine["ok"], "1") << "rank " << rank;
    }
  }
}

TEST_P(Conformance, TestingAnIdupReturnsWhileAnotherRankHasNotCalledIt)
{
  // Rank 0's MPI_Test comes before rank 1's MPI_Comm_idup, which waits for a message rank 0 sends after the test.
  for (int ranks : {1, 2, 4}) {
    auto result = run(ranks, "idup_test", "--wall-limit 60");
    EXPECT_THAT(result.output, Not(HasSubstr("deadlock"))) << result.output;
    auto fields = expect_passed(result, static_cast<size_t>(ranks));
    EXPECT_EQ(fields[0]["idup_tests_over_one"], "1") << result.output;
  }
}

INSTANTIATE_TEST_SUITE_P(Mpi, Conformance,
                         testing::Combine(testing::ValuesIn(mpi_test_levels()), testing::Values(1, 2)), placement_name);
