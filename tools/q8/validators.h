// Checks for flags, with messages that say the rule (CLI11 names the flag).
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "engine/io/numbers.h"
#include "engine/ir/error.h"
#include "engine/runtime/backends.h"

namespace q8::cli {

// cpu, cpu-reference, opencl or opencl:N.
inline CLI::Validator device_name() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        try {
          device_index(text);
          return "";
        } catch (const Error&) {
          return "expected cpu, cpu-reference, opencl or opencl:N, got '" + text + "'";
        }
      },
      "cpu|cpu-reference|opencl[:N]");
}

// An integer >= lo.
inline CLI::Validator at_least(int64_t lo) {
  return CLI::Validator(
      [lo](std::string& text) -> std::string {
        try {
          const int64_t v = parse_int(text, "value");
          return v >= lo ? "" : "must be at least " + std::to_string(lo) + ", got " + text;
        } catch (const std::exception&) {
          return "'" + text + "' is not an integer";
        }
      },
      ">= " + std::to_string(lo));
}

// A power of two in [lo, hi].
inline CLI::Validator power_of_two(int64_t lo, int64_t hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        try {
          const int64_t v = parse_int(text, "value");
          if (v < lo || v > hi || (v & (v - 1)) != 0)
            return "must be a power of two from " + std::to_string(lo) + " to " + std::to_string(hi) + ", got " + text;
          return "";
        } catch (const std::exception&) {
          return "'" + text + "' is not an integer";
        }
      },
      "power of two");
}

// The one rule for a file a command will write (`flag` names it, "" for a path q8 derives): not a
// directory, a name a file system takes, in a directory that exists and may be written, and none
// of `inputs` ((what, path) pairs; empty paths are skipped): an output never overwrites an input.
// Checked before any work starts. An empty path is no output and passes.
void check_output_file(const std::string& flag, const std::string& path,
                       const std::vector<std::pair<std::string, std::string>>& inputs = {});

}  // namespace q8::cli
