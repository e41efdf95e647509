// Numpy broadcasting: output shapes and strided loops over broadcast operands.
#pragma once

#include <algorithm>
#include <array>
#include <vector>

#include "engine/cpu/parallel.h"
#include "engine/ir/tensor.h"

namespace q8 {

// Elementwise loops go parallel above this many elements per thread (a 128-token BERT-base
// activation, 98,304 values, splits 12 ways).
inline constexpr int64_t kParallelGrain = 8192;

// The numpy broadcast of a and b; Error naming op and both shapes when they do not broadcast.
Dims broadcast_dims(const Dims& a, const Dims& b, const char* op);

// Element strides of operands viewed in an output shape (0 along broadcast dimensions), with
// adjacent dimensions merged where every operand allows it, so loops run on long rows.
struct BroadcastPlan {
  Dims dims;                                  // coalesced output dims (rank >= 1)
  std::vector<std::vector<int64_t>> strides;  // per operand, per coalesced dim
};
BroadcastPlan plan_broadcast(const Dims& out, const std::vector<const Dims*>& operands);

// A float32 tensor's values broadcast to dims (which its shape must broadcast to), as a new tensor.
Tensor broadcast_float_to(const Tensor& t, const Dims& dims);

// Calls row(out0, base, step, len) for every stretch of a row of the coalesced output: its len
// elements are out0 … out0 + len − 1, and operand k's element for out0 + j is at base[k] + j · step[k]
// (step 0 where the operand broadcasts along the row). Stretches run in parallel when the output
// is large, unless Parallel is false (for loops that accumulate into shared outputs); a row longer
// than kParallelGrain is cut into stretches of kParallelGrain, so that an output that coalesces
// into a few long rows (a tensor times a scalar) is still split among the threads.
template <size_t N, bool Parallel = true, typename Row>
void broadcast_rows(const BroadcastPlan& plan, Row&& row_fn) {
  const size_t rank = plan.dims.size();
  const int64_t inner = plan.dims[rank - 1];
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < rank; ++d) rows *= plan.dims[d];
  std::array<int64_t, N> step;
  for (size_t k = 0; k < N; ++k) step[k] = plan.strides[k][rank - 1];
  const int64_t stretch = Parallel ? std::min(inner, kParallelGrain) : inner;
  const int64_t per_row = stretch > 0 ? (inner + stretch - 1) / stretch : 1;
  const auto rows_loop = [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t row = t / per_row, first = (t % per_row) * stretch;
      std::array<int64_t, N> base{};
      int64_t rest = row;
      for (size_t d = rank - 1; d-- > 0;) {
        const int64_t i = rest % plan.dims[d];
        rest /= plan.dims[d];
        for (size_t k = 0; k < N; ++k) base[k] += i * plan.strides[k][d];
      }
      for (size_t k = 0; k < N; ++k) base[k] += first * step[k];
      row_fn(row * inner + first, base, step, std::min(stretch, inner - first));
    }
  };
  if (Parallel) parallel_for(rows * per_row, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(stretch, 1)), rows_loop);
  else rows_loop(0, rows * per_row);
}

// Calls fn(out_index, offsets) for every output element, where offsets[k] is the element
// offset into operand k, row by row as broadcast_rows.
template <size_t N, bool Parallel = true, typename Fn>
void broadcast_loop(const BroadcastPlan& plan, Fn&& fn) {
  broadcast_rows<N, Parallel>(plan, [&](int64_t out0, const std::array<int64_t, N>& base, const std::array<int64_t, N>& step, int64_t inner) {
    for (int64_t j = 0; j < inner; ++j) {
      std::array<int64_t, N> off;
      for (size_t k = 0; k < N; ++k) off[k] = base[k] + j * step[k];
      fn(out0 + j, off);
    }
  });
}

}  // namespace q8
