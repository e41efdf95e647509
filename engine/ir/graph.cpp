#include "engine/ir/graph.h"

namespace q8 {

std::string ValueInfo::shape_string() const {
  if (!shape) return "?";
  if (shape->empty()) return "scalar";
  std::string s;
  for (size_t i = 0; i < shape->size(); ++i) {
    const Dim& d = (*shape)[i];
    s += (i ? "x" : "") + (d.known() ? std::to_string(d.value) : (d.symbol.empty() ? "?" : d.symbol));
  }
  return s;
}

int64_t Graph::opset() const {
  for (const OpsetImport& o : opsets)
    if (o.domain.empty() || o.domain == "ai.onnx") return o.version;
  return 0;
}

const ValueInfo* Graph::find_input(const std::string& name) const {
  for (const ValueInfo& v : inputs)
    if (v.name == name) return &v;
  return nullptr;
}

const ValueInfo* Graph::declared(const std::string& value) const {
  for (const auto* list : {&inputs, &outputs, &value_info})
    for (const ValueInfo& v : *list)
      if (v.name == value) return &v;
  return nullptr;
}

const Tensor* Graph::constant(const std::string& value) const {
  if (auto it = initializers.find(value); it != initializers.end()) return &it->second;
  for (const Node& n : nodes)
    if (n.op_type == "Constant" && n.domain.empty() && !n.outputs.empty() && n.outputs[0] == value) return n.attr_tensor("value");
  return nullptr;
}

}  // namespace q8
