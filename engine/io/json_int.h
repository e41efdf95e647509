// Integers read from JSON files: a fraction, a string or a value out of the target type's range
// is an Error naming where it was read, never an overflowing conversion.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

#include "engine/ir/error.h"

namespace q8 {

template <typename Int, typename Json>
Int json_int(const Json& v, const std::string& what) {
  constexpr auto lo = std::numeric_limits<Int>::min();
  constexpr auto hi = std::numeric_limits<Int>::max();
  if (v.is_number_unsigned()) {
    const uint64_t u = v.template get<uint64_t>();
    check(u <= uint64_t(hi), what + ": " + std::to_string(u) + " is out of range");
    return Int(u);
  }
  check(v.is_number_integer(), what + ": " + v.dump() + " is not an integer");
  const int64_t i = v.template get<int64_t>();
  check(i >= int64_t(lo) && (i < 0 || uint64_t(i) <= uint64_t(hi)), what + ": " + std::to_string(i) + " is out of range");
  return Int(i);
}

// The integer under key, or fallback when the key is absent.
template <typename Int, typename Json>
Int json_int_or(const Json& object, const char* key, Int fallback, const std::string& what) {
  return object.contains(key) ? json_int<Int>(object[key], what + ": \"" + key + "\"") : fallback;
}

}  // namespace q8
