// Reduce{Mean,Sum,SumSquare,L1,L2,Max,Min} on float32 over trailing axes (kernels/reduce.cl: one
// work-item per output, the host's order and arithmetic, so its outputs are the CPU's bit for bit):
// a LayerNorm written out (ReduceMean over the last axis), a pooled mean, an L2 norm. The axes are
// the attribute, or input 1 (a constant) from the opset where it became one; none: every axis.
#include <algorithm>

#include "engine/opencl/args.h"
#include "engine/opencl/ops/ops.h"
#include "engine/ops/op.h"
#include "kernels/abi.h"

namespace q8 {

namespace {

int reduce_code(const std::string& op) {
  if (op == "ReduceSum") return Q8_REDUCE_SUM;
  if (op == "ReduceMean") return Q8_REDUCE_MEAN;
  if (op == "ReduceSumSquare") return Q8_REDUCE_SUM_SQUARE;
  if (op == "ReduceL1") return Q8_REDUCE_L1;
  if (op == "ReduceL2") return Q8_REDUCE_L2;
  if (op == "ReduceMax") return Q8_REDUCE_MAX;
  return Q8_REDUCE_MIN;
}

// The opset from which the op's axes are input 1 (engine/ops/reduce_*.cpp's).
int64_t axes_input_opset(const std::string& op) { return op == "ReduceSum" ? 13 : 18; }

// The axes the node names (nullopt: every axis), or why the device cannot know them.
struct Axes {
  std::optional<std::vector<int64_t>> axes;
  std::string unknown;
};

Axes node_axes(const NodeView& view) {
  const Node& n = view.node;
  Axes a;
  if (view.opset < axes_input_opset(n.op_type)) {
    if (n.has("axes")) a.axes = n.attr_ints("axes");
    return a;
  }
  if (!view.has_input(1)) return a;
  const Tensor* t = view.constant(1);
  if (!t) a.unknown = "its axes are not a constant";
  else if (t->numel() > 0) a.axes = t->to_int64s();
  return a;
}

class ClReduce final : public PreparedNode {
 public:
  ClReduce(std::shared_ptr<OpenClDevice> device, const NodeView& view)
      : device_(std::move(device)), name_(view.node.describe()), kind_(reduce_code(view.node.op_type)), axes_(node_axes(view).axes),
        keepdims_(view.node.attr_int("keepdims", 1) != 0) {}

  Reshaped reshape(const std::vector<TensorDesc>& in) override {
    const Dims& dims = in.at(0).dims;
    const int64_t rank = int64_t(dims.size());
    std::vector<bool> reduced(dims.size(), !axes_);
    if (axes_)
      for (int64_t a : *axes_) reduced[size_t(normalize_axis(a, rank, name_.c_str()))] = true;
    Dims out;
    outputs_ = 1, len_ = 1;
    bool seen_reduced = false;
    for (size_t d = 0; d < dims.size(); ++d) {
      check(!seen_reduced || reduced[d] || dims[d] == 1, name_ + ": the OpenCL reduction takes trailing axes only (" + dims_to_string(dims) + ")");
      seen_reduced = seen_reduced || (reduced[d] && dims[d] != 1);
      (reduced[d] ? len_ : outputs_) *= dims[d];
      if (!reduced[d] || keepdims_) out.push_back(reduced[d] ? 1 : dims[d]);
    }
    out_ = {DType::Float32, out};
    return {{out_}, 0};
  }

  void run(const Inputs& in, std::vector<Tensor>& out, std::span<std::byte>) override {
    out[0] = device_->allocate(out_.dtype, out_.dims);
    if (outputs_ == 0) return;
    const cl_kernel k = device_->kernel("reduce_float");
    set_args(k, *in[0], out[0], cl_long(outputs_), cl_long(len_), kind_);
    device_->launch(k, {size_t(outputs_)});
  }

 private:
  std::shared_ptr<OpenClDevice> device_;
  std::string name_;
  int kind_;
  std::optional<std::vector<int64_t>> axes_;
  bool keepdims_;
  int64_t outputs_ = 0, len_ = 0;
  TensorDesc out_;
};

// Float32 over trailing axes known when the node is made, on a device with doubles that keeps
// subnormals; noop_with_empty_axes (a copy) stays on the CPU.
Support reduce_support(const NodeView& view, const DeviceCaps& caps) {
  const Node& n = view.node;
  if (view.input_type(0) != DType::Float32) return Support::no("runs " + n.op_type + " on float32 only");
  const Axes a = node_axes(view);
  if (!a.unknown.empty()) return Support::no(a.unknown);
  if (!a.axes && n.attr_int("noop_with_empty_axes", 0) != 0) return Support::no("noop_with_empty_axes with no axes");
  if (a.axes && view.input_shapes.at(0)) {
    const auto& shape = *view.input_shapes[0];
    const int64_t rank = int64_t(shape.size());
    std::vector<bool> reduced(shape.size(), false);
    for (int64_t axis : *a.axes) {
      if (axis < -rank || axis >= rank) return Support::no("axis " + std::to_string(axis) + " is outside rank " + std::to_string(rank));
      reduced[size_t(axis < 0 ? axis + rank : axis)] = true;
    }
    for (size_t d = 1; d < shape.size(); ++d)
      if (reduced[d - 1] && !reduced[d] && !(shape[d].known() && shape[d].value == 1))
        return Support::no("reduces axes that are not trailing ones (" + std::to_string(d - 1) + " before " + std::to_string(d) + ")");
  } else if (a.axes) {  // rank unknown: trailing whatever it is when the axes are −k … −1
    std::vector<int64_t> axes = *a.axes;
    std::sort(axes.begin(), axes.end());
    for (size_t i = 0; i < axes.size(); ++i)
      if (axes[i] != int64_t(i) - int64_t(axes.size())) return Support::no("its input's rank is unknown and its axes are not −k … −1");
  }
  if (!caps.doubles()) return Support::no(kNoDoubles);
  if (!caps.denormals) return Support::no(kNoDenormals);
  return Support::yes();
}

std::unique_ptr<PreparedNode> create_reduce(std::shared_ptr<OpenClDevice> device, const NodeView& view) {
  return std::make_unique<ClReduce>(std::move(device), view);
}

}  // namespace

#define Q8_CL_REDUCE(op)                                                                                                 \
  Support supports_##op(const NodeView& view, const DeviceCaps& caps) { return reduce_support(view, caps); }            \
  std::unique_ptr<PreparedNode> create_##op(std::shared_ptr<OpenClDevice> device, const NodeView& view) {               \
    return create_reduce(std::move(device), view);                                                                       \
  }
Q8_CL_REDUCE(ReduceMean)
Q8_CL_REDUCE(ReduceSum)
Q8_CL_REDUCE(ReduceSumSquare)
Q8_CL_REDUCE(ReduceL1)
Q8_CL_REDUCE(ReduceL2)
Q8_CL_REDUCE(ReduceMax)
Q8_CL_REDUCE(ReduceMin)
#undef Q8_CL_REDUCE

}  // namespace q8
