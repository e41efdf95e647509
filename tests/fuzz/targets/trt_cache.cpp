// libFuzzer target: bytes as a TensorRT calibration cache, parsed and turned into a range table
// for a one-Conv graph (quantize --calib model.cache).
#include "calib/trt_cache.h"
#include "engine/ir/error.h"

namespace {
q8::Graph conv_graph() {
  q8::Graph g;
  g.inputs = {{"x", q8::DType::Float32, std::nullopt}};
  g.outputs = {{"y", q8::DType::Float32, std::nullopt}};
  g.initializers["w"] = q8::Tensor(q8::DType::Float32, {2, 1, 3, 3});
  q8::Node n;
  n.op_type = "Conv", n.name = "conv", n.inputs = {"x", "w"}, n.outputs = {"y"};
  g.nodes.push_back(n);
  return g;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const q8::Graph graph = conv_graph();
  try {
    std::vector<std::string> ignored;
    q8::range_table_from_trt_cache(q8::parse_trt_cache(std::string(reinterpret_cast<const char*>(data), size), "fuzz.cache"), graph,
                                   "fuzz.cache", ignored);
  } catch (const q8::Error&) {
  }
  return 0;
}
