// AveragePool: Y[n, c, o…] = Σ window X / count, where count is the number of window positions
// inside X (count_include_pad = 0) or inside X extended by its pads (count_include_pad = 1).
#include "engine/cpu/parallel.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/pooling.h"

namespace q8 {

namespace {

class AveragePool final : public Op {
 public:
  explicit AveragePool(const Node& node)
      : window_(Window::from_node(node)), include_pad_(node.attr_int("count_include_pad", 0) != 0), name_(node.describe()) {}

  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = float_input(in, 0, "AveragePool", "X");
    const PoolShape p = resolve_pool(window_, x.dims(), name_);
    if (p.in_spatial.size() == 2) return {pool_2d(x, p)};
    const ConvGeometry geo(p.window, p.in_spatial, /*with_offsets=*/true);
    const std::vector<int64_t> padded = include_pad_ ? padded_window_counts(p.window, p.in_spatial) : std::vector<int64_t>{};
    Tensor y(DType::Float32, p.out_dims);
    const int64_t planes = x.dim(0) * x.dim(1);
    const float* px = x.data<float>();
    float* py = y.data<float>();
    parallel_for(planes, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, geo.out_size * geo.kernel_size)), [&](int64_t p0, int64_t p1) {
    for (int64_t plane = p0; plane < p1; ++plane) {
      const float* src = px + plane * geo.in_size;
      for (int64_t o = 0; o < geo.out_size; ++o) {
        float sum = 0;
        int64_t count = 0;
        for (int64_t k = 0; k < geo.kernel_size; ++k) {
          const int64_t off = geo.offset(k, o);
          if (off >= 0) sum += src[off], ++count;
        }
        if (include_pad_) count = padded[size_t(o)];
        py[plane * geo.out_size + o] = count ? sum / float(count) : 0.0f;
      }
    }
    });
    return {std::move(y)};
  }

 private:
  // 2-D, walked directly: the taps inside the input, summed in the same (row-major) order as the
  // general loop.
  Tensor pool_2d(const Tensor& x, const PoolShape& p) const {
    const std::vector<int64_t> padded = include_pad_ ? padded_window_counts(p.window, p.in_spatial) : std::vector<int64_t>{};
    return q8::pool_2d(x, p, [&](const WindowTaps2d<>& t, int64_t o) {
      float sum = 0;
      for (int64_t ki = t.ki0; ki < t.ki1; ++ki)
        for (int64_t kj = t.kj0; kj < t.kj1; ++kj) sum += t.at(ki, kj);
      const int64_t count = include_pad_ ? padded[size_t(o)] : t.count();
      return count ? sum / float(count) : 0.0f;
    });
  }

  Window window_;
  bool include_pad_;
  std::string name_;
};

}  // namespace

std::unique_ptr<Op> create_average_pool(const Node& node, const OpContext&) { return std::make_unique<AveragePool>(node); }

}  // namespace q8
