// libFuzzer target: bytes as an image file (PNG, JPEG, BMP, PGM/PPM: stb decides by content).
#include "datasets/image_decoder.h"
#include "engine/ir/error.h"
#include "tests/fuzz/fuzz_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = q8::fuzz::write_temp(data, size, ".img");
  try {
    q8::decode_image(path);
  } catch (const q8::Error&) {
  } catch (const q8::DecodeError&) {
  }
  return 0;
}
