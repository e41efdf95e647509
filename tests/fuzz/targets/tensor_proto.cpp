// libFuzzer target: bytes as an ONNX TensorProto (.pb sample files).
#include "engine/ir/error.h"
#include "engine/onnx/tensor_proto.h"
#include "tests/fuzz/fuzz_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = q8::fuzz::write_temp(data, size, ".pb");
  try {
    q8::read_tensor_pb(path);
  } catch (const q8::Error&) {
  }
  return 0;
}
