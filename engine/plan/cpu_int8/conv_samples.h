// What QConv and QConvTranspose on the CPU INT8 backend share once oneDNN's primitive is ready:
// per sample, x to channels-last, the exact int32 sums, the residual to channels-last, the
// reference's epilogue a position at a time (vectorized for int8 outputs), the output back to
// channels-first (docs/cpu.md, "INT8"); for a node the layout pass made channels-last, the same
// without the three copies (docs/cpu.md, "Channels-last INT8 chains").
#pragma once

#include <vector>

#include "engine/cpu/depthwise_int8.h"
#include "engine/cpu/int8_primitive.h"
#include "engine/plan/cpu_int8/non_overlapping_transpose.h"
#include "engine/plan/cpu_int8/primitive_cache.h"
#include "engine/plan/cpu_int8/rounded_residual.h"
#include "engine/plan/reference/epilogue.h"

namespace q8 {

// The primitives of one convolution node, weights (constant: int8_node_refusal requires it)
// packed when each is made.
using Int8ConvCache = PrimitiveCache<Int8ConvShape, Int8ConvPrimitive>;
// With `requantization` (the same for every primitive of the node) the primitive writes the int8
// output itself.
const Int8ConvPrimitive* conv_primitive(Int8ConvCache& cache, const Int8ConvShape& shape, const int8_t* w,
                                        const Int8Requantization* requantization = nullptr);

// A band of a 2-D convolution's output rows with its own primitive: the input rows it reads
// (from in_row, channels-last rows being contiguous) and the padding that falls in it. A sample
// runs band by band, the epilogue right after each, so the band's int32 sums are read back from
// cache rather than memory (docs/cpu.md, "Output row bands").
struct ConvBand {
  int64_t out_row = 0, out_rows = 0, in_row = 0;
  const Int8ConvPrimitive* conv = nullptr;
};
// The bands of `shape` for a run of `samples` samples, or none where one primitive serves better:
// not a 2-D convolution (or a transposed one), sums small enough to stay in cache whole, or
// written by oneDNN as int8 (`requantization`: no sums to keep) — unless the samples are fewer than
// the threads: then a band a thread, each primitive on its thread —, or a band oneDNN has no
// kernel for.
std::vector<ConvBand> conv_bands(Int8ConvCache& cache, const Int8ConvShape& shape, const int8_t* w, int64_t samples,
                                 const Int8Requantization* requantization = nullptr);

// What a convolution node runs for one input shape: its shape, and q8's depthwise kernel, a
// non-overlapping transposed convolution's row products, oneDNN's bands or oneDNN's primitive
// (none of them: the reference's loops).
struct Int8ConvLayout {
  Int8ConvShape shape;
  std::unique_ptr<const DepthwiseInt8Conv> depthwise;
  std::unique_ptr<const NonOverlappingTranspose> non_overlapping;
  std::vector<ConvBand> bands;
  const Int8ConvPrimitive* conv = nullptr;
  bool requantized = false;  // the depthwise kernel, the bands or the conv write the int8 output (no epilogue)
  std::unique_ptr<const RoundedResidual> rounded_residual;  // then added to it, where the epilogue has one
  bool has_kernel() const { return depthwise || non_overlapping || conv || !bands.empty(); }
};

// A node's layouts, one per input shape and thread count (as its primitives), made the first
// time and kept: a run neither resolves the window again nor looks up each band's primitive
// among the others (the shapes compared and copied cost about 6 % of MobileNetV2's INT8 run on
// two threads).
using Int8ConvLayouts = PrimitiveCache<Dims, Int8ConvLayout>;

// y = epilogue(conv(x)) for every sample of x ([N, C, S_in…]) into y ([N, M, S_out…]) by the
// layout's kernel; epilogue bound to the node's inputs. With channels_last x, the residual and y
// are [N, S…, C] instead. The depthwise kernel, the non-overlapping transposed convolution and the
// bands give their sums a row or a band at a time, each followed at once by its epilogue.
void run_conv_samples(const Int8ConvLayout& layout, const Tensor& x, const Epilogue& epilogue, Tensor& y, bool channels_last = false);

}  // namespace q8
