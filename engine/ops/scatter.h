// What ScatterElements and ScatterND share: a copy of data with updates written at indices,
// combined by `reduction` (none: replace; add, mul, max, min), in index order.
#pragma once

#include <algorithm>
#include <string>

#include "engine/ir/node.h"
#include "engine/ir/tensor.h"

namespace q8 {

enum class ScatterReduction { None, Add, Mul, Max, Min };

ScatterReduction scatter_reduction(const Node& node);

// dst ∘ v by r, where dst and v are element i of their tensors of one numeric type.
template <typename T>
T scatter_combine(T dst, T v, ScatterReduction r) {
  switch (r) {
    case ScatterReduction::Add: return T(dst + v);
    case ScatterReduction::Mul: return T(dst * v);
    case ScatterReduction::Max: return std::max(dst, v);
    case ScatterReduction::Min: return std::min(dst, v);
    default: return v;
  }
}

// Writes element `from` of updates onto element `to` of out (both of out's type).
void scatter_element(Tensor& out, int64_t to, const Tensor& updates, int64_t from, ScatterReduction r);

}  // namespace q8
