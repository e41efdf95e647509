// QConvTranspose (domain q8): INT8 transposed convolution with the requantization epilogue, as
// plain loops (docs/quantization.md, "ConvTranspose"): output channel o = gi·(M/g) + j gathers
// acc[o, p] = Σ x_q[gi·(C/g) + ci, i] · w_q[gi·(C/g) + ci, j, k] over every input position i and
// tap k with i·s − pad_begin + k·d = p; then the epilogue (epilogue.h) with M exact multipliers.
// Inputs: x_q int8 [N, C, spatial…], w_q int8 [C, M/g, k…], bias, scale, residual (epilogue.h).
// Attributes: ConvTranspose's (kernel_shape, strides, dilations, pads, auto_pad, group,
// output_padding, output_shape), lo, hi, residual_scale.
#include "engine/cpu/parallel.h"
#include "engine/ops/conv_common.h"
#include "engine/plan/reference/epilogue.h"

namespace q8 {

namespace {
class QConvTranspose final : public Op {
 public:
  explicit QConvTranspose(const Node& node)
      : window_(Window::from_node(node)), group_(node.attr_int("group", 1)), output_padding_(node.attr_ints("output_padding")),
        output_shape_(node.attr_ints("output_shape")), epilogue_(node), name_(node.describe()) {
    check(group_ >= 1, name_ + ": group must be >= 1");
  }

  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = required_input(in, 0, "QConvTranspose", "x");
    const Tensor& w = required_input(in, 1, "QConvTranspose", "w");
    check(x.dtype() == DType::Int8 && w.dtype() == DType::Int8, name_ + ": x and w must be int8");
    check(x.rank() >= 3 && w.rank() == x.rank(), name_ + ": x must be [N, C, spatial…] and w of the same rank");
    const int64_t n = x.dim(0), c = x.dim(1), mg = w.dim(1), m = mg * group_;
    check(w.dim(0) == c && c % group_ == 0, name_ + ": weight " + dims_to_string(w.dims()) + " does not fit " +
                                                std::to_string(c) + " input channels in " + std::to_string(group_) + " groups");
    const Dims in_spatial(x.dims().begin() + 2, x.dims().end());
    const std::vector<int64_t> kernel(w.dims().begin() + 2, w.dims().end());
    const ResolvedWindow r = resolve_transpose_window(window_, output_padding_, output_shape_, in_spatial, kernel, name_);
    Dims out_dims{n, m};
    out_dims.insert(out_dims.end(), r.output.begin(), r.output.end());
    Epilogue epilogue = epilogue_;
    epilogue.bind(in, m, out_dims, name_);
    Tensor y(epilogue.output_type(), out_dims);
    // The forward window from the output grid onto the input grid: offset(k, i) is the output
    // position that input position i reaches through tap k, or -1 outside the output.
    ResolvedWindow backward = r;
    backward.output = in_spatial;
    const ConvGeometry geo(backward, r.output, true);
    const int64_t cg = c / group_, taps = geo.kernel_size, out_size = geo.in_size, in_size = geo.out_size;
    const int8_t* px = x.data<int8_t>();
    const int8_t* pw = w.data<int8_t>();
    // One (sample, output channel) plane per task; planes are independent, sums stay in order.
    parallel_for(n * m, 1, [&](int64_t begin, int64_t end) {
      std::vector<int64_t> acc(static_cast<size_t>(out_size));
      for (int64_t plane = begin; plane < end; ++plane) {
        const int64_t s = plane / m, o = plane % m, gi = o / mg, j = o % mg;
        std::fill(acc.begin(), acc.end(), 0);
        for (int64_t ci = 0; ci < cg; ++ci) {
          const int64_t ic = gi * cg + ci;
          const int8_t* image = px + (s * c + ic) * in_size;
          const int8_t* filter = pw + (ic * mg + j) * taps;
          for (int64_t k = 0; k < taps; ++k)
            for (int64_t i = 0; i < in_size; ++i) {
              const int64_t at = geo.offset(k, i);
              if (at >= 0) acc[size_t(at)] += int64_t(image[i]) * int64_t(filter[k]);
            }
        }
        for (int64_t p = 0; p < out_size; ++p) epilogue.store(y, plane * out_size + p, o, acc[size_t(p)]);
      }
    });
    return {std::move(y)};
  }

 private:
  Window window_;
  int64_t group_;
  std::vector<int64_t> output_padding_, output_shape_;
  Epilogue epilogue_;
  std::string name_;
};
}  // namespace

std::unique_ptr<Op> create_qconv_transpose(const Node& node, const OpContext&) { return std::make_unique<QConvTranspose>(node); }

}  // namespace q8
