#include "datasets/callback_batches.h"

#include <algorithm>

#include "datasets/model_inputs.h"

namespace q8 {

CallbackBatches::CallbackBatches(const Graph& graph, NextInputs next_inputs, int64_t total)
    : next_inputs_(std::move(next_inputs)), total_(total) {
  for (const ValueInfo& v : graph.inputs) inputs_.push_back({v, batch_axis_of(graph, v, {})});
}

std::optional<Batch> CallbackBatches::next() {
  if (ended_) return std::nullopt;
  std::optional<TensorMap> given = next_inputs_();
  if (!given) {
    ended_ = true;
    return std::nullopt;
  }
  const std::string where = "batch " + std::to_string(batches_++);
  std::string names;
  for (const Input& in : inputs_) names += (names.empty() ? "" : ", ") + in.info.name;
  for (const auto& [name, t] : *given) {
    const bool known = std::any_of(inputs_.begin(), inputs_.end(), [&](const Input& in) { return in.info.name == name; });
    check(known, where + ": '" + name + "' is not an input of the model (its inputs: " + names + ")");
  }
  Batch batch;
  int64_t count = -1;
  for (const Input& in : inputs_) {
    const std::string what = where + ", input '" + in.info.name + "'";
    const auto it = given->find(in.info.name);
    check(it != given->end(), where + ": no tensor for input '" + in.info.name + "' (its inputs: " + names + ")");
    const Tensor& t = it->second;
    check(t.dtype() == in.info.dtype, what + ": " + std::string(dtype_name(t.dtype())) + " given, the model takes " +
                                          std::string(dtype_name(in.info.dtype)));
    if (in.info.shape) {
      const std::vector<Dim>& shape = *in.info.shape;
      check(t.rank() == shape.size(), what + ": shape " + dims_to_string(t.dims()) + " given, the model takes rank " +
                                          std::to_string(shape.size()) + " (" + in.info.shape_string() + ")");
      for (size_t d = 0; d < shape.size(); ++d)
        check(!shape[d].known() || int64_t(d) == in.batch_axis || shape[d].value == t.dim(d),
              what + ": shape " + dims_to_string(t.dims()) + " given, the model takes " + in.info.shape_string());
    }
    if (in.batch_axis < 0 || in.batch_axis >= int64_t(t.rank())) continue;
    const int64_t n = t.dim(size_t(in.batch_axis));
    check(count < 0 || n == count, what + ": " + std::to_string(n) + " samples along axis " + std::to_string(in.batch_axis) +
                                       ", other inputs of the batch hold " + std::to_string(count));
    count = n;
  }
  batch.count = count < 0 ? 1 : count;
  check(batch.count > 0, where + ": holds no samples");
  batch.inputs = std::move(*given);
  batch.labels.assign(size_t(batch.count), std::nullopt);
  for (int64_t i = 0; i < batch.count; ++i) batch.indices.push_back(size_t(position_ + i));
  position_ += batch.count;
  batch.position = position_;
  return batch;
}

}  // namespace q8
