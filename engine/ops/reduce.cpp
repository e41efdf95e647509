#include "engine/ops/reduce.h"

#include <cmath>
#include <limits>

#include "engine/cpu/parallel.h"
#include "engine/ops/broadcast.h"
#include "engine/ops/elementwise.h"

namespace q8 {

namespace {

// The reduced dims (kept as 1) and the output's dims, and how many elements each output takes.
struct ReduceShape {
  Dims kept, out;
  int64_t count = 1;
};

ReduceShape reduce_shape(const Tensor& x, const std::vector<int64_t>& axes, bool have_axes, bool keepdims, const char* op) {
  const int64_t rank = int64_t(x.rank());
  std::vector<bool> reduced(x.rank(), !have_axes);
  for (int64_t a : axes) reduced[size_t(normalize_axis(a, rank, op))] = true;
  ReduceShape s;
  s.kept.resize(x.rank());
  for (size_t d = 0; d < x.rank(); ++d) {
    s.kept[d] = reduced[d] ? 1 : x.dim(d);
    if (reduced[d]) s.count *= x.dim(d);
    if (!reduced[d] || keepdims) s.out.push_back(s.kept[d]);
  }
  return s;
}

// True when every reduced dim (of size > 1) follows every kept one: output o then takes the
// count values from o · count on, contiguous, in the order the general walk visits them.
bool reduces_trailing(const Tensor& x, const ReduceShape& s) {
  bool reducing = false;
  for (size_t d = 0; d < x.rank(); ++d) {
    if (x.dim(d) == 1) continue;
    if (s.kept[d] == 1) reducing = true;
    else if (reducing) return false;
  }
  return true;
}

// acc[o] += term(v) over output o's values in the walk's order, outputs split among threads when
// they are contiguous (each sum still runs on one thread, in the same order).
template <typename Term, typename Walk>
void sum_into(const Tensor& x, const ReduceShape& s, std::vector<double>& acc, Term term, Walk&& walk) {
  const float* px = x.data<float>();
  if (!reduces_trailing(x, s)) {
    walk([&](float v, int64_t o) { acc[size_t(o)] += term(v); });
    return;
  }
  const int64_t count = s.count;
  parallel_for(int64_t(acc.size()), std::max<int64_t>(1, 16384 / std::max<int64_t>(1, count)), [&](int64_t o0, int64_t o1) {
    for (int64_t o = o0; o < o1; ++o) {
      double a = acc[size_t(o)];
      for (int64_t j = 0; j < count; ++j) a += term(px[o * count + j]);
      acc[size_t(o)] = a;
    }
  });
}

// Float32 in, float32 out; sums in double. LogSumExp subtracts each output's maximum first.
Tensor reduce_float(const Tensor& x, const ReduceShape& s, ReduceKind kind) {
  Tensor y(DType::Float32, s.kept);
  float* py = y.data<float>();
  const int64_t n = y.numel();
  const float* px = x.data<float>();
  const float inf = std::numeric_limits<float>::infinity();
  const BroadcastPlan plan = plan_broadcast(x.dims(), {&s.kept});
  auto walk = [&](auto&& f) {
    if (x.numel() > 0) broadcast_loop<1, false>(plan, [&](int64_t i, const std::array<int64_t, 1>& o) { f(px[i], o[0]); });
  };
  if (kind == ReduceKind::Max || kind == ReduceKind::Min || kind == ReduceKind::LogSumExp) {
    const bool max = kind != ReduceKind::Min;
    std::fill_n(py, n, max ? -inf : inf);
    walk([&](float v, int64_t o) { py[o] = max ? std::max(py[o], v) : std::min(py[o], v); });
    if (kind != ReduceKind::LogSumExp) return y;
  }
  std::vector<double> acc(size_t(n), kind == ReduceKind::Prod ? 1.0 : 0.0);
  switch (kind) {
    case ReduceKind::Prod: walk([&](float v, int64_t o) { acc[size_t(o)] *= v; }); break;
    case ReduceKind::L1: sum_into(x, s, acc, [](float v) { return std::fabs(double(v)); }, walk); break;
    case ReduceKind::L2:
    case ReduceKind::SumSquare: sum_into(x, s, acc, [](float v) { return double(v) * v; }, walk); break;
    case ReduceKind::LogSumExp: {
      const std::vector<float> top(py, py + n);
      walk([&](float v, int64_t o) { acc[size_t(o)] += std::isinf(top[size_t(o)]) ? std::exp(double(v)) : std::exp(double(v) - top[size_t(o)]); });
      for (int64_t i = 0; i < n; ++i) py[i] = float(std::log(acc[size_t(i)]) + (std::isinf(py[i]) ? 0.0 : double(py[i])));
      return y;
    }
    default: sum_into(x, s, acc, [](float v) { return double(v); }, walk); break;
  }
  for (int64_t i = 0; i < n; ++i) {
    const double a = acc[size_t(i)];
    py[i] = float(kind == ReduceKind::Mean ? a / double(s.count) : kind == ReduceKind::L2 ? std::sqrt(a) : kind == ReduceKind::LogSum ? std::log(a) : a);
  }
  return y;
}

// Integers in, the same type out, accumulated in int64 (wrapping as the type does when stored).
template <typename T>
Tensor reduce_integer(const Tensor& x, const ReduceShape& s, ReduceKind kind, const char* op) {
  check(kind != ReduceKind::L2 && kind != ReduceKind::LogSum && kind != ReduceKind::LogSumExp,
        std::string(op) + ": integer input types are not supported");
  const int64_t n = numel(s.kept);
  int64_t init = 0;
  if (kind == ReduceKind::Max) init = std::numeric_limits<T>::lowest();
  if (kind == ReduceKind::Min) init = std::numeric_limits<T>::max();
  if (kind == ReduceKind::Prod) init = 1;
  std::vector<int64_t> acc(size_t(n), init);
  if (x.numel() > 0) {
    const T* px = x.data<T>();
    const BroadcastPlan plan = plan_broadcast(x.dims(), {&s.kept});
    broadcast_loop<1, false>(plan, [&](int64_t i, const std::array<int64_t, 1>& o) {
      int64_t& a = acc[size_t(o[0])];
      const int64_t v = px[i];
      switch (kind) {
        case ReduceKind::Max: a = std::max(a, v); break;
        case ReduceKind::Min: a = std::min(a, v); break;
        case ReduceKind::Prod: a = int64_t(uint64_t(a) * uint64_t(v)); break;
        case ReduceKind::L1: a += v < 0 ? -v : v; break;
        case ReduceKind::SumSquare: a += v * v; break;
        default: a += v; break;
      }
    });
  }
  Tensor y(dtype_of<T>(), s.kept);
  for (int64_t i = 0; i < n; ++i)
    y.data<T>()[i] = T(kind == ReduceKind::Mean && s.count > 0 ? acc[size_t(i)] / s.count : acc[size_t(i)]);
  return y;
}

}  // namespace

ReduceAttrs read_reduce_attrs(const Node& node, bool axes_from_input) {
  ReduceAttrs a;
  if (!axes_from_input && node.has("axes")) a.axes = node.attr_ints("axes");
  a.keepdims = node.attr_int("keepdims", 1) != 0;
  a.noop_with_empty_axes = node.attr_int("noop_with_empty_axes", 0) != 0;
  a.axes_from_input = axes_from_input;
  return a;
}

Tensor reduce(const Inputs& in, const ReduceAttrs& attrs, ReduceKind kind, const char* op) {
  const Tensor& x = required_input(in, 0, op, "data");
  std::vector<int64_t> axes;
  bool have_axes = false;
  if (attrs.axes) axes = *attrs.axes, have_axes = true;
  if (attrs.axes_from_input && optional_input(in, 1)) axes = in[1]->to_int64s(), have_axes = !axes.empty();
  if (!have_axes && attrs.noop_with_empty_axes) return x;
  const ReduceShape s = reduce_shape(x, axes, have_axes, attrs.keepdims, op);
  switch (x.dtype()) {
    case DType::Float32: return reduce_float(x, s, kind).reshaped(s.out);
    case DType::Float16: return reduce_float(x.widened(), s, kind).narrowed().reshaped(s.out);
    case DType::Int32: return reduce_integer<int32_t>(x, s, kind, op).reshaped(s.out);
    case DType::Int64: return reduce_integer<int64_t>(x, s, kind, op).reshaped(s.out);
    case DType::Int8:
    case DType::Uint8:
      if (kind == ReduceKind::Max || kind == ReduceKind::Min)
        return x.dtype() == DType::Int8 ? reduce_integer<int8_t>(x, s, kind, op).reshaped(s.out)
                                        : reduce_integer<uint8_t>(x, s, kind, op).reshaped(s.out);
      break;
    default: break;
  }
  throw Error(std::string(op) + ": input type " + std::string(dtype_name(x.dtype())) + " is not supported");
}

namespace {
class ReduceOp final : public Op {
 public:
  ReduceOp(ReduceAttrs attrs, ReduceKind kind, const char* name) : attrs_(std::move(attrs)), kind_(kind), name_(name) {}
  std::vector<Tensor> run(const Inputs& in) const override { return {reduce(in, attrs_, kind_, name_)}; }

 private:
  ReduceAttrs attrs_;
  ReduceKind kind_;
  const char* name_;
};
}  // namespace

std::unique_ptr<Op> make_reduce(const Node& node, const OpContext& ctx, ReduceKind kind, const char* name, int64_t axes_input_opset) {
  return std::make_unique<ReduceOp>(read_reduce_attrs(node, ctx.opset >= axes_input_opset), kind, name);
}

}  // namespace q8
