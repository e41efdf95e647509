// libFuzzer target: bytes as a preprocessing JSON (--preprocess, the QDQ model's metadata).
#include "datasets/preprocess.h"
#include "engine/ir/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    q8::Preprocessing pre;
    pre.merge_json_text(std::string(reinterpret_cast<const char*>(data), size), "fuzz.json");
    pre.describe();
  } catch (const q8::Error&) {
  }
  return 0;
}
