// Numbers read from text (flags, file headers, label files): the whole text must be the number,
// and an Error names where it came from. The one parser every reader and flag uses.
#pragma once

#include <cstdint>
#include <string>

namespace q8 {

// A decimal integer (optional sign) that fits in int64; "what" names its origin in errors
// ("--size", "x.npy: header shape").
int64_t parse_int(const std::string& text, const std::string& what);
// A finite decimal floating-point number.
double parse_double(const std::string& text, const std::string& what);

}  // namespace q8
