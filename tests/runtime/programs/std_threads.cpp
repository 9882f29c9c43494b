// C++'s threads in a rank (simulated threads, as pthread_create's), 2 ranks. argv[1] picks the scenario:
// - "portals": as threads.c's, with std::thread: one thread waits for the peer's Put while another Puts to the peer
//   and waits for its acknowledgement;
// - "future": std::async's result waited for with a timeout that expires, then got; a std::promise kept by a
//   std::thread after a sleep;
// - "atomic": C++20's std::atomic::wait ended by another thread's notify, std::counting_semaphore's timed acquire
//   that expires, std::latch;
// - "futex": the futex system call itself: a timed FUTEX_WAIT that expires, one that finds another value, a
//   FUTEX_WAKE that ends a thread's wait, FUTEX_WAIT_BITSET against an absolute deadline, FUTEX_CMP_REQUEUE;
// - "futex_wake_op": FUTEX_WAKE_OP, which bxisim does not simulate;
// - "timed": std::condition_variable's wait_for that expires before the rank has a thread, then one a thread's
//   notify ends; std::timed_mutex's try_lock_for that expires while main holds it, and one that gets it;
// - "thread_local": thread-local variables (an initialized int, a std::string, an object with a destructor) that
//   main and two threads set, each keeping its own across the others' runs; the threads' destructors run as they end.
// Prints key=value lines, simulated times in ns since the scenario started.
#include "deadline.h"
#include "portals_check.h"

#include <bxisim/rank.h>

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <future>
#include <latch>
#include <mutex>
#include <semaphore>
#include <string>
#include <thread>

using namespace std::chrono_literals;

