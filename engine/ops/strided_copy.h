// Copies between a strided view of a tensor and a dense tensor, for any element size. Used by
// the data-movement ops (Transpose, Slice, Expand).
#pragma once

#include <cstdint>
#include <vector>

#include "engine/ir/tensor.h"

namespace q8 {

// dst (dense, its own dims) [i0, …, in] = src.raw element at offset + Σ i_d · src_strides[d].
void gather_strided(const Tensor& src, int64_t offset, const std::vector<int64_t>& src_strides, Tensor& dst);

// Row-major element strides of dims.
std::vector<int64_t> dense_strides(const Dims& dims);

}  // namespace q8
