#include "engine/plan/rules/rule.h"

#include "engine/ops/traits.h"

#include <algorithm>
#include <iterator>

#include "engine/ir/clip_bounds.h"

namespace q8 {

ActivationChain follow_activations(const QdqGraph& g, const std::string& value) {
  ActivationChain chain{{}, value};
  for (;;) {
    const int r = g.sole_reader(chain.output);
    if (r < 0) break;
    const Node& n = g.node(r);
    if (!n.domain.empty() || n.outputs.size() != 1) break;
    if (n.op_type != "Relu" && !(n.op_type == "Clip" && clip_bounds(g, n))) break;
    chain.nodes.push_back(r);
    chain.output = n.outputs[0];
  }
  return chain;
}

ClampBounds ActivationChain::bounds(const QdqGraph& g, float s_y) const {
  ClampBounds b;
  for (int i : nodes) {
    const Node& n = g.node(i);
    if (n.op_type == "Relu") {
      b = fold_relu(b);
    } else {
      const auto bounds = clip_bounds(g, n);
      b = fold_clip(b, bounds->first, bounds->second, s_y);
    }
  }
  return b;
}

int sole_per_tensor_quantize(const QdqGraph& g, const std::string& value, QuantParams& params) {
  const int r = g.sole_reader(value);
  if (r < 0 || g.node(r).op_type != "QuantizeLinear" || !g.node(r).domain.empty()) return -1;
  std::string why;
  const std::optional<QuantParams> p = g.params(g.node(r), why);
  if (!p || !p->per_tensor()) return -1;
  params = *p;
  return r;
}

bool carrier_on_int8(const QdqGraph& g, const Node& op, std::string& why) {
  if (!commutes_with_quantize(op, g, why)) return false;
  if (op.outputs.size() != 1 || op.inputs.empty()) {
    why = "it has more than one output";
    return false;
  }
  for (size_t i = 1; i < op.inputs.size(); ++i)
    if (!op.inputs[i].empty() && !g.constant(op.inputs[i])) {
      why = "its input " + std::to_string(i) + " is not constant";
      return false;
    }
  return true;
}

Node on_int8(Node carrier) {
  // The traits' value input (Pad's constant_value) holds x's kind of value; commuting allowed only
  // zero, which an absent input is on int8 too.
  const OpTraits* traits = find_traits(carrier);
  if (traits && traits->value_input >= 0 && size_t(traits->value_input) < carrier.inputs.size()) carrier.inputs[size_t(traits->value_input)] = "";
  while (!carrier.inputs.empty() && carrier.inputs.back().empty()) carrier.inputs.pop_back();
  return carrier;
}

int quantize_through_carriers(const QdqGraph& g, const std::string& value, QuantParams& params, std::vector<int>& through) {
  through.clear();
  std::string v = value, ignore;
  for (;;) {
    const int q = sole_per_tensor_quantize(g, v, params);
    if (q >= 0) return q;
    const int r = g.sole_reader(v);
    if (r < 0 || g.node(r).inputs[0] != v || !carrier_on_int8(g, g.node(r), ignore)) return -1;
    through.push_back(r);
    v = g.node(r).outputs[0];
  }
}

bool end_at_quantize(const QdqGraph& g, const std::string& tail, Fusion& f, QuantParams& out) {
  std::vector<int> carriers;
  const int q = quantize_through_carriers(g, tail, out, carriers);
  if (q < 0) return false;
  f.consumed.insert(f.consumed.end(), carriers.begin(), carriers.end());
  f.consumed.push_back(q);
  f.fused.outputs = {carriers.empty() ? g.node(q).outputs[0] : derived_name(g, tail + ".int8")};
  std::string value = f.fused.outputs[0];
  for (size_t i = 0; i < carriers.size(); ++i) {  // Q moved back across them: they run on int8
    Node c = on_int8(g.node(carriers[i]));
    c.inputs[0] = value;
    if (i + 1 == carriers.size()) c.outputs = {g.node(q).outputs[0]};
    value = c.outputs[0];
    f.after.push_back(std::move(c));
  }
  return true;
}

std::string derived_name(const QdqGraph& g, const std::string& base) {
  std::string name = base;
  for (int i = 1; g.graph().constant(name) || g.producer(name) >= 0 || !g.readers(name).empty(); ++i)
    name = base + "_" + std::to_string(i);
  return name;
}

}  // namespace q8
