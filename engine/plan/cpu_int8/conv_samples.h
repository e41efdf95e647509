// What QConv and QConvTranspose on the CPU INT8 backend share once oneDNN's primitive is ready:
// per sample, x to channels-last, the exact int32 sums, the residual to channels-last, the
// reference's epilogue a position at a time (vectorized for int8 outputs), the output back to
// channels-first (docs/cpu.md, "INT8"); for a node the layout pass made channels-last, the same
// without the three copies (docs/cpu.md, "Channels-last INT8 chains").
#pragma once

#include "engine/cpu/int8_primitive.h"
#include "engine/plan/cpu_int8/primitive_cache.h"
#include "engine/plan/reference/epilogue.h"

namespace q8 {

// The primitives of one convolution node, weights (constant: int8_node_refusal requires it)
// packed when each is made.
using Int8ConvCache = PrimitiveCache<Int8ConvShape, Int8ConvPrimitive>;
const Int8ConvPrimitive* conv_primitive(Int8ConvCache& cache, const Int8ConvShape& shape, const int8_t* w);

// y = epilogue(conv(x)) for every sample of x ([N, C, S_in…]) into y ([N, M, S_out…]); epilogue
// bound to the node's inputs. With channels_last x, the residual and y are [N, S…, C] instead.
void run_conv_samples(const Int8ConvPrimitive& conv, const Int8ConvShape& shape, const Tensor& x, const Epilogue& epilogue, Tensor& y,
                      bool channels_last = false);

}  // namespace q8
