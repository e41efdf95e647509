// MaxPool of domain com.ms.internal.nhwc: MaxPool on channels-last X and Y
// (engine/ops/channels_last.h). 2-D float32, int8 and uint8 with one output run here; anything else runs
// through the channels-first MaxPool between two transposes.
#include <limits>

#include "engine/cpu/parallel.h"
#include "engine/ops/pooling.h"

namespace q8 {

namespace {
class NhwcMaxPool final : public Op {
 public:
  NhwcMaxPool(const Node& node, const OpContext& ctx)
      : window_(Window::from_node(node)), single_output_(node.outputs.size() == 1), name_(node.describe()),
        channels_first_(find_op("MaxPool")->create(node, ctx)) {}

  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = required_input(in, 0, "MaxPool", "X");
    if (const auto descs = reshape(describe(in))) {
      Tensor y = Tensor::uninitialized(descs->at(0).dtype, descs->at(0).dims);
      pool(x, y);
      return {std::move(y)};
    }
    return run_channels_first([this](const Inputs& first) { return channels_first_->run(first); }, in, {0});
  }

  // Known before running for the cases run here (the executor then gives the buffer); nullopt
  // for those that run channels-first.
  std::optional<std::vector<TensorDesc>> reshape(const std::vector<TensorDesc>& in) const override {
    if (in.empty() || !own_kernel(in[0])) return std::nullopt;
    return std::vector<TensorDesc>{{in[0].dtype, channels_last_dims(resolve_pool(window_, channels_first_dims(in[0].dims), name_).out_dims)}};
  }

  void run_into(const Inputs& in, std::vector<Tensor>& out) const override {
    const Tensor& x = required_input(in, 0, "MaxPool", "X");
    if (own_kernel(x.desc()) && out.size() == 1 && out[0].desc() == reshape(describe(in))->at(0)) pool(x, out[0]);
    else out = run(in);
  }

 private:
  bool own_kernel(const TensorDesc& x) const {
    return x.dims.size() == 4 && single_output_ && (x.dtype == DType::Float32 || x.dtype == DType::Int8 || x.dtype == DType::Uint8);
  }

  void pool(const Tensor& x, Tensor& y) const {
    if (x.dtype() == DType::Float32) max_channels_last<float>(x, y);
    else if (x.dtype() == DType::Int8) max_channels_last<int8_t>(x, y);
    else max_channels_last<uint8_t>(x, y);
  }

  // From −∞ for float32, from the type's lowest value for a plan's int8 and uint8 (as MaxPool).
  template <typename T>
  void max_channels_last(const Tensor& x, Tensor& y) const {
    const PoolShape p = resolve_pool(window_, channels_first_dims(x.dims()), name_);
    const T lowest = std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::lowest();
    if (halving_window(p)) return halve<T>(x, p, lowest, y);
    pool_2d_channels_last_into<T>(x, p, lowest, [](T best, T v) { return std::max(best, v); }, [](T*, int64_t, int64_t, int64_t) {}, y);
  }

  // out[ch] = the maximum of a[ch], a[c + ch], b[ch], b[c + ch] from `lowest`, in that order; c by
  // value and the pointers restrict-qualified, so the loop vectorizes.
  template <typename T>
  static void max_of_four(T* __restrict out, const T* __restrict a, const T* __restrict b, int64_t c, T lowest) {
    for (int64_t ch = 0; ch < c; ++ch) out[ch] = std::max(std::max(std::max(std::max(lowest, a[ch]), a[c + ch]), b[ch]), b[c + ch]);
  }

  // Each output position the maximum of its four taps, every channel at once: std::max from
  // `lowest` over (2y, 2x), (2y, 2x + 1), (2y + 1, 2x), (2y + 1, 2x + 1), the general walk's taps
  // in its order (so a NaN gives what it gives there).
  template <typename T>
  static void halve(const Tensor& x, const PoolShape& p, T lowest, Tensor& y) {
    const int64_t h = p.in_spatial[0], wd = p.in_spatial[1], oh = p.window.output[0], ow = p.window.output[1], c = x.dims().back();
    const T* px = x.data<T>();
    T* py = y.data<T>();
    parallel_for(x.dim(0) * oh, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, ow * c)), [&](int64_t r0, int64_t r1) {
      for (int64_t row = r0; row < r1; ++row) {
        const int64_t oy = row % oh;
        const T* top = px + ((row / oh) * h + 2 * oy) * wd * c;
        const T* bottom = top + wd * c;
        T* out = py + row * ow * c;
        for (int64_t ox = 0; ox < ow; ++ox, out += c) max_of_four(out, top + 2 * ox * c, bottom + 2 * ox * c, c, lowest);
      }
    });
  }

  Window window_;
  bool single_output_;
  std::string name_;
  std::unique_ptr<Op> channels_first_;
};
}  // namespace

std::unique_ptr<Op> create_nhwc_max_pool(const Node& node, const OpContext& ctx) { return std::make_unique<NhwcMaxPool>(node, ctx); }

}  // namespace q8
