#include "calib/weight_ranges.h"

#include <cmath>

#include "engine/ir/error.h"
#include "engine/ir/weight_axis.h"

namespace q8 {

std::vector<double> channel_amax(const Tensor& t, int64_t axis) {
  check(t.dtype() == DType::Float32, "weight must be float32");
  const size_t a = size_t(axis < 0 ? axis + int64_t(t.rank()) : axis);
  check(a < t.rank(), "weight axis out of range");
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < t.rank(); ++d) {
    if (d < a) outer *= t.dim(d);
    if (d > a) inner *= t.dim(d);
  }
  const int64_t channels = t.dim(a);
  std::vector<double> amax(size_t(channels), 0.0);
  const float* p = t.data<float>();
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t i = 0; i < inner; ++i)
        amax[size_t(c)] = std::max(amax[size_t(c)], double(std::fabs(p[(o * channels + c) * inner + i])));
  return amax;
}

std::vector<double> conv_transpose_channel_amax(const Tensor& w, int64_t group) {
  check(w.rank() >= 3 && w.dim(0) % group == 0, "ConvTranspose weight does not fit group " + std::to_string(group));
  const int64_t c = w.dim(0), mg = w.dim(1), cg = c / group;
  int64_t k = 1;
  for (size_t d = 2; d < w.rank(); ++d) k *= w.dim(d);
  std::vector<double> amax(size_t(mg * group), 0.0);
  const float* p = w.data<float>();
  for (int64_t ci = 0; ci < c; ++ci) {
    const int64_t gi = ci / cg;
    for (int64_t j = 0; j < mg; ++j)
      for (int64_t i = 0; i < k; ++i) {
        double& a = amax[size_t(gi * mg + j)];
        a = std::max(a, double(std::fabs(p[(ci * mg + j) * k + i])));
      }
  }
  return amax;
}

std::map<std::string, WeightRange> weight_ranges(const Graph& graph) {
  std::map<std::string, WeightRange> out;
  for (const Node& n : graph.nodes) {
    if (!n.domain.empty() || n.inputs.size() < 2) continue;
    const Tensor* wp = graph.constant(n.inputs[1]);
    if (!wp || wp->dtype() != DType::Float32) continue;
    const Tensor& w = *wp;
    const std::optional<int64_t> axis = per_channel_axis(n, w.rank());
    if (!axis) continue;
    WeightRange r{n.inputs[1], n.name, n.op_type, *axis, {}};
    r.amax = n.op_type == "ConvTranspose" ? conv_transpose_channel_amax(w, n.attr_int("group", 1)) : channel_amax(w, *axis);
    out[r.tensor] = std::move(r);
  }
  return out;
}

}  // namespace q8
