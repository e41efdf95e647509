// A QDQ graph as the lowering reads it: its index (who produces and who reads each value), and the
// parameters of QuantizeLinear and DequantizeLinear nodes that the INT8 engine can take
// (docs/quantization.md, "Requantization": int8, zero point 0, positive finite scales).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/ir/graph_index.h"

namespace q8 {

struct QuantParams {
  std::vector<float> scales;  // one (per tensor) or one per index of axis
  int64_t axis = 1;           // normalized against the quantized tensor's rank when known
  bool per_tensor() const { return scales.size() == 1; }
  float scale() const { return scales[0]; }
};

class QdqGraph : public GraphIndex {
 public:
  explicit QdqGraph(const Graph& graph) : GraphIndex(graph) {}

  // The parameters of a QuantizeLinear or DequantizeLinear node, or nullopt with `why` set: scale
  // constant float32, positive and finite; zero point absent (DequantizeLinear) or int8 and all 0;
  // the quantized side int8.
  std::optional<QuantParams> params(const Node& qdq, std::string& why) const;
  // The DequantizeLinear node producing value with per-tensor int8 parameters, or -1 (why set).
  int per_tensor_dequantize(const std::string& value, QuantParams& params, std::string& why) const;
  // Whether value holds int8: an int8 constant, a graph input declared int8, or the output of a
  // QuantizeLinear with an int8 zero point.
  bool is_int8(const std::string& value) const;

  // Whether an earlier fusion took node i (lower_qdq keeps the record): a rule with a choice of how
  // far to fuse stops before such a node instead of losing its whole fusion.
  bool taken(int i) const { return owner_ && (*owner_)[size_t(i)] >= 0; }
  void set_owners(const std::vector<int>* owner) { owner_ = owner; }

 private:
  const std::vector<int>* owner_ = nullptr;
};

}  // namespace q8
