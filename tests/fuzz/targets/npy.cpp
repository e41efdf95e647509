// libFuzzer target: bytes as a .npy file.
#include "engine/io/npy.h"
#include "engine/ir/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    q8::parse_npy(std::string(reinterpret_cast<const char*>(data), size), "fuzz.npy");
  } catch (const q8::Error&) {
  }
  return 0;
}
