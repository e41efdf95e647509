// libFuzzer target: bytes as an IDX images file, every sample loaded.
#include "datasets/idx_source.h"
#include "engine/ir/error.h"
#include "tests/fuzz/fuzz_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = q8::fuzz::write_temp(data, size, "-images-idx3-ubyte");
  try {
    q8::IdxSource source(path, "");
    for (size_t i = 0; i < source.size() && i < 64; ++i) source.load(i);
  } catch (const q8::Error&) {
  } catch (const q8::DecodeError&) {
  }
  return 0;
}
