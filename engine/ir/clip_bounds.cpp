#include "engine/ir/clip_bounds.h"

namespace q8 {

std::optional<ClipBounds> clip_bounds(const Node& clip, int64_t opset, const std::function<const Tensor*(size_t)>& constant) {
  ClipBounds b;
  if (opset < 11) {
    if (clip.has("min")) b.first = clip.attr_float("min", 0.0f);
    if (clip.has("max")) b.second = clip.attr_float("max", 0.0f);
    return b;
  }
  for (size_t i = 1; i <= 2; ++i) {
    if (!clip.has_input(i)) continue;
    const Tensor* t = constant(i);
    if (!t || t->dtype() != DType::Float32 || t->numel() != 1) return std::nullopt;
    (i == 1 ? b.first : b.second) = t->data<float>()[0];
  }
  return b;
}

std::optional<ClipBounds> clip_bounds(const GraphIndex& index, const Node& clip) {
  return clip_bounds(clip, index.graph().opset(), [&](size_t i) { return index.constant(clip.inputs[i]); });
}

}  // namespace q8
