// MaxPool: Y[n, c, o…] = max over the window of X (padding never wins). The optional Indices
// output holds flat indices into X (storage_order 0: row-major; 1: column-major spatial).
#include <limits>

#include "engine/cpu/parallel.h"
#include "engine/ops/pooling.h"

namespace q8 {

namespace {

class MaxPool final : public Op {
 public:
  explicit MaxPool(const Node& node)
      : window_(Window::from_node(node)), storage_order_(node.attr_int("storage_order", 0)),
        outputs_(node.outputs.size()), name_(node.describe()) {}

  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = required_input(in, 0, "MaxPool", "X");
    check(x.dtype() == DType::Float32 || x.dtype() == DType::Uint8 || x.dtype() == DType::Int8,
          name_ + ": input type " + std::string(dtype_name(x.dtype())) + " is not supported");
    const PoolShape p = resolve_pool(window_, x.dims(), name_);
    if (p.in_spatial.size() == 2 && outputs_ == 1) {
      if (x.dtype() == DType::Float32) return {max_2d<float>(x, p)};
      if (x.dtype() == DType::Int8) return {max_2d<int8_t>(x, p)};
      return {max_2d<uint8_t>(x, p)};
    }
    const ConvGeometry geo(p.window, p.in_spatial, /*with_offsets=*/true);
    Tensor y(x.dtype(), p.out_dims);
    Tensor indices(DType::Int64, p.out_dims);
    const int64_t planes = x.dim(0) * x.dim(1);
    visit_numeric(x.dtype(), [&]<typename T>() {
      const T* px = x.data<T>();
      T* py = y.data<T>();
      int64_t* pi = indices.data<int64_t>();
      parallel_for(planes, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, geo.out_size * geo.kernel_size)), [&](int64_t p0, int64_t p1) {
      for (int64_t plane = p0; plane < p1; ++plane) {
        const T* src = px + plane * geo.in_size;
        for (int64_t o = 0; o < geo.out_size; ++o) {
          T best = std::numeric_limits<T>::lowest();
          int64_t best_at = -1;
          for (int64_t k = 0; k < geo.kernel_size; ++k) {
            const int64_t off = geo.offset(k, o);
            if (off >= 0 && (best_at < 0 || src[off] > best)) best = src[off], best_at = off;
          }
          py[plane * geo.out_size + o] = best;
          pi[plane * geo.out_size + o] = plane * geo.in_size + column_major(best_at, p.in_spatial);
        }
      }
      });
    });
    std::vector<Tensor> out{std::move(y)};
    if (outputs_ > 1) out.push_back(std::move(indices));
    return out;
  }

 private:
  // The maximum's start: −∞ for float32, the type's lowest value for int8 and uint8.
  template <typename T>
  static T lowest() {
    return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::lowest();
  }

  // The common case, walked directly: 2-D, no Indices output, float32 or a plan's int8 and uint8
  // (the same maximum as the general walk: exact, whatever the order).
  template <typename T>
  static Tensor max_2d(const Tensor& x, const PoolShape& p) {
    if (halving_window(p)) return halve<T>(x, p);
    return q8::pool_2d<T>(x, p, [](const WindowTaps2d<T>& t, int64_t) {
      T best = lowest<T>();
      for (int64_t ki = t.ki0; ki < t.ki1; ++ki)
        for (int64_t kj = t.kj0; kj < t.kj1; ++kj) best = std::max(best, t.at(ki, kj));
      return best;
    });
  }

  // Those windows walked without the general walk's bounds arithmetic: the same taps in the same
  // order (row by row, std::max from lowest<T>()).
  template <typename T>
  static Tensor halve(const Tensor& x, const PoolShape& p) {
    const int64_t h = p.in_spatial[0], wd = p.in_spatial[1], oh = p.window.output[0], ow = p.window.output[1];
    Tensor y = Tensor::uninitialized(x.dtype(), p.out_dims);
    const T* px = x.data<T>();
    T* py = y.data<T>();
    parallel_for(x.dim(0) * x.dim(1), std::max<int64_t>(1, 16384 / std::max<int64_t>(1, oh * ow)), [&](int64_t p0, int64_t p1) {
      for (int64_t plane = p0; plane < p1; ++plane)
        for (int64_t oy = 0; oy < oh; ++oy) {
          const T* r0 = px + plane * h * wd + 2 * oy * wd;
          const T* r1 = r0 + wd;
          T* dst = py + (plane * oh + oy) * ow;
          for (int64_t ox = 0; ox < ow; ++ox) {
            const T lo = lowest<T>();
            dst[ox] = std::max(std::max(std::max(std::max(lo, r0[2 * ox]), r0[2 * ox + 1]), r1[2 * ox]), r1[2 * ox + 1]);
          }
        }
    });
    return y;
  }

  // A row-major spatial offset re-expressed in the storage order asked for.
  int64_t column_major(int64_t offset, const Dims& spatial) const {
    if (storage_order_ == 0 || offset < 0) return offset;
    int64_t result = 0, scale = 1;
    std::vector<int64_t> idx(spatial.size());
    for (size_t d = spatial.size(); d-- > 0;) idx[d] = offset % spatial[d], offset /= spatial[d];
    for (size_t d = 0; d < spatial.size(); ++d) result += idx[d] * scale, scale *= spatial[d];
    return result;
  }

  Window window_;
  int64_t storage_order_;
  size_t outputs_;
  std::string name_;
};

}  // namespace

std::unique_ptr<Op> create_max_pool(const Node& node, const OpContext&) { return std::make_unique<MaxPool>(node); }

}  // namespace q8
