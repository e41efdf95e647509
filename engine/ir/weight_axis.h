// The per-output-channel axis of a weighted op's weight (input 1), the one definition that
// calibration, the Q/DQ pass, BN folding and the INT8 engine use (DESIGN.md decision 5):
//   Conv W[M, C/g, k…]           axis 0
//   ConvTranspose W[C, M/g, k…]  axis 1 (output channel o = gi·(M/g) + j; never axis 0)
//   Gemm B                       axis 0 if transB, else 1
//   MatMul B[…, K, N]            the last axis
#pragma once

#include <cstdint>
#include <optional>

#include "engine/ir/node.h"

namespace q8 {

// nullopt for any other op, or for a weight rank the op cannot have (Gemm: 2; MatMul: ≥ 2).
std::optional<int64_t> per_channel_axis(const Node& node, size_t weight_rank);

}  // namespace q8
