// Resize: nearest on int8 or float32 as a gather (gather.h); linear on float32 by
// kernels/resize.cl, from the host's own tap tables (engine/ops/resize_common.h).
#include "engine/ops/resize_common.h"
#include "engine/opencl/args.h"
#include "engine/opencl/ops/gather.h"
#include "engine/opencl/ops/ops.h"

namespace q8 {

namespace {

constexpr size_t kAxes = 6;  // kernels/resize.cl's axes

class ClResizeLinear final : public PreparedNode {
 public:
  ClResizeLinear(std::shared_ptr<OpenClDevice> device, const NodeView& view)
      : device_(std::move(device)), opset_(view.opset), attrs_(resize_attrs(view.node, view.opset)), constants_(view.constants),
        name_(view.node.describe()) {}

  Reshaped reshape(const std::vector<TensorDesc>& in) override {
    const Dims& x = in.at(0).dims;
    check(x.size() >= 1 && x.size() <= kAxes, name_ + ": the OpenCL Resize takes rank 1 to 6, got " + dims_to_string(x));
    Inputs args = {nullptr};
    for (size_t i = 1; i < constants_.size(); ++i) args.push_back(constants_[i]);
    const ResizeTarget t = resize_target(x, args, opset_, attrs_, name_);
    const std::vector<AxisTaps> taps = resize_taps(x, t.out, t.scales, t.roi, attrs_);
    // geometry: output dims, input strides, each axis's first tap; leading axes padded.
    std::vector<int64_t> geometry(3 * kAxes, 0), taps_i, stride(kAxes, 0);
    std::vector<float> taps_w;
    std::vector<int8_t> outside;
    const size_t pad = kAxes - x.size();
    int64_t s = 1;
    for (size_t d = x.size(); d-- > 0;) stride[pad + d] = s, s *= x[d];
    active_ = 0;
    for (size_t a = 0; a < kAxes; ++a) {
      geometry[a] = a < pad ? 1 : t.out[a - pad];
      geometry[kAxes + a] = stride[a];
      geometry[2 * kAxes + a] = int64_t(outside.size());
      if (a < pad) {  // one output index, source 0, weight 1
        taps_i.insert(taps_i.end(), {0, 0}), taps_w.insert(taps_w.end(), {1.0f, 0.0f}), outside.push_back(0);
        continue;
      }
      const AxisTaps& axis = taps[a - pad];
      if (!axis.identity) active_ |= 1 << a;
      for (size_t o = 0; o < axis.i0.size(); ++o) {
        taps_i.insert(taps_i.end(), {axis.i0[o], axis.i1[o]});
        taps_w.insert(taps_w.end(), {axis.w0[o], axis.w1[o]});
        outside.push_back(axis.outside[o] ? 1 : 0);
      }
    }
    geometry_ = device_->upload(Tensor::from_vector<int64_t>({int64_t(geometry.size())}, geometry));
    taps_i_ = device_->upload(Tensor::from_vector<int64_t>({int64_t(taps_i.size())}, taps_i));
    taps_w_ = device_->upload(Tensor::from_vector<float>({int64_t(taps_w.size())}, taps_w));
    outside_ = device_->upload(Tensor::from_vector<int8_t>({int64_t(outside.size())}, outside));
    out_ = {DType::Float32, t.out};
    return {{out_}, 0};
  }

  void run(const Inputs& in, std::vector<Tensor>& out, std::span<std::byte>) override {
    out[0] = device_->allocate(out_.dtype, out_.dims);
    const cl_long count = numel(out_.dims);
    const cl_kernel k = device_->kernel("resize_linear");
    set_args(k, *in[0], out[0], count, geometry_, taps_i_, taps_w_, outside_, active_, attrs_.extrapolation_value);
    device_->launch(k, {size_t(count)});
  }

 private:
  std::shared_ptr<OpenClDevice> device_;
  int64_t opset_;
  ResizeAttrs attrs_;
  std::vector<const Tensor*> constants_;
  std::string name_;
  TensorDesc out_;
  int active_ = 0;
  Tensor geometry_, taps_i_, taps_w_, outside_;
};

}  // namespace

Support supports_Resize(const NodeView& view, const DeviceCaps& caps) {
  ResizeAttrs a;
  try {
    a = resize_attrs(view.node, view.opset);
  } catch (const Error& e) {
    return Support::no(e.what());
  }
  if (a.mode == "nearest" && a.coordinate_mode == "tf_crop_and_resize") return Support::no("nearest tf_crop_and_resize extrapolates");
  if (a.mode == "nearest") return gather_support(view);
  if (a.mode == "cubic") return Support::no("no kernel for cubic Resize yet");
  if (view.input_type(0) != DType::Float32) return Support::no("runs linear Resize on float32 only");
  if (!caps.denormals) return Support::no(kNoDenormals);
  return constant_parameters(view);
}

std::unique_ptr<PreparedNode> create_Resize(std::shared_ptr<OpenClDevice> device, const NodeView& view) {
  if (resize_attrs(view.node, view.opset).mode == "nearest") return create_gather(std::move(device), view);
  return std::make_unique<ClResizeLinear>(std::move(device), view);
}

}  // namespace q8
