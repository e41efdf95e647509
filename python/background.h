// Long work from Python: it runs on a thread of its own with the GIL released, while the caller's
// thread waits. Every tenth of a second the caller's thread takes the GIL back, checks for Ctrl-C
// (which sets `interrupt`: the work stops between batches, and KeyboardInterrupt is raised when
// it has) and hands the progress to a Python callable (done, total, what) that draws it.
#pragma once

#include <atomic>
#include <functional>
#include <string>

#include <pybind11/pybind11.h>

#include "datasets/progress.h"

namespace q8::python {

namespace py = pybind11;

class Background {
 public:
  // progress: a callable (done, total, what) or None.
  Background(py::object progress, std::string what) : progress_(std::move(progress)), what_(std::move(what)) {}

  const std::atomic<bool>& interrupt() const { return interrupt_; }
  // A quiet Progress whose updates reach the callable.
  Progress progress(int64_t total);

  // Runs work to its end as described above; rethrows what it threw, or raises KeyboardInterrupt
  // when Ctrl-C stopped it.
  void run(const std::function<void()>& work);

 private:
  py::object progress_;
  std::string what_;
  std::atomic<bool> interrupt_{false};
  std::atomic<int64_t> done_{0}, total_{-1};
};

}  // namespace q8::python
