#include "engine/opencl/ops/weighted.h"

#include <algorithm>

#include "engine/ops/epilogue_activation.h"
#include "engine/plan/epilogue_mode.h"

namespace q8 {

ClWeighted::ClWeighted(std::shared_ptr<OpenClDevice> device, const NodeView& view) : ClInt8Node(std::move(device), view) {
  const Node& n = view.node;
  bias_ = device_->upload(*view.constant(2));
  scale_ = device_->upload(*view.constant(3));
  float_out_ = view.constant(2)->dtype() == DType::Float32;
  r_scale_ = n.attr_float("residual_scale", 0.0f);
  y_ratio_ = n.attr_float("sum_scale", 0.0f), residual_first_ = n.attr_int("residual_first", 0) != 0;
  lo_ = int(n.attr_int("lo", -128)), hi_ = int(n.attr_int("hi", 127));
  activation_mode_ = epilogue_mode(n);  // the reference op (shapes_) has checked the rest
  if (activation_mode_ >= 0 && q8_int8_after_activation(activation_mode_)) r_scale_ = n.attr_float("y_scale", 0.0f);
}

std::string epilogue_refusal(const Node& node, const DeviceCaps& caps) {
  if (!node.has("activation")) return "";
  if (node.op_type == "QConvTranspose") return "an activation in the epilogue runs in the OpenCL QConv and QGemm only";
  return caps.exact_divide ? "" : kNoExactDivide;  // epilogue_activation.cl and gelu.cl divide
}

void ClWeighted::check_row_groups(size_t groups, int rows, const MmaTile& tile) const {
  check(groups <= size_t(kMaxMmaRowGroups), name_ + ": " + std::to_string(rows) + " rows make " + std::to_string(groups) +
                                                " work-groups of tile " + tile.name() + ", past the device's " +
                                                std::to_string(kMaxMmaRowGroups) + ": run a smaller batch");
}

const Tensor& ClWeighted::split_counters(int64_t tiles) {
  if (split_counters_.empty() || split_counters_.dim(0) < tiles) {
    split_counters_ = device_->allocate(DType::Int32, {tiles});
    device_->zero(split_counters_);
  }
  return split_counters_;
}

Tensor window_geometry(const ResolvedWindow& r, const Dims& in_spatial) {
  const size_t pad = 3 - in_spatial.size();
  std::vector<int32_t> g(Q8_GEO_SIZE, 0);
  for (size_t a = 0; a < 3; ++a) {
    const bool real = a >= pad;
    const size_t i = a - pad;
    g[Q8_GEO_IN + a] = real ? int32_t(in_spatial[i]) : 1;
    g[Q8_GEO_OUT + a] = real ? int32_t(r.output[i]) : 1;
    g[Q8_GEO_KERNEL + a] = real ? int32_t(r.kernel[i]) : 1;
    g[Q8_GEO_STRIDES + a] = real ? int32_t(r.strides[i]) : 1;
    g[Q8_GEO_DILATIONS + a] = real ? int32_t(r.dilations[i]) : 1;
    g[Q8_GEO_PADS + a] = real ? int32_t(r.pad_begin[i]) : 0;
  }
  return Tensor::from_vector<int32_t>({Q8_GEO_SIZE}, g);
}

Tensor padded_rows(const Tensor& w, int64_t multiple) {
  const int64_t m = w.dim(0), k = m ? w.numel() / m : 0, width = (k + multiple - 1) / multiple * multiple;
  Tensor p(DType::Int8, {m, width});
  for (int64_t i = 0; i < m; ++i) std::copy(w.data<int8_t>() + i * k, w.data<int8_t>() + (i + 1) * k, p.data<int8_t>() + i * width);
  return p;
}

Tensor taps_major(const Tensor& w) {
  const int64_t m = w.dim(0), c = w.dim(1), taps = m && c ? w.numel() / (m * c) : 0;
  Tensor t(DType::Int8, {m, taps * c});
  for (int64_t i = 0; i < m; ++i)
    for (int64_t ci = 0; ci < c; ++ci)
      for (int64_t tap = 0; tap < taps; ++tap) t.data<int8_t>()[(i * taps + tap) * c + ci] = w.data<int8_t>()[(i * c + ci) * taps + tap];
  return t;
}

Tensor transposed(const Tensor& w) {
  Tensor t(DType::Int8, {w.dim(1), w.dim(0)});
  for (int64_t i = 0; i < w.dim(0); ++i)
    for (int64_t j = 0; j < w.dim(1); ++j) t.data<int8_t>()[j * w.dim(0) + i] = w.data<int8_t>()[i * w.dim(1) + j];
  return t;
}

}  // namespace q8
