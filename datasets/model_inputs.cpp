#include "datasets/model_inputs.h"

#include <filesystem>

#include "engine/io/sha256.h"

namespace q8 {

std::optional<int64_t> fixed_batch_size(const Graph& graph) {
  for (const ValueInfo& v : graph.inputs)
    if (v.shape && !v.shape->empty() && (*v.shape)[0].known()) return (*v.shape)[0].value;
  return std::nullopt;
}

BatchChoice choose_batch_size(const Graph& graph, std::optional<int64_t> asked, int64_t fallback, const std::string& fallback_note) {
  if (const auto fixed = fixed_batch_size(graph)) {
    if (asked && *asked != *fixed)
      return {*fixed, "the model's inputs fix it; --batch-size " + std::to_string(*asked) + " ignored"};
    return {*fixed, asked ? "" : "the model's inputs fix it"};
  }
  if (asked) return {*asked, ""};
  return {fallback, fallback_note};
}

namespace {

// The input's spec and its samples. Dynamic dims that --size does not fill are taken from the
// first sample when the dataset holds tensors (.npy, .pb, HDF5): those fix the shape themselves.
StreamInput open_input(const ValueInfo& v, const std::string& path, const Preprocessing& pre, SourceOptions options) {
  const size_t rank = v.shape ? v.shape->size() : 0;
  options.sample_rank = rank > 0 ? rank - 1 : 0;
  std::optional<InputSpec> spec;
  try {
    spec = input_spec(v, pre);
  } catch (const Error&) {
    if (rank == 0) throw;
  }
  std::unique_ptr<SampleSource> source = open_source(path, options);
  if (!spec) {
    RawSample first;
    if (source->size() > 0) {
      try {
        first = source->load(0);
      } catch (const DecodeError& e) {
        throw Error(std::string(e.what()) + " (the first sample would fix input '" + v.name + "' of shape " + v.shape_string() +
                    "; or give --size HxW)");
      }
    }
    if (source->size() == 0 || first.kind != RawSample::Kind::Tensor) spec = input_spec(v, pre);  // throws the reason
    const Dims dims = first.tensor.dims();
    spec = input_spec(v, pre, &dims);
  }
  return StreamInput{std::move(*spec), std::move(source)};
}

}  // namespace

std::vector<StreamInput> open_model_inputs(const Graph& graph, const std::string& path, const Preprocessing& pre,
                                           SourceOptions options) {
  check(!graph.inputs.empty(), "the model has no inputs");
  std::vector<StreamInput> inputs;
  if (graph.inputs.size() == 1) {
    inputs.push_back(open_input(graph.inputs[0], path, pre, options));
    return inputs;
  }
  namespace fs = std::filesystem;
  check(fs::is_directory(path), path + ": the model has " + std::to_string(graph.inputs.size()) +
                                    " inputs; --data must be a directory with one entry per input name");
  for (const ValueInfo& v : graph.inputs) {
    fs::path entry = fs::path(path) / v.name;
    if (!fs::exists(entry)) {  // a single file named after the input, with any extension
      for (const auto& e : fs::directory_iterator(path))
        if (e.path().stem() == v.name) entry = e.path();
    }
    check(fs::exists(entry), path + ": has no entry for model input '" + v.name + "' (expected " + (fs::path(path) / v.name).string() +
                                 "/ or " + v.name + ".<ext>)");
    inputs.push_back(open_input(v, entry.string(), pre, options));
  }
  return inputs;
}

std::string dataset_identity(const std::vector<StreamInput>& inputs, const std::string& path) {
  std::string origins;
  for (const auto& in : inputs)
    for (size_t i = 0; i < in.source->size(); ++i) origins += in.source->origin(i) + "\n";
  return inputs[0].source->describe() + " at " + path + " (sample list sha256 " + sha256_hex(origins).substr(0, 16) + ")";
}

}  // namespace q8
