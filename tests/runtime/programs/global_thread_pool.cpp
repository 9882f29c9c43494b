// A thread pool that a global object's constructor starts as the program loads: a real thread (the loader runs
// constructors under its lock, where no simulated thread can start), which serves the rank's tasks. main waits for
// each task's std::future (a futex wait of rank code that the pool's real thread ends with the kernel's wake).
// Prints key=value lines.
#include <condition_variable>
#include <cstdio>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <queue>
#include <thread>

namespace
{
class Pool
{
 public:
  Pool() : worker_([this] { serve(); }) {}
  ~Pool()
  {
    {
      std::lock_guard<std::mutex> guard(mutex_);
      stopping_ = true;
    }
    ready_.notify_all();
    worker_.join();
  }
  std::future<long> submit(std::function<long()> task)
  {
    auto packaged = std::make_shared<std::packaged_task<long()>>(std::move(task));
    auto result   = packaged->get_future();
    {
      std::lock_guard<std::mutex> guard(mutex_);
      tasks_.push([packaged] { (*packaged)(); });
    }
    ready_.notify_one();
    return result;
  }

 private:
  void serve()
  {
    for (;;) {
      std::function<void()> task;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        ready_.wait(lock, [this] { return stopping_ || not tasks_.empty(); });
        if (tasks_.empty())
          return;
        task = std::move(tasks_.front());
        tasks_.pop();
      }
      task();
    }
  }
  std::mutex mutex_;
  std::condition_variable ready_;
  std::queue<std::function<void()>> tasks_;
  bool stopping_ = false;
  std::thread worker_; // last: it starts once the members above exist
};

Pool pool;
} // namespace

int main()
{
  long sum = 0;
  for (long task = 1; task <= 20; ++task)
    sum += pool.submit([task] {
                 volatile long work = 0;
                 for (long i = 0; i < 100000; ++i)
                   work = work + i % 3;
                 return task;
               })
               .get();
  std::printf("sum=%ld\n", sum);
  return 0;
}
