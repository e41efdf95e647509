// Progress on stderr: a bar with count, rate and ETA on a terminal, a log line every few
// seconds otherwise, nothing with --quiet; and, for a program that shows progress its own way
// (q8's Python module), every update handed to a listener.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

namespace q8 {

class Progress {
 public:
  Progress(std::string what, int64_t total, bool quiet, std::string unit = "samples");
  void update(int64_t done);
  // Called with (done, total) on every update, quiet or not, from the thread that updates.
  using Listener = std::function<void(int64_t done, int64_t total)>;
  void set_listener(Listener listener) { listener_ = std::move(listener); }
  void finish();  // ends the bar's line

 private:
  std::string what_, unit_;
  int64_t total_;
  bool quiet_, terminal_;
  std::chrono::steady_clock::time_point start_, last_;
  bool finished_ = false;
  Listener listener_;
};

}  // namespace q8
