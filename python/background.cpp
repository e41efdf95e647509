#include "python/background.h"

#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>

namespace q8::python {

Progress Background::progress(int64_t total) {
  total_ = total;
  Progress p(what_, total, true);
  p.set_listener([this](int64_t done, int64_t all) { done_ = done, total_ = all; });
  return p;
}

void Background::run(const std::function<void()>& work) {
  std::mutex mutex;
  std::condition_variable finished_cv;
  bool finished = false;
  std::exception_ptr error;
  std::thread worker([&] {
    try {
      work();
    } catch (...) {
      error = std::current_exception();
    }
    std::lock_guard<std::mutex> lock(mutex);
    finished = true;
    finished_cv.notify_all();
  });
  // A Python exception raised on this thread meanwhile (Ctrl-C's KeyboardInterrupt, or the
  // progress callable's own): it stops the work, which is waited for, and is raised after.
  std::optional<py::error_already_set> raised;
  int64_t shown = -1;
  for (bool done = false; !done;) {
    {
      py::gil_scoped_release release;
      std::unique_lock<std::mutex> lock(mutex);
      done = finished_cv.wait_for(lock, std::chrono::milliseconds(100), [&] { return finished; });
    }
    if (raised) continue;
    try {
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
      const int64_t now = done_;
      if (!progress_.is_none() && now != shown) {
        shown = now;
        progress_(now, int64_t(total_), what_);
      }
    } catch (py::error_already_set& e) {
      interrupt_ = true;
      raised.emplace(std::move(e));
    }
  }
  {
    py::gil_scoped_release release;
    worker.join();
  }
  if (error) std::rethrow_exception(error);
  if (raised) throw std::move(*raised);
}

}  // namespace q8::python
