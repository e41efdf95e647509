#include "engine/exec/node_runner.h"

namespace q8 {

NodeView node_view(const Node& node, const Inputs& in, const std::vector<bool>& constant, int64_t opset) {
  NodeView view{node, opset, {}, {}, {}};
  for (size_t i = 0; i < in.size(); ++i) {
    view.input_types.push_back(in[i] ? in[i]->dtype() : DType::Undefined);
    std::optional<std::vector<Dim>> shape;
    if (in[i]) {
      shape.emplace();
      for (int64_t d : in[i]->dims()) shape->push_back(Dim{d, ""});
    }
    view.input_shapes.push_back(std::move(shape));
    view.constants.push_back(i < constant.size() && constant[i] ? in[i] : nullptr);
  }
  return view;
}

std::vector<Tensor> run_node(const Backend& backend, const Node& node, const Inputs& in, const std::vector<bool>& constant, int64_t opset,
                             bool upload_all) {
  const NodeView view = node_view(node, in, constant, opset);
  const Support support = backend.supports(view);
  check(support.ok, std::string(backend.name()) + " does not take " + node.describe() + (support.reason.empty() ? "" : ": " + support.reason));
  const std::unique_ptr<PreparedNode> prepared = backend.create(view);
  std::vector<Tensor> held;  // the inputs as the backend reads them
  for (size_t i = 0; i < in.size(); ++i) {
    const bool on_host = view.constants[i] || !in[i] || (!upload_all && prepared->takes_host_input(i)) || !prepared->reads_input_values(i);
    held.push_back(on_host ? (in[i] ? *in[i] : Tensor()) : backend.upload(*in[i]));
  }
  Inputs args;
  for (const Tensor& t : held) args.push_back(t.empty() ? nullptr : &t);
  while (!args.empty() && !args.back()) args.pop_back();
  const Reshaped r = prepared->reshape(describe(args));
  std::vector<Tensor> out(node.outputs.size());
  if (backend.memory() == kHostMemory)
    for (size_t k = 0; k < out.size() && k < r.outputs.size(); ++k)
      if (r.outputs[k]) out[k] = Tensor::uninitialized(r.outputs[k]->dtype, r.outputs[k]->dims);
  std::vector<std::byte> workspace(r.workspace_bytes);
  prepared->run(args, out, workspace);
  for (Tensor& t : out)
    if (!t.empty()) t = backend.download(t);
  return out;
}

}  // namespace q8
