#include "engine/ir/weight_axis.h"

namespace q8 {

std::optional<int64_t> per_channel_axis(const Node& node, size_t weight_rank) {
  if (!node.domain.empty()) return std::nullopt;
  if (node.op_type == "Conv") return 0;
  if (node.op_type == "ConvTranspose") return 1;
  if (node.op_type == "Gemm" && weight_rank == 2) return node.attr_int("transB", 0) ? 0 : 1;
  if (node.op_type == "MatMul" && weight_rank >= 2) return int64_t(weight_rank) - 1;
  return std::nullopt;
}

}  // namespace q8
