// What QConv and QConvTranspose on the CPU INT8 backend share once oneDNN's primitive is ready:
// per sample, x to channels-last, the exact int32 sums, the residual to channels-last, the
// reference's epilogue a position at a time (vectorized for int8 outputs), the output back to
// channels-first (docs/cpu.md, "INT8").
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "engine/cpu/int8_primitive.h"
#include "engine/plan/reference/epilogue.h"

namespace q8 {

// The primitives of one node: one per shape and thread count, weights packed at creation.
class Int8ConvCache {
 public:
  // The primitive for this shape, or nullptr where oneDNN has none (the caller runs the reference).
  const Int8ConvPrimitive* get(const Int8ConvShape& shape, const int8_t* w);

 private:
  struct Entry {
    Int8ConvShape shape;
    int threads = 0;
    std::unique_ptr<Int8ConvPrimitive> conv;
  };
  std::mutex mutex_;
  std::vector<Entry> entries_;
};

// y = epilogue(conv(x)) for every sample of x ([N, C, S_in…]) into y ([N, M, S_out…]); epilogue bound to the node's inputs.
void run_conv_samples(const Int8ConvPrimitive& conv, const Int8ConvShape& shape, const Tensor& x, const Epilogue& epilogue, Tensor& y);

}  // namespace q8
