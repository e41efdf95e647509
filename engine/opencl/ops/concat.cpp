// Concat on int8 or float32 (kernels/concat.cl): one launch per input into its columns of the
// output. Shapes and their checks are the CPU op's (engine/ops/concat.h).
#include "engine/ops/concat.h"
#include "engine/opencl/args.h"
#include "engine/opencl/ops/ops.h"

namespace q8 {

namespace {

class ClConcatValues final : public PreparedNode {
 public:
  ClConcatValues(std::shared_ptr<OpenClDevice> device, const NodeView& view)
      : device_(std::move(device)), axis_(view.node.attr_int("axis", 0)) {
    check(view.node.has("axis"), view.node.describe() + ": attribute 'axis' is required");
  }

  Reshaped reshape(const std::vector<TensorDesc>& in) override {
    out_ = concat_output(in, axis_);
    axis_index_ = size_t(normalize_axis(axis_, int64_t(out_.dims.size()), "Concat"));
    return {{out_}, 0};
  }

  void run(const Inputs& in, std::vector<Tensor>& out, std::span<std::byte>) override {
    out[0] = device_->allocate(out_.dtype, out_.dims);
    const cl_kernel k = device_->kernel(out_.dtype == DType::Int8 ? "concat_part_int8" : "concat_part_float");
    const ConcatRows rows = concat_rows(out_.dims, axis_index_);
    const cl_long outer = rows.outer, inner = rows.inner;
    cl_long offset = 0;
    for (const Tensor* x : in) {
      const cl_long inner_i = x->dim(axis_index_) * rows.inner_rest;
      if (outer * inner_i > 0) {
        set_args(k, *x, out[0], outer, inner_i, inner, offset);
        device_->launch(k, {size_t(outer * inner_i)});
      }
      offset += inner_i;
    }
  }

 private:
  std::shared_ptr<OpenClDevice> device_;
  int64_t axis_;
  size_t axis_index_ = 0;
  TensorDesc out_;
};

}  // namespace

Support supports_Concat(const NodeView& view, const DeviceCaps&) {
  const DType t = view.input_type(0);
  if (t != DType::Int8 && t != DType::Float32) return Support::no("runs Concat on int8 and float32 only");
  for (size_t i = 0; i < view.node.inputs.size(); ++i)
    if (!view.has_input(i) || view.constant(i)) return Support::no("input " + std::to_string(i) + " is absent or constant");
  return Support::yes();
}

std::unique_ptr<PreparedNode> create_Concat(std::shared_ptr<OpenClDevice> device, const NodeView& view) {
  return std::make_unique<ClConcatValues>(std::move(device), view);
}

}  // namespace q8
