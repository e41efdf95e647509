#include "eval/qdq_pairs.h"

#include <map>
#include <set>

namespace q8 {

std::vector<ActivationQdq> activation_qdq_pairs(const Graph& qdq) {
  std::map<std::string, int> quantize_of;  // Q output → Q node
  for (size_t i = 0; i < qdq.nodes.size(); ++i) {
    const Node& n = qdq.nodes[i];
    if (n.op_type == "QuantizeLinear" && !n.inputs.empty() && !n.outputs.empty() && !qdq.initializers.count(n.inputs[0]))
      quantize_of[n.outputs[0]] = int(i);
  }
  std::vector<ActivationQdq> pairs;
  for (size_t i = 0; i < qdq.nodes.size(); ++i) {
    const Node& n = qdq.nodes[i];
    if (n.op_type != "DequantizeLinear" || n.inputs.empty() || n.outputs.empty()) continue;
    const auto q = quantize_of.find(n.inputs[0]);
    if (q == quantize_of.end()) continue;
    pairs.push_back({qdq.nodes[size_t(q->second)].inputs[0], q->second, int(i), n.outputs[0]});
  }
  return pairs;
}

Graph bypass_activation_qdq(const Graph& qdq, const std::vector<ActivationQdq>& bypassed) {
  std::map<std::string, std::string> replace;  // x̂ → x
  std::set<int> removed;
  for (const ActivationQdq& p : bypassed) replace[p.dequantized] = p.tensor, removed.insert(p.quantize), removed.insert(p.dequantize);
  // A Q output that another DequantizeLinear still reads keeps its QuantizeLinear.
  std::set<std::string> still_read;
  for (size_t i = 0; i < qdq.nodes.size(); ++i)
    if (!removed.count(int(i)))
      for (const auto& in : qdq.nodes[i].inputs) still_read.insert(in);
  Graph out = qdq;
  out.nodes.clear();
  for (size_t i = 0; i < qdq.nodes.size(); ++i) {
    const Node& n = qdq.nodes[i];
    if (removed.count(int(i)) && !(n.op_type == "QuantizeLinear" && still_read.count(n.outputs[0]))) continue;
    Node copy = n;
    for (auto& in : copy.inputs)
      if (auto it = replace.find(in); it != replace.end()) in = it->second;
    out.nodes.push_back(std::move(copy));
  }
  for (auto& o : out.outputs)
    if (auto it = replace.find(o.name); it != replace.end()) {
      // A graph output that was x̂ keeps its name: an Identity gives x that name.
      Node id;
      id.op_type = "Identity", id.name = "bypass/" + o.name, id.inputs = {it->second}, id.outputs = {o.name};
      out.nodes.push_back(std::move(id));
    }
  return out;
}

}  // namespace q8
