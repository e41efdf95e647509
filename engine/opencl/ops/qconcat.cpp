// QConcat on OpenCL (qconcat.cl): each input mapped through its exact 256-entry table into its
// columns of the output, one launch per input.
#include "engine/ops/concat.h"
#include "engine/opencl/ops/int8_node.h"

namespace q8 {

namespace {

class ClQConcat final : public ClInt8Node {
 public:
  ClQConcat(std::shared_ptr<OpenClDevice> device, const NodeView& view) : ClInt8Node(std::move(device), view), axis_(view.node.attr_int("axis", 0)) {
    const Tensor& tables = *view.constant(view.node.inputs.size() - 1);
    for (int64_t i = 0; i < tables.dim(0); ++i) {
      Tensor row(DType::Int8, {256});
      std::copy(tables.data<int8_t>() + i * 256, tables.data<int8_t>() + (i + 1) * 256, row.data<int8_t>());
      tables_.push_back(device_->upload(row));
    }
  }

  void run(const Inputs& in, std::vector<Tensor>& out, std::span<std::byte>) override {
    out[0] = device_->allocate(out_.dtype, out_.dims);
    const cl_kernel k = device_->kernel("qconcat_part");
    const int64_t axis = normalize_axis(axis_, int64_t(out_.dims.size()), "QConcat");
    const ConcatRows layout = concat_rows(out_.dims, size_t(axis));
    const cl_long inner = layout.inner;
    cl_long offset = 0;
    for (size_t i = 0; i < tables_.size(); ++i) {
      const cl_long inner_i = in[i]->dim(size_t(axis)) * layout.inner_rest, rows = layout.outer;
      set_args(k, *in[i], tables_[i], out[0], rows, inner_i, inner, offset);
      device_->launch(k, {size_t(rows * inner_i)});
      offset += inner_i;
    }
  }

 private:
  int64_t axis_;
  std::vector<Tensor> tables_;  // one 256-entry table per input
};

}  // namespace

Support supports_QConcat(const NodeView& view, const DeviceCaps&) { return int8_support(view); }

std::unique_ptr<PreparedNode> create_QConcat(std::shared_ptr<OpenClDevice> device, const NodeView& view) {
  return std::make_unique<ClQConcat>(std::move(device), view);
}

}  // namespace q8
