#include "engine/ir/clip_bounds.h"

namespace q8 {

std::optional<ClipBounds> clip_bounds(const Graph& graph, const Node& clip) {
  std::optional<float> lo, hi;
  if (clip.has("min")) lo = clip.attr_float("min", 0.0f);
  if (clip.has("max")) hi = clip.attr_float("max", 0.0f);
  for (size_t i = 1; i < 3 && i < clip.inputs.size(); ++i) {
    if (clip.inputs[i].empty()) continue;
    const Tensor* t = graph.constant(clip.inputs[i]);
    if (!t || t->dtype() != DType::Float32 || t->numel() != 1) return std::nullopt;
    (i == 1 ? lo : hi) = t->data<float>()[0];
  }
  return std::make_pair(lo, hi);
}

}  // namespace q8
