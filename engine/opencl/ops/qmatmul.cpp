// QMatMul on OpenCL (qmatmul.cl): int8 a · b of two activations, batch axes broadcast; the shape
// and each batch's offsets from the reference's QMatMulShape, uploaded once per input shape.
#include "engine/opencl/ops/int8_node.h"
#include "engine/plan/reference/qmatmul.h"

namespace q8 {

namespace {

constexpr size_t kTile = 16;  // qmatmul.cl's Q8_QMM_TILE

class ClQMatMul final : public ClInt8Node {
 public:
  ClQMatMul(std::shared_ptr<OpenClDevice> device, const NodeView& view)
      : ClInt8Node(std::move(device), view), int8_out_(view.node.has("multiplier")),
        factor_(view.node.attr_float(int8_out_ ? "multiplier" : "scale", 0.0f)), lo_(int(view.node.attr_int("lo", -128))),
        hi_(int(view.node.attr_int("hi", 127))) {}

  void run(const Inputs& in, std::vector<Tensor>& out, std::span<std::byte>) override {
    out[0] = device_->allocate(out_.dtype, out_.dims);
    if (numel(out_.dims) == 0) return;
    const cl_kernel k = device_->kernel("qmatmul");
    set_args(k, *in[0], *in[1], offsets_, int(shape_.m), int(shape_.k), int(shape_.n), int(int8_out_), factor_, lo_, hi_, out[0], out[0]);
    const auto up = [](int64_t v) { return (size_t(v) + kTile - 1) / kTile * kTile; };
    device_->launch(k, {up(shape_.n), up(shape_.m), shape_.a_offset.size()}, {kTile, kTile, 1});
  }

 private:
  void prepare(const std::vector<TensorDesc>& inputs) override {
    shape_ = QMatMulShape::of(inputs[0].dims, inputs[1].dims, name_);
    check(shape_.m < (int64_t(1) << 31) && shape_.n < (int64_t(1) << 31), name_ + ": M and N must fit in int32");
    check(shape_.a_offset.size() <= 65535, name_ + ": " + std::to_string(shape_.a_offset.size()) + " batches, past the 65,535 the kernel launches");
    std::vector<int64_t> pairs;
    for (size_t i = 0; i < shape_.a_offset.size(); ++i) pairs.push_back(shape_.a_offset[i]), pairs.push_back(shape_.b_offset[i]);
    offsets_ = device_->upload(Tensor::from_vector<int64_t>({int64_t(pairs.size())}, pairs));
  }

  bool int8_out_;
  float factor_;
  int lo_, hi_;
  QMatMulShape shape_;
  Tensor offsets_;
};

}  // namespace

Support supports_QMatMul(const NodeView& view, const DeviceCaps&) { return int8_support(view); }

std::unique_ptr<PreparedNode> create_QMatMul(std::shared_ptr<OpenClDevice> device, const NodeView& view) {
  return std::make_unique<ClQMatMul>(std::move(device), view);
}

}  // namespace q8
