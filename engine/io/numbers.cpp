#include "engine/io/numbers.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "engine/ir/error.h"

namespace q8 {

int64_t parse_int(const std::string& text, const std::string& what) {
  const char* begin = text.c_str();
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(begin, &end, 10);
  check(!text.empty() && end != begin && *end == 0 && text.find_first_of(" \t\n") == std::string::npos,
        what + ": '" + text + "' is not an integer");
  check(errno != ERANGE, what + ": " + text + " is out of range (more than 64 bits)");
  return v;
}

double parse_double(const std::string& text, const std::string& what) {
  const char* begin = text.c_str();
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(begin, &end);
  check(!text.empty() && end != begin && *end == 0 && text.find_first_of(" \t\n") == std::string::npos,
        what + ": '" + text + "' is not a number");
  check(std::isfinite(v) && errno != ERANGE, what + ": " + text + " is not a finite number");
  return v;
}

}  // namespace q8
