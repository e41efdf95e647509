// A QDQ graph as the lowering reads it: who produces and who reads each value, and the
// parameters of QuantizeLinear and DequantizeLinear nodes that the INT8 engine can take
// (docs/quantization.md, "Requantization": int8, zero point 0, positive finite scales).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/ir/graph.h"

namespace q8 {

struct QuantParams {
  std::vector<float> scales;  // one (per tensor) or one per index of axis
  int64_t axis = 1;           // normalized against the quantized tensor's rank when known
  bool per_tensor() const { return scales.size() == 1; }
  float scale() const { return scales[0]; }
};

class QdqGraph {
 public:
  explicit QdqGraph(const Graph& graph);

  const Graph& graph() const { return graph_; }
  const Node& node(int i) const { return graph_.nodes[size_t(i)]; }
  // The node producing value, or -1 (graph input, initializer, unknown).
  int producer(const std::string& value) const;
  // The nodes reading value, in graph order.
  const std::vector<int>& readers(const std::string& value) const;
  bool is_graph_output(const std::string& value) const;
  // The one node reading value (which is no graph output), or -1.
  int sole_reader(const std::string& value) const;

  // The parameters of a QuantizeLinear or DequantizeLinear node, or nullopt with `why` set: scale
  // constant float32, positive and finite; zero point absent (DequantizeLinear) or int8 and all 0;
  // the quantized side int8.
  std::optional<QuantParams> params(const Node& qdq, std::string& why) const;
  // The DequantizeLinear node producing value with per-tensor int8 parameters, or -1 (why set).
  int per_tensor_dequantize(const std::string& value, QuantParams& params, std::string& why) const;
  // Whether value holds int8: an int8 constant, a graph input declared int8, or the output of a
  // QuantizeLinear with an int8 zero point.
  bool is_int8(const std::string& value) const;

 private:
  const Graph& graph_;
  std::map<std::string, int> producers_;
  std::map<std::string, std::vector<int>> readers_;
  std::map<std::string, bool> outputs_;
};

}  // namespace q8
