// Sliding-window geometry shared by Conv, ConvTranspose and the pooling ops: kernel, strides,
// dilations, pads and auto_pad, resolved against the input's spatial size (docs/ops.md).
#pragma once

#include <string>
#include <vector>

#include "engine/ir/node.h"
#include "engine/ir/tensor.h"

namespace q8 {

struct Window {
  std::vector<int64_t> kernel;     // spatial kernel size; empty = from the weight
  std::vector<int64_t> strides;    // empty = all 1
  std::vector<int64_t> dilations;  // empty = all 1
  std::vector<int64_t> pads;       // [begin..., end...]; empty = all 0
  std::string auto_pad = "NOTSET";
  bool ceil_mode = false;

  // Reads kernel_shape, strides, dilations, pads, auto_pad and ceil_mode; validates auto_pad.
  static Window from_node(const Node& node);
};

// A window with every list filled for `spatial` dimensions and pads resolved.
struct ResolvedWindow {
  std::vector<int64_t> kernel, strides, dilations, pad_begin, pad_end;
  Dims output;  // output spatial size
};

// Resolves a forward window (Conv, pools) over the input spatial size; Errors name op and why.
ResolvedWindow resolve_window(const Window& w, const Dims& in_spatial, const std::vector<int64_t>& kernel,
                              const std::string& op);

// Resolves a ConvTranspose window: output size from strides, output_padding, output_shape and
// auto_pad (ONNX's rules), with the pads that give it; Errors name op and why.
ResolvedWindow resolve_transpose_window(const Window& window, const std::vector<int64_t>& output_padding,
                                        const std::vector<int64_t>& output_shape, const Dims& in,
                                        const std::vector<int64_t>& kernel, const std::string& name);

}  // namespace q8
