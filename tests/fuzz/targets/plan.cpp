// libFuzzer target: bytes as a q8 plan file. Every input must either load or raise q8::Error;
// crashes, sanitizer reports and other exceptions are bugs.
#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/ir/error.h"
#include "engine/plan/plan_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  try {
    q8::parse_plan(bytes, "fuzz.q8plan");
  } catch (const q8::Error&) {
  }
  return 0;
}
