#include "calib/session.h"

#include <algorithm>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "calib/json_table.h"
#include "calib/trt_cache.h"
#include "engine/io/atomic_write.h"
#include "engine/io/sha256.h"
#include "engine/onnx/import.h"

namespace q8 {

namespace {

// A histogram file continued or added must be this model's, with the same bins and zero rule.
HistogramFile read_for(const std::string& path, const std::string& sha, const SessionOptions& o, const char* verb) {
  HistogramFile file = read_histograms(path);
  check(file.model_sha256 == sha, path + " was made for another model than " + o.model);
  check(file.equalize == o.equalize, path + (file.equalize ? " was observed on the equalized graph (--equalize); " : " was observed without --equalize; ") +
                                         verb + " with the same setting");
  check(file.bins == o.bins && file.skip_zeros == o.skip_zeros, path + " was made with --bins " + std::to_string(file.bins) +
                                                                    (file.skip_zeros ? " --skip-zeros" : "") + "; " + verb +
                                                                    " with the same settings");
  return file;
}

}  // namespace

CalibrationSession::CalibrationSession(SessionOptions options) : options_(std::move(options)) {
  const SessionOptions& o = options_;
  check_argument(o.bins >= 2 && o.bins <= (int64_t(1) << 24) && (o.bins & (o.bins - 1)) == 0,
                 "bins " + std::to_string(o.bins) + ": must be a power of two from 2 to 16777216");
  check_argument(o.choice.options.percentile >= 0 && o.choice.options.percentile <= 100,
                 "percentile " + std::to_string(o.choice.options.percentile) + ": must be in [0, 100]");
  const auto check_method = [](const std::string& method) {
    check_argument(find_method(method) != nullptr, "method '" + method + "': unknown (methods: " + method_names() + ")");
  };
  check_method(o.choice.default_method);
  for (const auto& [name, method] : o.choice.overrides) check_method(method);
  // One read of the model serves both the graph and its fingerprint.
  const std::string bytes = read_file(o.model);
  graph_ = parse_model(bytes, std::filesystem::path(o.model).parent_path().string(), o.model, o.model);
  sha_ = sha256_hex(bytes);
  if (o.equalize) equalized_ = equalize_channels(graph_);
  calibrator_ = std::make_unique<Calibrator>(graph_, ObserverOptions{o.bins, o.skip_zeros, o.keep_histograms});
  for (const auto& [name, method] : o.choice.overrides) {
    const bool op_type = std::any_of(graph_.nodes.begin(), graph_.nodes.end(), [&](const Node& n) { return n.op_type == name; });
    check_argument(op_type || calibrator_->candidates().count(name),
                   "--override " + name + "=" + method + ": no activation or op type of that name in the model");
  }
  HistogramFile previous;
  // Histogram files hold no per-channel maxima: a run resumed or merged keeps none (SmoothQuant
  // then asks for a run that saw all its data).
  if (!o.resume.empty() || !o.merge.empty()) calibrator_->drop_channels();
  if (!o.resume.empty()) {
    previous = read_for(o.resume, sha_, o, "resume");
    try {
      calibrator_->merge(previous.observers);
    } catch (const Error& e) {
      throw e.with_context(o.resume);
    }
    previous_samples_ = previous.samples;
    options_.stream.skip = int64_t(previous.samples);
  }
  for (const auto& path : o.merge) {
    HistogramFile shard = read_for(path, sha_, o, "merge");
    try {
      calibrator_->merge(shard.observers);
    } catch (const Error& e) {
      throw e.with_context(path);
    }
    merged_samples_ += shard.samples;
    dataset_ += (dataset_.empty() ? "" : " + ") + shard.dataset;
  }
  order_ = o.stream.shuffle ? "shuffled with seed " + std::to_string(o.stream.seed) : "sorted";
  if (o.batches) {
    check_argument(o.data.empty() && o.resume.empty(), "batches given with a dataset path or a run to resume: give one source of data");
    dataset_ = o.batches_description;
    order_ = "as given";
    return;
  }
  if (o.data.empty()) return;
  inputs_ = open_model_inputs(graph_, o.data, o.pre, o.source);
  batch_ = choose_batch_size(graph_, o.asked_batch, calibration_batch_size(inputs_), "picked for the input size", o.pre);
  options_.stream.batch_size = batch_.size;
  dataset_ = dataset_identity(inputs_, o.data);
  if (!o.resume.empty()) {
    // A resumed run continues the same run: the same data, order and preprocessing (unless
    // forced), and no more samples than the data has.
    if (!o.force) {
      const auto same = [&](const std::string& what, const std::string& before, const std::string& now) {
        check(before == now, o.resume + " was made with " + what + " '" + before + "', this run has '" + now + "' (--force resumes anyway)");
      };
      same("the dataset", previous.dataset, dataset_);
      same("the order", previous.order, order_);
      same("the preprocessing", previous.preprocess, o.pre.to_json());
    }
    const int64_t size = int64_t(inputs_[0].source->size());
    check(previous.samples <= uint64_t(size), o.resume + " records " + std::to_string(previous.samples) + " samples observed, but " +
                                                  o.data + " holds " + std::to_string(size));
  }
  stream_ = std::make_unique<BatchStream>(inputs_, o.pre, options_.stream);
  check(stream_->dataset_size() > 0, o.data + ": holds no samples (" + inputs_[0].source->describe() + ")");
}

CalibrationRunResult CalibrationSession::run(Progress& progress, const std::atomic<bool>& interrupt, int streams) {
  BatchSource* batches = source();
  if (!batches) return {};
  return run_calibration(graph_, *calibrator_, *batches, progress, interrupt, {streams});
}

HistogramFile CalibrationSession::histograms(int64_t positions) const {
  return {sha_,
          Q8_VERSION,
          dataset_,
          options_.bins,
          options_.skip_zeros,
          previous_samples_ + merged_samples_ + uint64_t(positions),
          calibrator_->observers(),
          order_,
          options_.pre.to_json(),
          options_.equalize};
}

RangeTable CalibrationSession::table(uint64_t samples) const {
  check(!calibrator_->observers().empty(), "no floating-point activations were observed");
  RangeTable table;
  try {
    table = calibrator_->finalize(graph_, options_.choice);
  } catch (const Error& e) {
    throw e.with_context(options_.data.empty() ? "the merged histograms (" + dataset_ + ")" : "--data " + options_.data);
  }
  table.model_sha256 = sha_, table.q8_version = Q8_VERSION, table.dataset = dataset_, table.samples = samples;
  table.method = options_.choice.default_method;
  return table;
}

std::string CalibrationSession::settings_json() const {
  const SessionOptions& o = options_;
  nlohmann::ordered_json j;
  j["method"] = o.choice.default_method;
  j["percentile"] = o.choice.options.percentile;
  j["bins"] = o.bins;
  j["skip_zeros"] = o.skip_zeros;
  j["equalize"] = o.equalize;
  std::vector<std::string> overrides;
  for (const auto& [name, method] : o.choice.overrides) overrides.push_back(name + "=" + method);
  j["overrides"] = overrides;
  j["batch_size"] = o.stream.batch_size;
  j["limit"] = o.stream.limit;
  j["shuffle"] = o.stream.shuffle;
  j["seed"] = o.stream.seed;
  j["data"] = o.data;
  j["dataset"] = dataset_;
  j["preprocessing"] = o.pre.describe();
  if (!o.data.empty()) j["preprocess"] = nlohmann::ordered_json::parse(o.pre.to_json());
  if (!choice_json_.empty()) j["auto"] = nlohmann::ordered_json::parse(choice_json_);
  return j.dump();
}

void CalibrationSession::use_method(const std::string& method, std::string choice_json) {
  options_.choice.default_method = method;
  choice_json_ = std::move(choice_json);
}

void write_calibration(const CalibrationOutputs& o, const HistogramFile& histograms, const RangeTable& table, const Graph& graph) {
  StagedFiles files;
  if (!o.histograms.empty()) files.write(o.histograms, histograms_image(histograms));
  if (!o.json.empty()) files.write(o.json, format_json_table(table, o.settings_json));
  if (!o.cache.empty()) files.write(o.cache, format_trt_cache(make_trt_cache(table, graph, o.trt_version, o.trt_algorithm)));
  files.commit();
}

}  // namespace q8
