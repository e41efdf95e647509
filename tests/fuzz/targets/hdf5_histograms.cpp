// libFuzzer target: bytes as a q8 HDF5 histogram file (--resume, --merge, quantize --histograms).
#include "calib/hdf5_histograms.h"
#include "engine/ir/error.h"
#include "tests/fuzz/fuzz_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = q8::fuzz::write_temp(data, size, ".h5");
  try {
    q8::read_histograms(path);
  } catch (const q8::Error&) {
  }
  return 0;
}
