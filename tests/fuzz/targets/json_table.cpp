// libFuzzer target: bytes as a JSON range table (quantize --calib).
#include "calib/json_table.h"
#include "engine/ir/error.h"
#include "tests/fuzz/fuzz_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = q8::fuzz::write_temp(data, size, ".json");
  try {
    q8::read_json_table(path);
  } catch (const q8::Error&) {
  }
  return 0;
}
