#include "engine/opencl/channels_last.h"

#include "engine/opencl/select.h"

namespace q8 {

namespace {

// Whether QConv n writes int8 (an int32 bias, or a float one with an activation and QuantizeLinear's
// y_scale after it).
bool int8_output(const Node& n, const GraphIndex& index) {
  const Tensor* bias = n.inputs.size() > 2 ? index.constant(n.inputs[2]) : nullptr;
  return bias && (bias->dtype() == DType::Int32 || (bias->dtype() == DType::Float32 && n.attr_float("y_scale", 0.0f) > 0.0f));
}

// Its weights, where n is a QConv with constant weights and bias (of int8 output where asked).
const Tensor* conv_weights(const Node& n, const GraphIndex& index, bool int8_out) {
  if (n.domain != kInt8Domain || n.op_type != "QConv" || n.inputs.size() < 4 || n.outputs.size() != 1) return nullptr;
  const Tensor* w = index.constant(n.inputs[1]);
  if (!w || !index.constant(n.inputs[2]) || (int8_out && !int8_output(n, index)) || w->rank() < 3 || w->dim(0) == 0 || w->dim(1) == 0)
    return nullptr;
  return w;
}

const Tensor* int8_conv_weights(const Node& n, const GraphIndex& index) { return conv_weights(n, index, true); }

// Of one or two spatial axes: qconv_implicit_mma reads such windows from a channels-last input.
bool mma_conv(const Node& n, const GraphIndex& index, const DeviceCaps& caps) {
  const Tensor* w = int8_conv_weights(n, index);
  return w && w->rank() <= 4 && select_conv(w->dim(1), w->numel() / (w->dim(0) * w->dim(1)), n.attr_int("group", 1), caps) == "qconv_mma";
}

}  // namespace

bool channels_last_depthwise(const Node& n, const GraphIndex& index) {
  const Tensor* w = conv_weights(n, index, false);
  return w && w->rank() == 4 && w->dim(1) == 1 && n.attr_int("group", 1) == w->dim(0) && w->dim(0) % 16 == 0 && !n.has_input(4);
}

namespace {

}  // namespace

std::vector<bool> channels_last_outputs(const GraphIndex& index, const DeviceCaps& caps) {
  const Graph& graph = index.graph();
  const size_t count = graph.nodes.size();
  std::vector<bool> mma(count), depthwise(count), kept(count, false);
  for (size_t i = 0; i < count; ++i)
    mma[i] = mma_conv(graph.nodes[i], index, caps), depthwise[i] = channels_last_depthwise(graph.nodes[i], index);
  // A float output stays NCHW for its float readers; the conv may still read channels-last.
  const auto may_keep = [&](size_t i) { return mma[i] || (depthwise[i] && int8_output(graph.nodes[i], index)); };
  // Every reader is a tensor-core conv reading the value as x (C a multiple of 16) or as its
  // residual (qgemm_mma reads a residual in either layout, whatever its output's), or a depthwise
  // conv that qconv_depthwise_nhwc runs, reading it as x.
  for (size_t i = 0; i < count; ++i) {
    if (!may_keep(i)) continue;
    const std::string& out = graph.nodes[i].outputs[0];
    const std::vector<int>& readers = index.readers(out);
    bool ok = !out.empty() && !index.is_graph_output(out) && !readers.empty();
    for (int r : readers) {
      const Node& reader = graph.nodes[size_t(r)];
      if (!ok || (!mma[size_t(r)] && !depthwise[size_t(r)])) {
        ok = false;
        break;
      }
      for (size_t k = 0; k < reader.inputs.size(); ++k) {
        if (reader.inputs[k] != out) continue;
        const bool as_x = k == 0 && (depthwise[size_t(r)] || index.constant(reader.inputs[1])->dim(1) % 16 == 0);
        ok = ok && (as_x || (k == 4 && mma[size_t(r)]));
      }
    }
    kept[i] = ok;
  }
  return kept;
}

}  // namespace q8
