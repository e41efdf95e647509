// libFuzzer target: bytes as an ONNX model. Every input must either load or
// raise q8::Error; crashes, sanitizer reports and other exceptions are bugs.
#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/ir/error.h"
#include "engine/onnx/import.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  try {
    q8::parse_model(bytes, "/nonexistent-fuzz-dir", "fuzz.onnx");
  } catch (const q8::Error&) {
  }
  return 0;
}
