#include "engine/ops/broadcast.h"

#include <algorithm>

namespace q8 {

Dims broadcast_dims(const Dims& a, const Dims& b, const char* op) {
  const size_t rank = std::max(a.size(), b.size());
  Dims out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    check(da == db || da == 1 || db == 1, std::string(op) + ": shapes " + dims_to_string(a) + " and " +
                                              dims_to_string(b) + " do not broadcast");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

BroadcastPlan plan_broadcast(const Dims& out, const std::vector<const Dims*>& operands) {
  const size_t rank = out.size();
  // Full-rank strides per operand.
  std::vector<std::vector<int64_t>> strides;
  for (const Dims* dims : operands) {
    std::vector<int64_t> s(rank, 0);
    int64_t stride = 1;
    for (size_t i = dims->size(); i-- > 0;) {
      const size_t o = i + (rank - dims->size());
      s[o] = (*dims)[i] == 1 ? 0 : stride;
      stride *= (*dims)[i];
    }
    strides.push_back(std::move(s));
  }
  BroadcastPlan plan;
  plan.strides.resize(operands.size());
  if (rank == 0) {
    plan.dims = {1};
    for (auto& s : plan.strides) s = {0};
    return plan;
  }
  // Merge dimension d into the previous kept one when every operand is contiguous across them.
  plan.dims.push_back(out[0]);
  for (size_t k = 0; k < operands.size(); ++k) plan.strides[k].push_back(strides[k][0]);
  for (size_t d = 1; d < rank; ++d) {
    bool mergeable = true;
    for (size_t k = 0; k < operands.size() && mergeable; ++k)
      mergeable = plan.strides[k].back() == strides[k][d] * out[d];
    if (mergeable) {
      plan.dims.back() *= out[d];
      for (size_t k = 0; k < operands.size(); ++k) plan.strides[k].back() = strides[k][d];
    } else {
      plan.dims.push_back(out[d]);
      for (size_t k = 0; k < operands.size(); ++k) plan.strides[k].push_back(strides[k][d]);
    }
  }
  return plan;
}

Tensor broadcast_float_to(const Tensor& t, const Dims& dims) {
  Tensor out(DType::Float32, dims);
  const BroadcastPlan plan = plan_broadcast(dims, {&t.dims()});
  float* po = out.data<float>();
  const float* pt = t.data<float>();
  broadcast_loop<1>(plan, [&](int64_t o, const std::array<int64_t, 1>& off) { po[o] = pt[off[0]]; });
  return out;
}

}  // namespace q8
