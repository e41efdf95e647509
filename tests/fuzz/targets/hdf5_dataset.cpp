// libFuzzer target: bytes as an HDF5 dataset file ('data' and 'labels'), every sample loaded.
#include "datasets/hdf5_source.h"
#include "engine/ir/error.h"
#include "tests/fuzz/fuzz_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = q8::fuzz::write_temp(data, size, ".h5");
  try {
    q8::Hdf5Source source(path, "data", "");
    for (size_t i = 0; i < source.size() && i < 64; ++i) source.load(i), source.label(i);
  } catch (const q8::Error&) {
  } catch (const q8::DecodeError&) {
  }
  return 0;
}
