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
  // general loop. An output row's columns whose windows lie wholly inside the plane's width are
  // summed tap by tap over the whole run (pool_2d's interior run): each element still adds its
  // taps in that order from +0, so the same bits, in a loop the compiler vectorizes.
  Tensor pool_2d(const Tensor& x, const PoolShape& p) const {
    const std::vector<int64_t> padded = include_pad_ ? padded_window_counts(p.window, p.in_spatial) : std::vector<int64_t>{};
    const ResolvedWindow& w = p.window;
    const int64_t sx = w.strides[1], left = w.pad_begin[1], kw = w.kernel[1];
    const auto average = [&](const WindowTaps2d<>& t, int64_t o) {
      float sum = 0;
      for (int64_t ki = t.ki0; ki < t.ki1; ++ki)
        for (int64_t kj = t.kj0; kj < t.kj1; ++kj) sum += t.at(ki, kj);
      const int64_t count = include_pad_ ? padded[size_t(o)] : t.count();
      return count ? sum / float(count) : 0.0f;
    };
    const auto interior = [&](const WindowTaps2d<>& t, float* row, int64_t o, int64_t a, int64_t b) {
      interior_sums(t, row, a, b, sx, left, kw, include_pad_ ? padded.data() + o : nullptr);
    };
    return q8::pool_2d(x, p, average, interior);
  }

  // row[a, b) of one output row whose windows' columns all lie inside the plane.
  static void interior_sums(const WindowTaps2d<>& t, float* __restrict row, int64_t a, int64_t b, int64_t sx, int64_t left, int64_t kw,
                            const int64_t* padded) {
    float* __restrict out = row + a;
    const int64_t n = b - a;
    std::fill(out, out + n, 0.0f);
    for (int64_t ki = t.ki0; ki < t.ki1; ++ki)
      for (int64_t kj = 0; kj < kw; ++kj) {
        const float* __restrict src = t.plane + (t.y_begin + ki * t.dilation_y) * t.width + a * sx - left + kj * t.dilation_x;
        if (sx == 1)
          for (int64_t i = 0; i < n; ++i) out[i] += src[i];
        else
          for (int64_t i = 0; i < n; ++i) out[i] += src[i * sx];
      }
    const int64_t inside = (t.ki1 - t.ki0) * kw;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t count = padded ? padded[a + i] : inside;
      out[i] = count ? out[i] / float(count) : 0.0f;
    }
  }

  Window window_;
  bool include_pad_;
  std::string name_;
};

}  // namespace

std::unique_ptr<Op> create_average_pool(const Node& node, const OpContext&) { return std::make_unique<AveragePool>(node); }

}  // namespace q8
