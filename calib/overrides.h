// Range overrides for q8 quantize (--overrides FILE.json): {"tensor": {"amax": 3.5},
// "other": {"method": "mse"}, …} — a fixed amax, or a method recomputed from the calibration
// run's histograms.
#pragma once

#include <map>
#include <optional>
#include <string>

namespace q8 {

struct RangeOverride {
  std::optional<double> amax;  // a checked amax (calib/json_table.h, check_amax)
  std::string method;          // else a calibration method's name
};

// Parses and checks the file's text (what names it in errors): an object of entries, each
// {"amax": number} or {"method": a known method}.
std::map<std::string, RangeOverride> parse_overrides(const std::string& text, const std::string& what);

}  // namespace q8
