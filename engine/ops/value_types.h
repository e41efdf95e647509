// The element type of each graph value: declared (inputs, outputs, value_info, constants), or
// followed through the op that produces it by its traits' `output` rule (engine/ops/traits.h):
// comparisons bool, Shape int64, Cast its `to`, QuantizeLinear its zero point's type, the q8
// domain's weighted ops int8 or float32 by their bias (and y_scale), most ops their first input's type.
#pragma once

#include <map>
#include <string>

#include "engine/ir/graph_index.h"

namespace q8 {

class ValueTypes {
 public:
  explicit ValueTypes(const GraphIndex& index) : index_(index) {}
  // DType::Undefined when nothing decides it. Remembers what it worked out.
  DType of(const std::string& value) const;

 private:
  DType produced(const Node& node, size_t slot) const;  // output `slot` of node

  const GraphIndex& index_;
  mutable std::map<std::string, DType> known_;
};

}  // namespace q8
