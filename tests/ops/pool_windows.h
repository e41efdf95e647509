// The 2-D pooling windows the pooling tests walk, and ONNX's output size for each.
#pragma once

#include <cstdint>
#include <string>

#include "engine/ir/node.h"

namespace q8 {

struct Window2d {
  int64_t n, c, h, w, kh, kw, sh, sw, top, left, bottom, right, dh, dw, ceil;
};

inline int64_t pool_out_size(int64_t in, int64_t k, int64_t s, int64_t p0, int64_t p1, int64_t d, int64_t ceil) {
  const int64_t span = in + p0 + p1 - d * (k - 1) - 1;
  int64_t o = (ceil ? (span + s - 1) / s : span / s) + 1;
  if (ceil && (o - 1) * s >= in + p0) --o;  // a window must start inside the input or its left padding
  return o;
}

// A pooling node of op_type over window c, reading x and writing y.
inline Node pool_node(const std::string& op_type, const Window2d& c) {
  Node node;
  node.op_type = op_type;
  node.name = "pool";
  node.inputs = {"x"};
  node.outputs = {"y"};
  node.attributes["kernel_shape"] = Attribute::of_ints({c.kh, c.kw});
  node.attributes["strides"] = Attribute::of_ints({c.sh, c.sw});
  node.attributes["pads"] = Attribute::of_ints({c.top, c.left, c.bottom, c.right});
  node.attributes["dilations"] = Attribute::of_ints({c.dh, c.dw});
  node.attributes["ceil_mode"] = Attribute::of_int(c.ceil);
  return node;
}

// Strides, pads on every side, dilations, ceil mode, a window as wide as the plane, rows narrower
// and wider than a vector.
inline constexpr Window2d kPoolWindows[] = {
    {1, 64, 112, 112, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 0},  // ResNet's stem
    {2, 5, 13, 13, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 0},   {1, 4, 17, 31, 3, 2, 1, 3, 1, 0, 2, 1, 2, 1, 0},
    {1, 2, 8, 8, 3, 3, 2, 2, 0, 0, 0, 0, 1, 1, 1},     {3, 3, 7, 9, 2, 2, 2, 2, 0, 0, 0, 0, 1, 1, 0},
    {1, 1, 5, 5, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, 0},     {1, 6, 40, 45, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0},
    {2, 3, 21, 37, 3, 5, 1, 1, 0, 2, 0, 2, 1, 2, 0},   {1, 2, 9, 50, 2, 3, 2, 2, 0, 1, 1, 1, 1, 1, 1},
};

}  // namespace q8
