#include "engine/ops/pooling.h"

#include <algorithm>

namespace q8 {

PoolShape resolve_pool(const Window& w, const Dims& x, const std::string& name) {
  check(x.size() >= 3, name + ": input of shape " + dims_to_string(x) + " has no spatial dimensions");
  check(!w.kernel.empty(), name + ": attribute 'kernel_shape' is required");
  PoolShape p;
  p.in_spatial.assign(x.begin() + 2, x.end());
  check(w.kernel.size() == p.in_spatial.size(), name + ": kernel_shape has " + std::to_string(w.kernel.size()) +
                                                    " values for " + std::to_string(p.in_spatial.size()) + " spatial dimensions");
  // As ONNX Runtime requires: a window could otherwise lie wholly in the padding.
  const size_t rank = w.kernel.size();
  for (size_t i = 0; i < w.pads.size() && w.pads.size() == 2 * rank; ++i)
    check(w.pads[i] < w.kernel[i % rank], name + ": pads[" + std::to_string(i) + "] = " + std::to_string(w.pads[i]) +
                                              " is not smaller than kernel_shape[" + std::to_string(i % rank) +
                                              "] = " + std::to_string(w.kernel[i % rank]));
  p.window = resolve_window(w, p.in_spatial, w.kernel, name);
  p.out_dims = {x[0], x[1]};
  p.out_dims.insert(p.out_dims.end(), p.window.output.begin(), p.window.output.end());
  return p;
}

std::vector<int64_t> padded_window_counts(const ResolvedWindow& w, const Dims& in) {
  const size_t rank = in.size();
  int64_t out_size = 1;
  for (int64_t o : w.output) out_size *= o;
  std::vector<int64_t> counts(size_t(out_size), 1);
  for (int64_t oi = 0; oi < out_size; ++oi) {
    int64_t rest = oi, count = 1;
    for (size_t d = rank; d-- > 0;) {
      const int64_t o = rest % w.output[d];
      rest /= w.output[d];
      const int64_t start = o * w.strides[d] - w.pad_begin[d];
      int64_t inside = 0;
      for (int64_t k = 0; k < w.kernel[d]; ++k) {
        const int64_t pos = start + k * w.dilations[d];
        inside += pos >= -w.pad_begin[d] && pos < in[d] + w.pad_end[d];
      }
      count *= inside;
    }
    counts[size_t(oi)] = count;
  }
  return counts;
}

}  // namespace q8
