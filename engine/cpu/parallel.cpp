#include "engine/cpu/parallel.h"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/cpu/blas.h"

namespace q8 {

namespace {

thread_local bool inside_pool = false;

class ThreadPool {
 public:
  explicit ThreadPool(int threads) {
    for (int i = 1; i < threads; ++i) workers_.emplace_back([this, i] { work(i); });
  }
  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (auto& t : workers_) t.join();
  }
  int threads() const { return int(workers_.size()) + 1; }

  // Runs task(part) for part in [0, threads()), the caller taking part 0.
  void run(const std::function<void(int)>& task) {
    std::unique_lock<std::mutex> lock(run_mutex_);  // one loop at a time
    {
      std::lock_guard<std::mutex> guard(mutex_);
      task_ = &task;
      pending_ = int(workers_.size());
      ++generation_;
    }
    wake_.notify_all();
    inside_pool = true;
    task(0);
    inside_pool = false;
    std::unique_lock<std::mutex> wait(mutex_);
    done_.wait(wait, [this] { return pending_ == 0; });
    task_ = nullptr;
  }

 private:
  void work(int part) {
    inside_pool = true;
    uint64_t seen = 0;
    for (;;) {
      const std::function<void(int)>* task;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
        task = task_;
      }
      (*task)(part);
      std::lock_guard<std::mutex> lock(mutex_);
      if (--pending_ == 0) done_.notify_one();
    }
  }

  std::vector<std::thread> workers_;
  std::mutex mutex_, run_mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(int)>* task_ = nullptr;
  int pending_ = 0;
  uint64_t generation_ = 0;
  bool stop_ = false;
};

std::unique_ptr<ThreadPool>& pool_slot() {
  static std::unique_ptr<ThreadPool> pool;
  return pool;
}

std::mutex& pool_mutex() {
  static std::mutex m;
  return m;
}

ThreadPool& pool() {
  std::lock_guard<std::mutex> lock(pool_mutex());
  auto& slot = pool_slot();
  if (!slot) slot = std::make_unique<ThreadPool>(compute_threads());
  return *slot;
}

}  // namespace

void set_pool_threads(int threads) {
  std::lock_guard<std::mutex> lock(pool_mutex());
  pool_slot() = std::make_unique<ThreadPool>(std::max(1, threads));
}

void parallel_for(int64_t n, int64_t min_chunk, const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  if (inside_pool || n < 2 * std::max<int64_t>(min_chunk, 1)) {
    fn(0, n);
    return;
  }
  ThreadPool& p = pool();
  const int64_t parts = std::min<int64_t>(p.threads(), n / std::max<int64_t>(min_chunk, 1));
  if (parts <= 1) {
    fn(0, n);
    return;
  }
  const std::function<void(int)> task = [&](int part) {
    if (part >= parts) return;
    const int64_t begin = n * part / parts, end = n * (part + 1) / parts;
    if (begin < end) fn(begin, end);
  };
  p.run(task);
}

}  // namespace q8
