// Threads a rank's own code creates run as simulated threads of the rank (runtime/os/ThreadInterposition.hpp):
// programs/threads.c, std_threads.cpp and library_thread.c on two ranks, on two nodes (--ppn 1) and on one (--ppn 2),
// at both NIC levels, without CPU simulation so that times are exact.

#include "RunOutput.hpp"
#include "tests/support/CommandRunner.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <tuple>

using namespace bxisim::test;
using testing::HasSubstr;
using testing::Not;

namespace
{

class Threads : public testing::TestWithParam<std::tuple<std::string, int>>
{
 protected:
  CommandResult run(const std::string& program, const std::string& scenario)
  {
    return run_bxisim("run -n 2 --ppn " + std::to_string(std::get<1>(GetParam())) + " --level " +
                      std::get<0>(GetParam()) + " --platform single-switch --no-cpu-simulation " +
                      test_program(program) + " " + scenario);
  }
  std::map<int, Fields> fields(const std::string& scenario)
  {
    auto result = run("threads", scenario);
    EXPECT_EQ(result.exit_code, 0) << result.output;
    return fields_by_rank(result.output);
  }
  bool across_nodes() const { return std::get<1>(GetParam()) == 1; }
};

// One thread of each rank waits for the peer's Put while another Puts to the peer and waits for its
// acknowledgement: both block in the same process at once, each woken by its own event, at the model's times.
TEST_P(Threads, TwoThreadsOfARankWaitOnPortalsAtOnce)
{
  auto ranks = fields("portals");
  for (int rank : {0, 1}) {
    EXPECT_EQ(number(ranks[rank], "received"), 101 - rank);
    double received = number(ranks[rank], "received_at"), acknowledged = number(ranks[rank], "acknowledged_at");
    EXPECT_GT(received, 0);
    EXPECT_GT(acknowledged, 0);
    EXPECT_EQ(number(ranks[rank], "joined_at"), std::max(received, acknowledged));
    if (across_nodes()) { // a Put's one-way latency, then its acknowledgement's way back
      EXPECT_LT(received, acknowledged);
    }
  }
  EXPECT_EQ(fields("portals"), ranks); // the same run twice: the same times
}

// PtlAbort from the main thread ends the waits of its other threads (the reference suite's test_abort_*).
TEST_P(Threads, PtlAbortEndsTheWaitsOfTheOtherThreads)
{
  auto ranks = fields("abort");
  for (int rank : {0, 1}) {
    EXPECT_EQ(ranks[rank]["ct_wait"], "PTL_ABORTED");
    EXPECT_EQ(ranks[rank]["eq_wait"], "PTL_ABORTED");
    EXPECT_EQ(number(ranks[rank], "joined_at"), 1000000); // the 1 ms main slept before PtlAbort
  }
}

// A mutex held across a sleep is waited for in simulated time, a condition wakes its waiter when signalled,
// a timed wait expires at its simulated deadline; pthread_self, pthread_exit's value, detached threads, and
// thread-specific data of the thread's own (the rank's threads share one real thread).
TEST_P(Threads, MutexesConditionsAndThreadIdentitiesInSimulatedTime)
{
  auto ranks = fields("sync");
  for (int rank : {0, 1}) {
    double locked = number(ranks[rank], "locked_at");
    EXPECT_GE(locked, 100000); // the holder slept 100 us with it
    EXPECT_LT(locked, 101000); // polled as a spinning CPU would: at most 1 us late
    EXPECT_NEAR(number(ranks[rank], "woken_at"), locked + 500000, 100); // main slept 500 us, then signalled
    EXPECT_EQ(ranks[rank]["timed_wait"], "ETIMEDOUT");
    EXPECT_EQ(number(ranks[rank], "timed_out_after"), 200000);
    EXPECT_EQ(number(ranks[rank], "exit_value"), 42); // its own id, not main's
    EXPECT_EQ(number(ranks[rank], "detached_done"), 1);
    EXPECT_EQ(number(ranks[rank], "own_values"), 2);           // none at its start, then its own
    EXPECT_EQ(number(ranks[rank], "main_value_kept"), 1);      // main's value is not the thread's
    EXPECT_EQ(number(ranks[rank], "own_destructor_calls"), 1); // the thread's value, as it ended
  }
}

// A pthread_once whose init routine sleeps: the callers that find it under way wait for it in simulated time (the
// C library's waiter slept in the kernel, the simulator's one thread with it: the run hung); one that calls it again
// from its own init routine is told, not hung.
TEST_P(Threads, PthreadOnceWaitsInSimulatedTime)
{
  auto ranks = fields("once");
  for (int rank : {0, 1}) {
    EXPECT_EQ(number(ranks[rank], "inits"), 1);
    for (const char* caller : {"main_returned_at", "first_returned_at", "second_returned_at"}) {
      EXPECT_GE(number(ranks[rank], caller), 100000) << caller; // the init slept 100 us
      EXPECT_LT(number(ranks[rank], caller), 101000) << caller; // polled: at most 1 us late
    }
  }
  auto again = run("threads", "once_again");
  EXPECT_EQ(again.exit_code, 6) << again.output;
  EXPECT_THAT(again.output, HasSubstr("has waited a simulated second in pthread_once")) << again.output;
}

// A spin lock held across a sleep is waited for in simulated time (the C library spun in its own code, where bxisim
// never pauses a rank: the holder never ran again, the run hung); locking it twice is told, not hung.
TEST_P(Threads, SpinLocksWaitInSimulatedTime)
{
  auto ranks = fields("spin");
  for (int rank : {0, 1}) {
    EXPECT_EQ(number(ranks[rank], "spin_busy"), 1);
    EXPECT_GE(number(ranks[rank], "spin_locked_at"), 100000); // the holder slept 100 us with it
    EXPECT_LT(number(ranks[rank], "spin_locked_at"), 101000); // polled: at most 1 us late
  }
  auto again = run("threads", "spin_again");
  EXPECT_EQ(again.exit_code, 6) << again.output;
  EXPECT_THAT(again.output, HasSubstr("has waited a simulated second for a spin lock")) << again.output;
}

// C11's threads act as POSIX ones (the C library builds them on its own pthread functions, which bxisim did not see:
// they were real threads, their sleeps real, their Portals calls refused, their tss values the simulator's thread's).
TEST_P(Threads, C11ThreadsMutexesConditionsAndStorageInSimulatedTime)
{
  auto result = run("c11_threads", "");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  auto ranks = fields_by_rank(result.output);
  for (int rank : {0, 1}) {
    EXPECT_EQ(number(ranks[rank], "busy"), 1);
    double locked = number(ranks[rank], "locked_at");
    EXPECT_GE(locked, 100000);                                    // the holder slept 100 us with it
    EXPECT_LT(locked, 101000);                                    // polled as a spinning CPU would: at most 1 us late
    EXPECT_NEAR(number(ranks[rank], "woken_after"), 500000, 100); // main slept 500 us, then signalled
    EXPECT_EQ(number(ranks[rank], "timed_out"), 1);
    EXPECT_EQ(number(ranks[rank], "timed_out_after"), 200000);
    EXPECT_EQ(number(ranks[rank], "exit_value"), 42);
    EXPECT_EQ(number(ranks[rank], "own_values"), 2); // none at its start, then its own
    EXPECT_EQ(number(ranks[rank], "main_value_kept"), 1);
    EXPECT_EQ(number(ranks[rank], "destructor_calls"), 1);
    EXPECT_EQ(number(ranks[rank], "distinct"), 1);
    EXPECT_EQ(number(ranks[rank], "detached_done"), 1);
    EXPECT_EQ(number(ranks[rank], "received"), 101 - rank);
    EXPECT_EQ(number(ranks[rank], "results"), 78);
    double received = number(ranks[rank], "received_after"), acknowledged = number(ranks[rank], "acknowledged_after");
    EXPECT_GT(received, 0);
    EXPECT_GT(acknowledged, 0);
    EXPECT_EQ(number(ranks[rank], "joined_after"), std::max(received, acknowledged));
  }
  EXPECT_EQ(fields_by_rank(run("c11_threads", "").output), ranks); // the same run twice: the same times
}

// A barrier lets its threads go when the last arrives; a semaphore's wait ends when it is posted, its timed
// wait at the simulated deadline.
TEST_P(Threads, BarriersAndSemaphoresInSimulatedTime)
{
  auto ranks = fields("meet");
  for (int rank : {0, 1}) {
    double last = number(ranks[rank], "second_left_after"); // it arrived 300 us late
    EXPECT_GE(last, 300000);
    EXPECT_LT(last, 300100);
    EXPECT_EQ(number(ranks[rank], "first_left_after"), last);
    EXPECT_NEAR(number(ranks[rank], "main_left_after"), last, 20); // one clock read apart at most
    EXPECT_EQ(number(ranks[rank], "main_serial"), 0);              // the last to arrive is the serial one
    EXPECT_EQ(number(ranks[rank], "empty"), 1);
    EXPECT_NEAR(number(ranks[rank], "posted_after"), 50000, 20);
    EXPECT_EQ(number(ranks[rank], "timed_out"), 1);
    EXPECT_EQ(number(ranks[rank], "timed_out_after"), 20000);
  }
}

// A read-write lock held for writing across a sleep keeps both readers waiting, in simulated time; they then hold it
// together, and a writer waits for the second to leave; a try finds it taken, a timed wait expires at its deadline, a
// writer asking again for its own write lock gets EDEADLK. Before, the rank's threads share one thread id, and the C
// library took the second thread's request for the first's: EDEADLK at once (readers), or the run hung.
TEST_P(Threads, ReadWriteLocksInSimulatedTime)
{
  auto ranks = fields("rwlock");
  for (int rank : {0, 1}) {
    double written = number(ranks[rank], "written_at");
    EXPECT_EQ(ranks[rank]["trywrlock"], "EBUSY");
    EXPECT_EQ(ranks[rank]["wrlock_again"], "EDEADLK");
    for (const char* reader : {"read_at", "second_read_at"}) {
      EXPECT_GE(number(ranks[rank], reader), written + 300000) << reader; // main held it 300 us
      EXPECT_LT(number(ranks[rank], reader), written + 301000) << reader; // polled: at most 1 us late
    }
    double again = number(ranks[rank], "written_again_after"); // the second reader leaves 200 us after it read
    EXPECT_GE(again, 190000);
    EXPECT_LT(again, 201000);
    EXPECT_EQ(ranks[rank]["timedwrlock"], "ETIMEDOUT");
    EXPECT_NEAR(number(ranks[rank], "timed_out_after"), 50000, 1000);
    EXPECT_EQ(number(ranks[rank], "readers"), 3);
  }
}

TEST_P(Threads, AnExceptionLeavingAThreadIsARankCrash)
{
  auto result = run("thread_throws", "");
  EXPECT_EQ(result.exit_code, 4) << result.output;
  EXPECT_THAT(result.output, HasSubstr("bxisim: rank 0 crashed (an uncaught C++ exception, nobody catches this, left "
                                       "a thread it created)"));
  EXPECT_THAT(result.output, HasSubstr("Catch it in the thread's function"));
}

// exit() from a thread the rank created ended the run with exit code 6 ("bxisim ends a rank's process from its main
// thread only"); it ends the rank as a process: exit handlers, the thread's code, main and the other threads stopped.
TEST_P(Threads, ExitFromAThreadEndsTheRankWithItsCode)
{
  for (const char* main_waits : {"join", "sleep"}) {
    auto result = run("thread_exit", main_waits);
    SCOPED_TRACE(main_waits);
    EXPECT_EQ(result.exit_code, 3) << result.output; // the first rank that exited non-zero, as mpirun
    EXPECT_THAT(result.output, HasSubstr("rank 0: exit code 3 at 0.000010000 s; rank 1: exit code 4 at 0.000010000 s"));
    auto ranks = fields_by_rank(result.output);
    for (int rank : {0, 1}) {
      EXPECT_EQ(number(ranks[rank], "exit_handler_at"), 10e-6) << result.output;
      EXPECT_EQ(ranks[rank].count("main_went_on"), 0U) << result.output;
      EXPECT_EQ(ranks[rank].count("other_thread_woke"), 0U) << result.output;
    }
    EXPECT_THAT(result.output, Not(HasSubstr("crashed")));
  }
}

TEST_P(Threads, APortalsCallFromALibrarysThreadIsRefusedClearly)
{
  auto result = run("library_thread", "");
  EXPECT_EQ(result.exit_code, 6) << result.output;
  EXPECT_THAT(result.output, HasSubstr("called a Portals function from thread "));
  EXPECT_THAT(result.output, HasSubstr("a thread that a library created for it"));
  EXPECT_THAT(result.output, HasSubstr("the threads the program creates (pthread_create, std::thread"));
}

// The same call made late, in real time, while the rank's main thread waits for what it would bring: the simulation
// has deadlocked by then (PRK's MPI+OpenMP pipeline: an OpenMP thread's MPI_Send, which the neighbour waits for). The
// deadlock was reported, then the thread faulted as the run ended ("the simulator crashed", exit code 4); now the
// library's running threads get their time, and the refusal is what the run says.
TEST_P(Threads, ALateCallFromALibrarysThreadIsRefusedRatherThanADeadlock)
{
  auto result = run("library_thread", "late");
  EXPECT_EQ(result.exit_code, 6) << result.output;
  EXPECT_THAT(result.output, HasSubstr("called a Portals function from thread "));
  EXPECT_THAT(result.output, Not(HasSubstr("deadlock at simulated time")));
  EXPECT_THAT(result.output, Not(HasSubstr("crashed")));
}

// A library's thread that spins for ever on the rank's memory while the rank waits: a deadlock (exit code 3) that
// names the ranks with such threads, and no crash report when the thread faults as the ranks' memory goes.
TEST_P(Threads, ADeadlockWithALibrarysThreadStillRunningNamesItAndIsNoCrash)
{
  auto result = run("library_thread", "spin");
  EXPECT_EQ(result.exit_code, 3) << result.output;
  EXPECT_THAT(result.output, HasSubstr("deadlock at simulated time"));
  EXPECT_THAT(result.output, HasSubstr("bxisim: ranks 0-1 have threads that a library created (an OpenMP team)"));
  EXPECT_THAT(result.output, Not(HasSubstr("crashed")));
}

// std::thread starts its threads from libstdc++, not from the program's code: they were real threads outside the
// simulation (a Portals call ended the run). They are simulated threads now, with the times of pthread_create's.
TEST_P(Threads, CppThreadsAreSimulatedThreadsWithTheTimesOfPthreads)
{
  auto cpp = run("std_threads", "portals");
  ASSERT_EQ(cpp.exit_code, 0) << cpp.output;
  auto ranks = fields_by_rank(cpp.output);
  EXPECT_EQ(ranks, fields("portals")) << cpp.output;
  EXPECT_EQ(ranks[0]["received"], "101");
  EXPECT_EQ(ranks[1]["received"], "100");
}

// std::future, std::promise, std::atomic::wait, std::counting_semaphore and std::latch wait with futex system calls
// that libstdc++ makes through syscall(): in simulated time (a real wait put the simulator's only thread to sleep).
TEST_P(Threads, CppFuturesAtomicWaitsAndSemaphoresInSimulatedTime)
{
  auto future = run("std_threads", "future");
  ASSERT_EQ(future.exit_code, 0) << future.output;
  auto atomic = run("std_threads", "atomic");
  ASSERT_EQ(atomic.exit_code, 0) << atomic.output;
  auto futures = fields_by_rank(future.output), atomics = fields_by_rank(atomic.output);
  for (int rank : {0, 1}) {
    EXPECT_EQ(futures[rank]["timed_out"], "1");
    EXPECT_EQ(number(futures[rank], "waited_ns"), 20000); // wait_for(20us) on a result the thread gives at 100 us
    EXPECT_EQ(number(futures[rank], "value"), 40 + rank);
    EXPECT_EQ(number(futures[rank], "got_at"), 100000);
    EXPECT_EQ(futures[rank]["promise"], "kept");
    EXPECT_EQ(number(futures[rank], "promise_after"), 50000);
    EXPECT_EQ(number(atomics[rank], "value"), 7);
    EXPECT_EQ(number(atomics[rank], "notified_at"), 30000);
    EXPECT_EQ(atomics[rank]["acquired"], "0");
    EXPECT_EQ(number(atomics[rank], "expired_after"), 25000);
    EXPECT_EQ(number(atomics[rank], "latched_after"), 40000); // the last of three counted down at 40 us
  }
}

// glibc's non-portable joins and the clock-choosing semaphore wait: they waited in real time (or not at all).
TEST_P(Threads, TimedJoinsAndClockWaitsInSimulatedTime)
{
  auto ranks = fields("timedjoin");
  for (int rank : {0, 1}) {
    EXPECT_EQ(ranks[rank]["tryjoin"], "EBUSY");
    EXPECT_EQ(ranks[rank]["timedjoin"], "ETIMEDOUT");
    EXPECT_EQ(number(ranks[rank], "timed_out_at"), 20000);
    EXPECT_EQ(ranks[rank]["clockjoin"], "0");
    EXPECT_EQ(number(ranks[rank], "joined_at"), 50000);
    EXPECT_EQ(ranks[rank]["value"], "7");
    EXPECT_EQ(ranks[rank]["sem_clockwait"], "ETIMEDOUT");
    EXPECT_EQ(number(ranks[rank], "sem_waited"), 15000);
  }
}

// std::condition_variable's wait_for and std::timed_mutex's try_lock_for call pthread_cond_clockwait and
// pthread_mutex_clocklock, which waited in real time with the simulated clock standing still (a notify from a thread
// of the rank never came: the run hung). A wait_for before the rank has a thread is a sleep to its deadline.
TEST_P(Threads, CppTimedWaitsAndTimedMutexesInSimulatedTime)
{
  auto result = run("std_threads", "timed");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  auto ranks = fields_by_rank(result.output);
  for (int rank : {0, 1}) {
    EXPECT_EQ(ranks[rank]["cv_expired"], "1");
    EXPECT_EQ(number(ranks[rank], "cv_expired_after"), 200000);
    EXPECT_EQ(ranks[rank]["cv_notified"], "1");
    EXPECT_EQ(number(ranks[rank], "cv_notified_after"), 50000);
    EXPECT_EQ(ranks[rank]["lock_expired"], "1");
    EXPECT_EQ(number(ranks[rank], "lock_expired_after"), 30000);
    EXPECT_EQ(ranks[rank]["locked"], "1");
    EXPECT_GE(number(ranks[rank], "locked_after"), 70000); // main let it go 100 us after the first try began
    EXPECT_LT(number(ranks[rank], "locked_after"), 71000); // polled: at most 1 us late
  }
}

// The futex system call itself, between a rank's threads: timed waits (relative, and absolute with a bit set), a
// value that changed, a wake that ends another thread's wait, a requeue; an operation bxisim does not simulate ends
// the run with a message.
TEST_P(Threads, FutexSystemCallsInSimulatedTime)
{
  auto result = run("std_threads", "futex");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  auto ranks = fields_by_rank(result.output);
  for (int rank : {0, 1}) {
    EXPECT_EQ(ranks[rank]["timed_wait"], "ETIMEDOUT");
    EXPECT_EQ(number(ranks[rank], "timed_wait_after"), 40000);
    EXPECT_EQ(ranks[rank]["other_value"], "EAGAIN");
    EXPECT_EQ(ranks[rank]["waited"], "0");
    EXPECT_EQ(number(ranks[rank], "waited_after"), 60000);
    EXPECT_EQ(ranks[rank]["woken"], "1");
    EXPECT_EQ(ranks[rank]["deadline"], "ETIMEDOUT");
    EXPECT_EQ(number(ranks[rank], "deadline_after"), 15000);
    EXPECT_EQ(ranks[rank]["empty_bitset"], "EINVAL");
    EXPECT_EQ(ranks[rank]["requeued"], "2"); // one woken, one moved
    EXPECT_EQ(ranks[rank]["left_on_word"], "0");
    EXPECT_EQ(ranks[rank]["woken_on_other"], "1");
    EXPECT_EQ(ranks[rank]["results"], "0,0");
  }
  auto refused = run("std_threads", "futex_wake_op");
  EXPECT_EQ(refused.exit_code, 6) << refused.output;
  EXPECT_THAT(refused.output, HasSubstr("made a futex system call of operation 5 (futex(2)), which bxisim does not "
                                        "simulate between a rank's threads"));
  EXPECT_THAT(refused.output, Not(HasSubstr("not reached")));
}

// A rank's threads share the simulator's real thread: its thread_local variables were one instance for all (a
// thread's write was main's). Each thread now keeps its own, from the initial values on; the destructors of a thread's
// objects run as it ends.
TEST_P(Threads, EachThreadHasItsOwnThreadLocalVariables)
{
  auto result = run("std_threads", "thread_local");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  auto ranks = fields_by_rank(result.output);
  for (int rank : {0, 1}) {
    EXPECT_EQ(ranks[rank]["thread0"], "5/empty,10/t0/1") << result.output;
    EXPECT_EQ(ranks[rank]["thread1"], "5/empty,20/t1/1");
    EXPECT_EQ(ranks[rank]["main_between"], "1/main");
    EXPECT_EQ(ranks[rank]["main_after"], "1/main");
    EXPECT_EQ(ranks[rank]["constructed"], "3"); // main's and each thread's
    EXPECT_EQ(ranks[rank]["destroyed"], "2");   // the threads', as they ended; main's at its own end
  }
}

// A function-local static that a rank's main thread and its OpenMP team's thread (a real thread) reach at once: the
// second waits on libstdc++'s guard, a futex through syscall(), which bxisim simulates for rank code. A real thread's
// wake reaches the kernel only, and a rank's wake bxisim only: the main thread waited for ever (a deadlock), or the
// team's thread did, and main with it at the region's end (the watchdog). Both orders now end, either way round.
TEST(LibraryThreads, ShareFutexWordsWithRankCodeEitherWayRound)
{
  for (const char* first : {"team_first", "main_first"}) {
    auto result = run_bxisim(std::string("run -n 2 --no-cpu-simulation --wall-limit 60 ") +
                             test_program("openmp_static_guard") + " " + first);
    ASSERT_EQ(result.exit_code, 0) << first << "\n" << result.output;
    auto ranks = fields_by_rank(result.output);
    for (int rank : {0, 1}) {
      EXPECT_EQ(ranks[rank]["main"], "49") << first;
      EXPECT_EQ(ranks[rank]["team"], "49") << first;
    }
  }
}

// A global object's thread pool, started as the program loads (a real thread), serves the rank's tasks: main waits
// for each task's std::future on a futex that the pool's thread wakes in real time.
TEST(LibraryThreads, AGlobalObjectsThreadPoolServesTheRanksFutures)
{
  for (const char* cpu : {"--no-cpu-simulation", ""}) {
    auto result = run_bxisim(std::string("run -n 2 --wall-limit 60 ") + cpu + " " + test_program("global_thread_pool"));
    ASSERT_EQ(result.exit_code, 0) << cpu << "\n" << result.output;
    auto ranks = fields_by_rank(result.output);
    EXPECT_EQ(ranks[0]["sum"], "210") << cpu;
    EXPECT_EQ(ranks[1]["sum"], "210") << cpu;
  }
}

// All ranks run on one real thread: a rank pinning its main thread (PT-Scotch's threadContextInit) pinned the
// simulator, and the ranks after it read one core and sized their thread pools from it. Each thread of a rank has its
// own mask, which starts as the process's (a new thread: its creator's) and never reaches the real thread.
TEST_P(Threads, EachThreadOfARankHasItsOwnCpuMask)
{
  auto result = run_bxisim("run -n 3 --ppn " + std::to_string(std::get<1>(GetParam())) + " --level " +
                           std::get<0>(GetParam()) + " --no-cpu-simulation -q " + test_program("affinity"));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  auto ranks = fields_by_rank(result.output);
  ASSERT_EQ(ranks.size(), 3u) << result.output;
  for (auto& [rank, values] : ranks) {
    EXPECT_EQ(values["same_for_all"], "1") << "rank " << rank;
    EXPECT_GE(number(values, "before"), 1) << "rank " << rank;
    EXPECT_EQ(values["after"], "1") << "rank " << rank;
    EXPECT_EQ(values["inherited"], "1") << "rank " << rank;
    EXPECT_EQ(values["empty_refused"], "1") << "rank " << rank;
  }
}

// A thread that spins on "lock; read; unlock" until another of its rank's threads has run (PT-Scotch's
// threadContextExit) never entered the simulator, so the other never ran: the spin ended only by preemption (1 s of
// wall time per spin, and never at smpi). Without preemption it must end at once: the spinning thread polls as a
// lock waiter does (10 ns), and its worker, which waited for the lock in simulated time, runs.
TEST_P(Threads, ASpinOnALockLetsTheOtherThreadsRun)
{
  for (const std::string& level : {std::get<0>(GetParam()), std::string("smpi")}) {
    auto result = run_bxisim("run -n 2 --ppn " + std::to_string(std::get<1>(GetParam())) + " --level " + level +
                             " --no-cpu-simulation --preempt-after 0 --wall-limit 30 -q " + test_program("lock_spin"));
    ASSERT_EQ(result.exit_code, 0) << level << "\n" << result.output;
    auto ranks = fields_by_rank(result.output);
    ASSERT_EQ(ranks.size(), 2u) << result.output;
    for (auto& [rank, values] : ranks)
      EXPECT_LT(number(values, "spin"), 1e-7) << level << " rank " << rank;
  }
}

INSTANTIATE_TEST_SUITE_P(EachNicLevelAcrossNodesAndInsideANode, Threads,
                         testing::Combine(testing::Values("message", "cycle"), testing::Values(1, 2)),
                         [](const testing::TestParamInfo<std::tuple<std::string, int>>& param) {
                           return std::get<0>(param.param) + "_ppn" + std::to_string(std::get<1>(param.param));
                         });

} // namespace
