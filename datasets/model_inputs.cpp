#include "datasets/model_inputs.h"

#include <filesystem>
#include <set>

#include "engine/io/sha256.h"

namespace q8 {

int64_t batch_axis_of(const Graph& graph, const ValueInfo& v, const Preprocessing& pre) {
  const int64_t rank = v.shape ? int64_t(v.shape->size()) : -1;
  if (auto it = pre.batch_axes.find(v.name); it != pre.batch_axes.end()) {
    check(rank > it->second, "--batch-axis " + v.name + "=" + std::to_string(it->second) + ": input '" + v.name + "' has shape " +
                                 v.shape_string() + ", no such axis");
    return it->second;
  }
  if (rank == 0) return -1;
  if (rank < 0 || !(*v.shape)[0].known()) return 0;
  std::set<std::string> batch_names;  // other inputs' symbolic batch dims
  for (const ValueInfo& o : graph.inputs)
    if (o.name != v.name && o.shape && !o.shape->empty() && !(*o.shape)[0].known() && !(*o.shape)[0].symbol.empty())
      batch_names.insert((*o.shape)[0].symbol);
  for (int64_t d = 1; d < rank; ++d)
    if (!(*v.shape)[size_t(d)].known() && batch_names.count((*v.shape)[size_t(d)].symbol)) return d;
  return 0;
}

std::optional<int64_t> fixed_batch_size(const Graph& graph, const Preprocessing& pre) {
  for (const ValueInfo& v : graph.inputs) {
    const int64_t axis = batch_axis_of(graph, v, pre);
    if (axis >= 0 && v.shape && int64_t(v.shape->size()) > axis && (*v.shape)[size_t(axis)].known()) return (*v.shape)[size_t(axis)].value;
  }
  return std::nullopt;
}

BatchChoice choose_batch_size(const Graph& graph, std::optional<int64_t> asked, int64_t fallback, const std::string& fallback_note,
                              const Preprocessing& pre) {
  if (const auto fixed = fixed_batch_size(graph, pre)) {
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
StreamInput open_input(const Graph& graph, const ValueInfo& v, const std::string& path, const Preprocessing& pre, SourceOptions options) {
  const size_t rank = v.shape ? v.shape->size() : 0;
  const int64_t axis = batch_axis_of(graph, v, pre);
  options.sample_rank = rank > 0 ? rank - 1 : 0;
  options.batch_axis = size_t(std::max<int64_t>(axis, 0));
  std::optional<InputSpec> spec;
  try {
    spec = input_spec(v, pre, nullptr, axis);
  } catch (const Error&) {
    if (!v.shape || rank == 0) throw;
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
    if (source->size() == 0 || first.kind != RawSample::Kind::Tensor) spec = input_spec(v, pre, nullptr, axis);  // throws the reason
    const Dims dims = first.tensor.dims();
    spec = input_spec(v, pre, &dims, axis);
  }
  return StreamInput{std::move(*spec), std::move(source)};
}

}  // namespace

std::vector<StreamInput> open_model_inputs(const Graph& graph, const std::string& path, const Preprocessing& pre,
                                           SourceOptions options) {
  check(!graph.inputs.empty(), "the model has no inputs");
  for (const auto& [name, axis] : pre.batch_axes)
    check(graph.find_input(name) != nullptr, "--batch-axis " + name + "=" + std::to_string(axis) + ": the model has no input '" + name + "'");
  std::vector<StreamInput> inputs;
  if (graph.inputs.size() == 1) {
    inputs.push_back(open_input(graph, graph.inputs[0], path, pre, options));
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
    inputs.push_back(open_input(graph, v, entry.string(), pre, options));
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
