// libFuzzer target: bytes as a range-overrides JSON (quantize --overrides).
#include "calib/overrides.h"
#include "engine/ir/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    q8::parse_overrides(std::string(reinterpret_cast<const char*>(data), size), "fuzz.json");
  } catch (const q8::Error&) {
  }
  return 0;
}
