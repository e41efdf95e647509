// QConv (domain q8): INT8 convolution with the requantization epilogue, as plain loops
// (docs/quantization.md, "Requantization"): acc = Σ x_q · w_q over C/g channels and the kernel
// taps (padding taps are 0), then the epilogue (epilogue.h).
// Inputs: x_q int8 [N, C, spatial…], w_q int8 [M, C/g, k…], bias, scale, residual (epilogue.h).
// Attributes: Conv's (kernel_shape, strides, dilations, pads, auto_pad, group), lo, hi, residual_scale, sum_scale, residual_first;
// channels_last = 1 (the layout pass's, 2-D): x, the residual and y are [N, H, W, C], the same
// values in another order (docs/cpu.md, "Channels-last INT8 chains").
#include "engine/cpu/parallel.h"
#include "engine/ops/channels_last.h"
#include "engine/ops/conv_common.h"
#include "engine/plan/reference/epilogue.h"
#include "engine/plan/reference/window_shape.h"

namespace q8 {

namespace {
class QConv final : public SizedOp {
 public:
  explicit QConv(const Node& node)
      : window_(Window::from_node(node)), group_(node.attr_int("group", 1)), channels_last_(node.attr_int("channels_last", 0) != 0),
        epilogue_(node), name_(node.describe()) {
    check(group_ >= 1, name_ + ": group must be >= 1");
  }

  std::vector<TensorDesc> output_descs(const std::vector<TensorDesc>& in) const override {
    const WindowShape g = geometry(in);
    const Dims out = channels_last_ ? channels_last_dims(g.out) : g.out;
    return {{epilogue_.check_inputs(in, g.out[1], out, name_), out}};
  }

  void run_into(const Inputs& in, std::vector<Tensor>& out) const override {
    const Tensor& x = *in[0];
    const Tensor& w = *in[1];
    const WindowShape shape = geometry(describe(in));
    Epilogue epilogue = epilogue_;
    epilogue.bind(in);
    Tensor& y = out[0];
    const int64_t n = x.dim(0), c = channels_last_ ? x.dims().back() : x.dim(1), m = w.dim(0);
    const ConvGeometry geo(shape.window, shape.in_spatial, true);
    const int64_t cg = c / group_, mg = m / group_, taps = geo.kernel_size;
    const int8_t* px = x.data<int8_t>();
    const int8_t* pw = w.data<int8_t>();
    // Where channel ch of position p of sample s lies, in x (positions in_size) and in y (out_size).
    const auto x_at = [&](int64_t s, int64_t ch, int64_t p) { return channels_last_ ? (s * geo.in_size + p) * c + ch : (s * c + ch) * geo.in_size + p; };
    const auto y_at = [&](int64_t s, int64_t ch, int64_t p) { return channels_last_ ? (s * geo.out_size + p) * m + ch : (s * m + ch) * geo.out_size + p; };
    // One (sample, output channel) plane per task; planes are independent, sums stay in order.
    parallel_for(n * m, 1, [&](int64_t begin, int64_t end) {
      std::vector<int64_t> acc(static_cast<size_t>(geo.out_size));
      for (int64_t plane = begin; plane < end; ++plane) {
        const int64_t s = plane / m, oc = plane % m, g = oc / mg;
        std::fill(acc.begin(), acc.end(), 0);
        for (int64_t ci = 0; ci < cg; ++ci) {
          const int8_t* filter = pw + (oc * cg + ci) * taps;
          for (int64_t k = 0; k < taps; ++k)
            for (int64_t o = 0; o < geo.out_size; ++o) {
              const int64_t at = geo.offset(k, o);
              if (at >= 0) acc[size_t(o)] += int64_t(px[x_at(s, g * cg + ci, at)]) * int64_t(filter[k]);
            }
        }
        for (int64_t o = 0; o < geo.out_size; ++o) epilogue.store(y, y_at(s, oc, o), oc, acc[size_t(o)]);
      }
    });
  }

 private:
  WindowShape geometry(const std::vector<TensorDesc>& in) const {
    check_window_inputs(in, name_);
    const Dims x = channels_first_input(in[0].dims, channels_last_, name_);
    const Dims& w = in[1].dims;
    const int64_t c = x[1], m = w[0];
    check(c % group_ == 0 && m % group_ == 0 && w[1] == c / group_,
          name_ + ": weight " + dims_to_string(w) + " does not fit " + std::to_string(c) + " input channels in " +
              std::to_string(group_) + " groups");
    return window_shape(x, m, resolve_window(window_, spatial_of(x), spatial_of(w), name_));
  }

  Window window_;
  int64_t group_;
  bool channels_last_;
  Epilogue epilogue_;
  std::string name_;
};
}  // namespace

std::unique_ptr<Op> create_qconv(const Node& node, const OpContext&) { return std::make_unique<QConv>(node); }

}  // namespace q8