namespace
{
int rank;
long long start_ns;

long long clock_ns()
{
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<long long>(t.tv_sec) * 1000000000LL + t.tv_nsec;
}

long long now_ns()
{
  return clock_ns() - start_ns;
}

void portals()
{
  ptl_handle_ni_t ni;
  ptl_handle_eq_t eq;
  ptl_process_t me = open_matching_interface(&ni, &eq);
  ptl_process_t peer;
  char key[32];
  std::snprintf(key, sizeof key, "id-%d", rank);
  bxisim_kv_put(key, &me, sizeof me);
  std::snprintf(key, sizeof key, "id-%d", 1 - rank);
  bxisim_kv_get(key, &peer, sizeof peer, nullptr);

  static uint64_t inbox, outbox;
  ptl_handle_ct_t arrived, acknowledged;
  ptl_pt_index_t pt;
  CHECK(PtlPTAlloc(ni, 0, eq, 0, &pt));
  CHECK(PtlCTAlloc(ni, &arrived));
  CHECK(PtlCTAlloc(ni, &acknowledged));
  ptl_me_t entry{};
  entry.start       = &inbox;
  entry.length      = sizeof inbox;
  entry.ct_handle   = arrived;
  entry.uid         = PTL_UID_ANY;
  entry.options     = PTL_ME_OP_PUT | PTL_ME_EVENT_CT_COMM;
  entry.match_id    = {.phys = {.nid = PTL_NID_ANY, .pid = PTL_PID_ANY}};
  entry.ignore_bits = ~0ull;
  ptl_handle_me_t handle;
  CHECK(PtlMEAppend(ni, pt, &entry, PTL_PRIORITY_LIST, nullptr, &handle));
  outbox = 100 + rank;
  ptl_md_t buffer{};
  buffer.start     = &outbox;
  buffer.length    = sizeof outbox;
  buffer.options   = PTL_MD_EVENT_CT_ACK;
  buffer.eq_handle = eq;
  buffer.ct_handle = acknowledged;
  ptl_handle_md_t md;
  CHECK(PtlMDBind(ni, &buffer, &md));
  bxisim_barrier();
  start_ns                  = clock_ns();
  long long received_at     = 0;
  long long acknowledged_at = 0;
  std::thread waiter([&] {
    ptl_ct_event_t count;
    CHECK(PtlCTWait(arrived, 1, &count));
    received_at = now_ns();
  });
  std::thread sender([&] {
    ptl_ct_event_t count;
    CHECK(PtlPut(md, 0, sizeof outbox, PTL_CT_ACK_REQ, peer, 0, 0, 0, nullptr, 0));
    CHECK(PtlCTWait(acknowledged, 1, &count));
    acknowledged_at = now_ns();
  });
  waiter.join();
  sender.join();
  std::printf("received=%llu received_at=%lld acknowledged_at=%lld joined_at=%lld\n",
              static_cast<unsigned long long>(inbox), received_at, acknowledged_at, now_ns());
  CHECK(PtlNIFini(ni));
  PtlFini();
}

void future()
{
  start_ns            = clock_ns();
  auto result         = std::async(std::launch::async, [] {
    std::this_thread::sleep_for(100us);
    return 40 + rank;
  });
  bool timed_out      = result.wait_for(20us) == std::future_status::timeout;
  long long waited_ns = now_ns();
  int value           = result.get();
  long long got_at    = now_ns();

  std::promise<std::string> promise;
  auto kept = promise.get_future();
  std::thread keeper([&] {
    std::this_thread::sleep_for(50us);
    promise.set_value("kept");
  });
  long long before = now_ns();
  std::string word = kept.get();
  long long after  = now_ns();
  keeper.join();
  std::printf("timed_out=%d waited_ns=%lld value=%d got_at=%lld promise=%s promise_after=%lld\n", timed_out ? 1 : 0,
              waited_ns, value, got_at, word.c_str(), after - before);
}

void atomic()
{
  start_ns = clock_ns();
  std::atomic<int> flag{0};
  std::thread setter([&] {
    std::this_thread::sleep_for(30us);
    flag.store(7);
    flag.notify_one();
  });
  flag.wait(0);
  long long notified_at = now_ns();
  setter.join();

  std::counting_semaphore<4> tokens(0);
  long long before  = now_ns();
  bool acquired     = tokens.try_acquire_for(25us);
  long long expired = now_ns() - before;

  std::latch done(3);
  std::thread first([&] {
    std::this_thread::sleep_for(10us);
    done.count_down();
  });
  std::thread second([&] {
    std::this_thread::sleep_for(40us);
    done.count_down();
  });
  before = now_ns();
  done.arrive_and_wait();
  long long latched = now_ns() - before;
  first.join();
  second.join();
  std::printf("value=%d notified_at=%lld acquired=%d expired_after=%lld latched_after=%lld\n", flag.load(), notified_at,
              acquired ? 1 : 0, expired, latched);
}

long futex(uint32_t* word, int operation, uint32_t value, const timespec* timeout, uint32_t* word2, uint32_t value3)
{
  return syscall(SYS_futex, word, operation, value, timeout, word2, value3);
}

const char* error_name(long code)
{
  if (code == 0)
    return "0";
  return errno == ETIMEDOUT ? "ETIMEDOUT" : errno == EAGAIN ? "EAGAIN" : errno == EINVAL ? "EINVAL" : "other";
}

void raw_futex()
{
  start_ns                        = clock_ns();
  alignas(4) static uint32_t word = 0, other = 0;
  timespec forty{0, 40000};
  long long before = now_ns();
  long code        = futex(&word, FUTEX_WAIT_PRIVATE, 0, &forty, nullptr, 0);
  std::printf("timed_wait=%s timed_wait_after=%lld\n", error_name(code), now_ns() - before);
  code = futex(&word, FUTEX_WAIT_PRIVATE, 5, nullptr, nullptr, 0);
  std::printf("other_value=%s\n", error_name(code));

  std::thread waker([] {
    std::this_thread::sleep_for(60us);
    __atomic_store_n(&word, 1, __ATOMIC_SEQ_CST);
    long woken = futex(&word, FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
    std::printf("woken=%ld\n", woken);
  });
  before = now_ns();
  code   = futex(&word, FUTEX_WAIT_PRIVATE, 0, nullptr, nullptr, 0);
  std::printf("waited=%s waited_after=%lld\n", error_name(code), now_ns() - before);
  waker.join();

  timespec deadline = deadline_in(CLOCK_MONOTONIC, 15000);
  before            = now_ns();
  code              = futex(&word, FUTEX_WAIT_BITSET_PRIVATE, 1, &deadline, nullptr, FUTEX_BITSET_MATCH_ANY);
  std::printf("deadline=%s deadline_after=%lld\n", error_name(code), now_ns() - before);
  code = futex(&word, FUTEX_WAIT_BITSET_PRIVATE, 1, nullptr, nullptr, 0);
  std::printf("empty_bitset=%s\n", error_name(code));

  // Two threads wait on `word`; one is woken, the other moved to `other`, then woken there.
  std::thread sleepers[2];
  long results[2] = {-1, -1};
  for (int i = 0; i < 2; ++i)
    sleepers[i] = std::thread([&results, i] { results[i] = futex(&word, FUTEX_WAIT_PRIVATE, 1, nullptr, nullptr, 0); });
  std::this_thread::sleep_for(5us);
  long moved    = futex(&word, FUTEX_CMP_REQUEUE_PRIVATE, 1, reinterpret_cast<const timespec*>(1), &other, 1);
  long on_word  = futex(&word, FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
  long on_other = futex(&other, FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
  for (auto& sleeper : sleepers)
    sleeper.join();
  std::printf("requeued=%ld left_on_word=%ld woken_on_other=%ld results=%ld,%ld\n", moved, on_word, on_other,
              results[0], results[1]);
}

void timed()
{
  start_ns = clock_ns();
  std::mutex mutex;
  std::condition_variable condition;
  bool ready       = false;
  long long before = now_ns();
  bool expired     = false;
  {
    std::unique_lock<std::mutex> lock(mutex);
    expired = not condition.wait_for(lock, 200us, [&] { return ready; });
  }
  long long expired_after = now_ns() - before;
  std::thread notifier([&] {
    std::this_thread::sleep_for(50us);
    {
      std::lock_guard<std::mutex> guard(mutex);
      ready = true;
    }
    condition.notify_one();
  });
  before        = now_ns();
  bool notified = false;
  {
    std::unique_lock<std::mutex> lock(mutex);
    notified = condition.wait_for(lock, 1s, [&] { return ready; });
  }
  long long notified_after = now_ns() - before;
  notifier.join();

  std::timed_mutex held;
  held.lock();
  long long lock_expired_after = -1, locked_after = -1;
  bool lock_expired = false, locked = false;
  std::thread locker([&] {
    long long start    = now_ns();
    lock_expired       = not held.try_lock_for(30us);
    lock_expired_after = now_ns() - start;
    start              = now_ns();
    locked             = held.try_lock_for(1s); // main lets it go 100 us after the first try started
    locked_after       = now_ns() - start;
    if (locked)
      held.unlock();
  });
  std::this_thread::sleep_for(100us);
  held.unlock();
  locker.join();
  std::printf("cv_expired=%d cv_expired_after=%lld cv_notified=%d cv_notified_after=%lld lock_expired=%d "
              "lock_expired_after=%lld locked=%d locked_after=%lld\n",
              expired ? 1 : 0, expired_after, notified ? 1 : 0, notified_after, lock_expired ? 1 : 0,
              lock_expired_after, locked ? 1 : 0, locked_after);
}

thread_local int plain = 5; // an initial value in the module's image
thread_local std::string name;
int constructed = 0, destroyed = 0;
struct Counted {
  int id;
  Counted() : id(++constructed) {}
  ~Counted() { ++destroyed; }
};
thread_local Counted counted;

void thread_locals()
{
  plain = 1;
  name  = "main";
  (void)counted.id;
  std::string seen[2];
  std::thread threads[2];
  for (int i = 0; i < 2; ++i)
    threads[i] = std::thread([&seen, i] {
      std::string first = std::to_string(plain) + "/" + (name.empty() ? "empty" : name);
      plain             = 10 * (i + 1);
      name              = "t" + std::to_string(i);
      int id            = counted.id;
      std::this_thread::sleep_for(std::chrono::microseconds(5 + 5 * i)); // the others run meanwhile
      seen[i] = first + "," + std::to_string(plain) + "/" + name + "/" + std::to_string(counted.id == id);
    });
  std::this_thread::sleep_for(7us);
  std::string main_between = std::to_string(plain) + "/" + name;
  for (auto& thread : threads)
    thread.join();
  std::printf("thread0=%s thread1=%s main_between=%s main_after=%d/%s constructed=%d destroyed=%d\n", seen[0].c_str(),
              seen[1].c_str(), main_between.c_str(), plain, name.c_str(), constructed, destroyed);
}

void futex_wake_op()
{
  alignas(4) static uint32_t word = 0, other = 0;
  futex(&word, FUTEX_WAKE_OP_PRIVATE, 1, reinterpret_cast<const timespec*>(1), &other,
        FUTEX_OP(FUTEX_OP_SET, 1, FUTEX_OP_CMP_EQ, 0));
  std::printf("not reached\n");
}
} // namespace

int main(int argc, char** argv)
{
  rank                 = bxisim_rank();
  std::string scenario = argc > 1 ? argv[1] : "";
  if (scenario == "portals")
    portals();
  else if (scenario == "future")
    future();
  else if (scenario == "atomic")
    atomic();
  else if (scenario == "futex")
    raw_futex();
  else if (scenario == "futex_wake_op")
    futex_wake_op();
  else if (scenario == "thread_local")
    thread_locals();
  else if (scenario == "timed")
    timed();
  else {
    std::fprintf(stderr, "unknown scenario '%s'\n", scenario.c_str());
    return 2;
  }
  return 0;
}
