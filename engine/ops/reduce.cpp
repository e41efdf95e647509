#include "engine/ops/reduce.h"

#include <limits>

#include "engine/ops/broadcast.h"
#include "engine/ops/elementwise.h"

namespace q8 {

ReduceAttrs read_reduce_attrs(const Node& node, bool axes_from_input) {
  ReduceAttrs a;
  if (!axes_from_input && node.has("axes")) a.axes = node.attr_ints("axes");
  a.keepdims = node.attr_int("keepdims", 1) != 0;
  a.noop_with_empty_axes = node.attr_int("noop_with_empty_axes", 0) != 0;
  a.axes_from_input = axes_from_input;
  return a;
}

Tensor reduce(const Inputs& in, const ReduceAttrs& attrs, ReduceKind kind, const char* op) {
  const Tensor& x = float_input(in, 0, op, "data");
  std::vector<int64_t> axes;
  bool have_axes = false;
  if (attrs.axes) axes = *attrs.axes, have_axes = true;
  if (attrs.axes_from_input && optional_input(in, 1)) axes = in[1]->to_int64s(), have_axes = !axes.empty();
  if (!have_axes && attrs.noop_with_empty_axes) return x;
  const int64_t rank = int64_t(x.rank());
  std::vector<bool> reduced(x.rank(), !have_axes);
  for (int64_t a : axes) reduced[size_t(normalize_axis(a, rank, op))] = true;

  Dims kept(x.rank()), out_dims;
  int64_t count = 1;
  for (size_t d = 0; d < x.rank(); ++d) {
    kept[d] = reduced[d] ? 1 : x.dim(d);
    if (reduced[d]) count *= x.dim(d);
    if (!reduced[d] || attrs.keepdims) out_dims.push_back(kept[d]);
  }
  Tensor y(DType::Float32, kept);
  float* py = y.data<float>();
  const float init = kind == ReduceKind::Max ? -std::numeric_limits<float>::infinity() : 0.0f;
  std::fill_n(py, y.numel(), init);
  if (x.numel() > 0) {
    const BroadcastPlan plan = plan_broadcast(x.dims(), {&kept});
    const float* px = x.data<float>();
    if (kind == ReduceKind::Max) {
      broadcast_loop<1, false>(plan, [&](int64_t i, const std::array<int64_t, 1>& o) { py[o[0]] = std::max(py[o[0]], px[i]); });
    } else {
      std::vector<double> acc(size_t(y.numel()), 0.0);
      broadcast_loop<1, false>(plan, [&](int64_t i, const std::array<int64_t, 1>& o) { acc[size_t(o[0])] += px[i]; });
      for (int64_t i = 0; i < y.numel(); ++i)
        py[i] = float(kind == ReduceKind::Mean ? acc[size_t(i)] / double(count) : acc[size_t(i)]);
    }
  }
  return y.reshaped(out_dims);
}

}  // namespace q8
