// Channels-last activations: what the layout pass (engine/passes/channels_last_layout.h) hands between
// the ops of domain com.ms.internal.nhwc, as ONNX Runtime's layout transformer names them. A
// tensor [N, C, S…] is stored as [N, S…, C]; the same values in another order, so every
// per-element result is the one the channels-first op computes (docs/cpu.md).
#pragma once

#include <functional>
#include <string>

#include "engine/ops/op.h"

namespace q8 {

inline constexpr const char* kNhwcDomain = "com.ms.internal.nhwc";

// [N, C, S…] → [N, S…, C] and back (rank >= 3; any element type).
Tensor to_channels_last(const Tensor& x);
Tensor to_channels_first(const Tensor& x);
// The same into y, of x's type and the dims channels_last_dims (channels_first_dims) gives.
void to_channels_last_into(const Tensor& x, Tensor& y);
void to_channels_first_into(const Tensor& x, Tensor& y);
// The channels-first dims of channels-last dims and back.
Dims channels_first_dims(const Dims& channels_last);
Dims channels_last_dims(const Dims& channels_first);

// Runs a channels-first computation on channels-last tensors: the inputs at `slots` go to
// channels-first, output 0 comes back channels-last. The slow path of the com.ms.internal.nhwc
// ops, for the cases their own kernels do not cover.
using ChannelsFirstRun = std::function<std::vector<Tensor>(const Inputs&)>;
std::vector<Tensor> run_channels_first(const ChannelsFirstRun& run, const Inputs& in, const std::vector<size_t>& slots);

}  // namespace q8
