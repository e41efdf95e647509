#include "datasets/progress.h"

#include <unistd.h>

#include <cstdio>

namespace q8 {

Progress::Progress(std::string what, int64_t total, bool quiet, std::string unit)
    : what_(std::move(what)), unit_(std::move(unit)), total_(total), quiet_(quiet), terminal_(::isatty(2) != 0),
      start_(std::chrono::steady_clock::now()), last_(start_) {}

void Progress::update(int64_t done) {
  if (listener_) listener_(done, total_);
  if (quiet_) return;
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double since_last = std::chrono::duration<double>(now - last_).count();
  if (!terminal_ && since_last < 5.0 && done < total_) return;
  if (terminal_ && since_last < 0.1 && done < total_) return;
  last_ = now;
  const double rate = elapsed > 0 ? double(done) / elapsed : 0.0;
  const double eta = rate > 0 ? double(total_ - done) / rate : 0.0;
  if (terminal_) {
    const int width = 30, filled = total_ ? int(width * done / total_) : width;
    std::fprintf(stderr, "\r%s [%-*s] %lld/%lld  %.1f %s/s  ETA %d:%02d ", what_.c_str(), width,
                 std::string(size_t(filled), '=').c_str(), static_cast<long long>(done), static_cast<long long>(total_), rate, unit_.c_str(),
                 int(eta) / 60, int(eta) % 60);
  } else {
    std::fprintf(stderr, "%s: %lld/%lld %s, %.1f %s/s, ETA %ds\n", what_.c_str(), static_cast<long long>(done),
                 static_cast<long long>(total_), unit_.c_str(), rate, unit_.c_str(), int(eta));
  }
  std::fflush(stderr);
}

void Progress::finish() {
  if (!quiet_ && terminal_ && !finished_) std::fprintf(stderr, "\n");
  finished_ = true;
}

}  // namespace q8
