#include "calib/observer_codec.h"

#include <cmath>

#include "engine/ir/error.h"

namespace q8 {

namespace {

// Parts against the rules the writer follows (docs/calibration.md).
void check_parts(const std::string& what, const TensorStats& s, const std::vector<uint64_t>& counts, bool has_width, int64_t exponent,
                 bool skip_zeros) {
  check(s.zeros <= s.elements, what + ": " + std::to_string(s.zeros) + " zeros among " + std::to_string(s.elements) + " elements");
  check(std::isfinite(s.max_abs) && s.max_abs >= 0, what + ": max_abs " + std::to_string(s.max_abs) + " is not finite and >= 0");
  if (s.elements > s.zeros)
    check(std::isfinite(s.min) && std::isfinite(s.max) && s.min <= s.max && s.max_abs == std::max(std::fabs(s.min), std::fabs(s.max)),
          what + ": min " + std::to_string(s.min) + ", max " + std::to_string(s.max) + " and max_abs " + std::to_string(s.max_abs) +
              " disagree");
  unsigned __int128 total = 0;
  for (uint64_t c : counts) total += c;
  const uint64_t want = s.elements - (skip_zeros ? s.zeros : 0);
  check(total == want, what + ": counts sum to " + std::to_string(uint64_t(total)) + (total >> 64 ? "+2^64" : "") + ", not the " +
                           std::to_string(want) + " values observed");
  const double bins = double(counts.size());
  if (has_width) {
    check(exponent >= -149 && exponent <= 1024, what + ": width 2^" + std::to_string(exponent) + " is out of range");
    const double w = std::ldexp(1.0, int(exponent));
    check(s.max_abs < bins * w && (exponent == -149 || s.max_abs >= bins * w / 2),
          what + ": width 2^" + std::to_string(exponent) + " is not the one max_abs " + std::to_string(s.max_abs) + " gives");
  } else {
    check(s.max_abs == 0, what + ": a histogram without a width, but max_abs " + std::to_string(s.max_abs));
  }
}

}  // namespace

ObserverParts observer_parts(const TensorObserver& observer) {
  const AbsHistogram& h = observer.histogram();
  return {observer.stats(), !h.empty(), h.exponent(), h.counts()};
}

TensorObserver observer_from_parts(ObserverParts parts, bool skip_zeros, const std::string& what) {
  check(!parts.counts.empty(), what + ": a histogram of no bins");
  check_parts(what, parts.stats, parts.counts, parts.has_width, parts.exponent, skip_zeros);
  const int64_t bins = int64_t(parts.counts.size());
  AbsHistogram h(bins);
  h.assign(parts.has_width, int(parts.exponent), std::move(parts.counts));
  TensorObserver observer(bins, skip_zeros);
  observer.assign(parts.stats, h);
  return observer;
}

}  // namespace q8
