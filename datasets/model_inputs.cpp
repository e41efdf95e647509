#include "datasets/model_inputs.h"

#include <filesystem>

namespace q8 {

std::optional<int64_t> fixed_batch_size(const Graph& graph) {
  for (const ValueInfo& v : graph.inputs)
    if (v.shape && !v.shape->empty() && (*v.shape)[0].known()) return (*v.shape)[0].value;
  return std::nullopt;
}

std::vector<StreamInput> open_model_inputs(const Graph& graph, const std::string& path, const Preprocessing& pre,
                                           SourceOptions options) {
  check(!graph.inputs.empty(), "the model has no inputs");
  std::vector<StreamInput> inputs;
  if (graph.inputs.size() == 1) {
    StreamInput in{input_spec(graph.inputs[0], pre), nullptr};
    options.sample_rank = in.spec.sample_dims.size();
    in.source = open_source(path, options);
    inputs.push_back(std::move(in));
    return inputs;
  }
  namespace fs = std::filesystem;
  check(fs::is_directory(path), path + ": the model has " + std::to_string(graph.inputs.size()) +
                                    " inputs; --data must be a directory with one entry per input name");
  for (const ValueInfo& v : graph.inputs) {
    StreamInput in{input_spec(v, pre), nullptr};
    options.sample_rank = in.spec.sample_dims.size();
    fs::path entry = fs::path(path) / v.name;
    if (!fs::exists(entry)) {  // a single file named after the input, with any extension
      for (const auto& e : fs::directory_iterator(path))
        if (e.path().stem() == v.name) entry = e.path();
    }
    check(fs::exists(entry), path + ": has no entry for model input '" + v.name + "' (expected " + (fs::path(path) / v.name).string() +
                                 "/ or " + v.name + ".<ext>)");
    in.source = open_source(entry.string(), options);
    inputs.push_back(std::move(in));
  }
  return inputs;
}

}  // namespace q8
