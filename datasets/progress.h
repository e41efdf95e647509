// Progress on stderr: a bar with count, rate and ETA on a terminal, a log line every few
// seconds otherwise, nothing with --quiet.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace q8 {

class Progress {
 public:
  Progress(std::string what, int64_t total, bool quiet, std::string unit = "samples");
  void update(int64_t done);
  void finish();  // ends the bar's line

 private:
  std::string what_, unit_;
  int64_t total_;
  bool quiet_, terminal_;
  std::chrono::steady_clock::time_point start_, last_;
  bool finished_ = false;
};

}  // namespace q8
