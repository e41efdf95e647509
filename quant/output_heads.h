// Output heads (docs/quantization.md, "Output heads stay FP32 where that is cheap"): weighted ops
// whose output reaches only graph outputs, through ops that move, resample or map values one at a
// time, reading no quantized weighted op's output; kept FP32 when together they hold at most
// kCheapHeadsShare of the quantized weighted ops' weights and of their multiply-accumulates a sample.
#pragma once

#include <cstddef>
#include <vector>

#include "quant/rules/rule.h"

namespace q8 {

inline constexpr double kCheapHeadsShare = 0.01;

struct HeadsCost {
  double weights = 0.0, macs = 0.0;  // the heads' shares of the quantized weighted ops'
};

// The nodes of ctx's graph that are output heads marks would quantize and whose input no quantized
// weighted op writes (through scale carriers: it would then write float), when together they hold at
// most kCheapHeadsShare of the weights and of the multiply-accumulates of the weighted ops marks
// quantize (Conv, ConvTranspose, Gemm, MatMul with a constant input 1), the latter estimated from
// ctx.table (each op's input's values a sample); none otherwise, or without a table or an input
// the table does not hold. `cost` gets their shares.
std::vector<size_t> cheap_output_heads(const MarkContext& ctx, const std::vector<NodeMark>& marks, HeadsCost& cost);

}  // namespace q8
