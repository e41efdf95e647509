#include "engine/ops/window.h"

namespace q8 {

Window Window::from_node(const Node& node) {
  Window w;
  w.kernel = node.attr_ints("kernel_shape");
  w.strides = node.attr_ints("strides");
  w.dilations = node.attr_ints("dilations");
  w.pads = node.attr_ints("pads");
  w.auto_pad = node.attr_string("auto_pad", "NOTSET");
  w.ceil_mode = node.attr_int("ceil_mode", 0) != 0;
  check(w.auto_pad == "NOTSET" || w.auto_pad == "SAME_UPPER" || w.auto_pad == "SAME_LOWER" || w.auto_pad == "VALID",
        node.describe() + ": auto_pad '" + w.auto_pad + "' is not NOTSET, SAME_UPPER, SAME_LOWER or VALID");
  return w;
}

namespace {
std::vector<int64_t> filled(const std::vector<int64_t>& v, size_t n, int64_t fallback, const std::string& op,
                            const char* what) {
  if (v.empty()) return std::vector<int64_t>(n, fallback);
  check(v.size() == n, op + ": " + what + " has " + std::to_string(v.size()) + " values for " + std::to_string(n) +
                           " spatial dimensions");
  for (int64_t x : v) check(x >= 0 && (fallback == 0 || x >= 1), op + ": invalid " + what + " value " + std::to_string(x));
  return v;
}
}  // namespace

ResolvedWindow resolve_window(const Window& w, const Dims& in, const std::vector<int64_t>& kernel, const std::string& op) {
  const size_t n = in.size();
  ResolvedWindow r;
  r.kernel = filled(kernel, n, 1, op, "kernel_shape");
  r.strides = filled(w.strides, n, 1, op, "strides");
  r.dilations = filled(w.dilations, n, 1, op, "dilations");
  const std::vector<int64_t> pads = filled(w.pads, 2 * n, 0, op, "pads");
  r.pad_begin.assign(pads.begin(), pads.begin() + long(n));
  r.pad_end.assign(pads.begin() + long(n), pads.end());
  r.output.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t extent = (r.kernel[i] - 1) * r.dilations[i] + 1;  // the dilated kernel
    if (w.auto_pad == "SAME_UPPER" || w.auto_pad == "SAME_LOWER") {
      r.output[i] = (in[i] + r.strides[i] - 1) / r.strides[i];
      const int64_t total = std::max<int64_t>(0, (r.output[i] - 1) * r.strides[i] + extent - in[i]);
      r.pad_begin[i] = w.auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      r.pad_end[i] = total - r.pad_begin[i];
      continue;
    }
    if (w.auto_pad == "VALID") r.pad_begin[i] = r.pad_end[i] = 0;
    const int64_t span = in[i] + r.pad_begin[i] + r.pad_end[i] - extent;
    check(span >= 0, op + ": kernel extent " + std::to_string(extent) + " exceeds padded input size " +
                                     std::to_string(in[i] + r.pad_begin[i] + r.pad_end[i]) + " on spatial axis " +
                                     std::to_string(i));
    if (w.ceil_mode) {
      r.output[i] = (span + r.strides[i] - 1) / r.strides[i] + 1;
      // The last window must start inside the input or its begin padding.
      if ((r.output[i] - 1) * r.strides[i] >= in[i] + r.pad_begin[i]) --r.output[i];
    } else {
      r.output[i] = span / r.strides[i] + 1;
    }
  }
  return r;
}

ResolvedWindow resolve_transpose_window(const Window& window, const std::vector<int64_t>& output_padding,
                                        const std::vector<int64_t>& output_shape, const Dims& in,
                                        const std::vector<int64_t>& kernel, const std::string& name) {
  const size_t rank = in.size();
  Window forward = window;
  forward.auto_pad = "NOTSET";
  forward.ceil_mode = false;
  // Resolve lists (pads as given) against a dummy input large enough to be valid.
  Dims big(rank, 1 << 20);
  ResolvedWindow r = resolve_window(forward, big, kernel, name);
  std::vector<int64_t> out_pad = output_padding.empty() ? std::vector<int64_t>(rank, 0) : output_padding;
  check(out_pad.size() == rank, name + ": output_padding has " + std::to_string(out_pad.size()) + " values for " +
                                    std::to_string(rank) + " spatial dimensions");
  std::vector<int64_t> target = output_shape;
  if (target.size() == rank + 2) target.erase(target.begin(), target.begin() + 2);  // given as full shape
  const bool same = window.auto_pad == "SAME_UPPER" || window.auto_pad == "SAME_LOWER";
  if (target.empty() && same)
    for (size_t d = 0; d < rank; ++d) target.push_back(in[d] * r.strides[d]);
  for (size_t d = 0; d < rank; ++d) {
    const int64_t full = r.strides[d] * (in[d] - 1) + out_pad[d] + (kernel[d] - 1) * r.dilations[d] + 1;
    if (!target.empty()) {
      check(target.size() == rank, name + ": output_shape has " + std::to_string(target.size()) + " spatial values for rank " +
                                       std::to_string(rank));
      // total < 0 (output_shape beyond the full output) extends the output at the end, as
      // output_padding does. ONNX: SAME_UPPER puts floor(total / 2) first, otherwise the rest.
      const int64_t total = full - target[d];
      const int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);  // floor(total / 2)
      r.pad_begin[d] = window.auto_pad == "SAME_UPPER" ? half : total - half;
      r.pad_end[d] = total - r.pad_begin[d];
    } else if (window.auto_pad == "VALID") {
      r.pad_begin[d] = r.pad_end[d] = 0;
    }
    r.output[d] = full - r.pad_begin[d] - r.pad_end[d];
    check(r.output[d] > 0, name + ": output size on spatial axis " + std::to_string(d) + " is not positive");
  }
  return r;
}

}  // namespace q8
