// One calibration run as `q8 calibrate` and its MPI job make it (docs/calibration.md): the model and
// its fingerprint; observers that carry on from the histograms a run saved (resume: the same model,
// bins, zero rule, data, order and preprocessing, unless forced) and add shards calibrated apart
// (merge); the data streamed through them; the range table; and the outputs, written together or
// not at all. The CLI only parses, prints and orchestrates processes.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "calib/calibration_run.h"
#include "calib/hdf5_histograms.h"
#include "datasets/batch_stream.h"
#include "datasets/model_inputs.h"
#include "datasets/progress.h"
#include "engine/passes/equalize_channels.h"

namespace q8 {

struct SessionOptions {
  std::string model;                  // path
  std::string data;                   // "" when only merging, or when batches are given
  // Batches handed over by the program instead of a dataset path (datasets/callback_batches.h),
  // and what to call them in the table's provenance.
  std::shared_ptr<BatchSource> batches;
  std::string batches_description;
  Preprocessing pre;
  SourceOptions source;
  BatchStreamOptions stream;          // its batch_size is the asked one, when asked_batch is set
  std::optional<int64_t> asked_batch;
  MethodChoice choice;
  int64_t bins = kDefaultHistogramBins;
  bool skip_zeros = false;
  bool keep_histograms = true;        // false: statistics only (nothing reads a histogram)
  std::string resume;                 // histograms to continue
  std::vector<std::string> merge;     // histograms to add
  bool force = false;                 // resume although the data, order or preprocessing differ
  bool equalize = false;              // observe the graph after cross-layer equalization
};

class CalibrationSession {
 public:
  // Reads the model and the histograms to resume and merge (each checked against the model and
  // the settings), opens the data and its stream; Error naming the file or flag at fault.
  explicit CalibrationSession(SessionOptions options);

  const Graph& graph() const { return graph_; }
  const std::string& model_sha256() const { return sha_; }
  const SessionOptions& options() const { return options_; }
  // The data's identity (description, path, sample list), or the merged files' datasets.
  const std::string& dataset() const { return dataset_; }
  const std::string& order() const { return order_; }
  const std::vector<StreamInput>& inputs() const { return inputs_; }
  const BatchChoice& batch() const { return batch_; }
  BatchStream* stream() { return stream_.get(); }  // nullptr when only merging or given batches
  // What run() reads: the stream, or the batches given; nullptr when only merging.
  BatchSource* source() { return stream_ ? stream_.get() : options_.batches.get(); }
  uint64_t resumed_samples() const { return previous_samples_; }
  uint64_t merged_samples() const { return merged_samples_; }
  // What --equalize did (empty when not asked).
  const EqualizeReport& equalized() const { return equalized_; }
  Calibrator& calibrator() { return *calibrator_; }

  // Streams the data through the observers, `streams` batches at once, stopping between batches
  // once interrupt is set.
  CalibrationRunResult run(Progress& progress, const std::atomic<bool>& interrupt, int streams);
  // What has been observed, after `positions` samples of the stream's order: what --histograms
  // writes (and what an interrupted run leaves to resume from).
  HistogramFile histograms(int64_t positions) const;
  // Each tensor's amax by its method, the weights' ranges and the provenance, after `samples`
  // samples in all; Error naming the data when an input saw no finite value.
  RangeTable table(uint64_t samples) const;
  // The run's settings as the JSON table keeps them ("settings": method, bins, data, order,
  // preprocessing, ...): what quantize, compare and a resumed run read back.
  std::string settings_json() const;
  // Calibrates by `method` from here on (q8 calibrate --method auto, once it has chosen); the
  // choice's figures (JSON) go into the settings as "auto".
  void use_method(const std::string& method, std::string choice_json);

 private:
  SessionOptions options_;
  Graph graph_;
  std::string sha_, dataset_, order_;
  std::unique_ptr<Calibrator> calibrator_;
  std::vector<StreamInput> inputs_;
  BatchChoice batch_;
  std::unique_ptr<BatchStream> stream_;
  uint64_t previous_samples_ = 0, merged_samples_ = 0;
  EqualizeReport equalized_;
  std::string choice_json_;
};

// The files a calibration writes, all or none (StagedFiles): histograms, JSON table, TensorRT cache.
struct CalibrationOutputs {
  std::string histograms, json, cache;
  std::string trt_version, trt_algorithm;
  std::string settings_json;  // the run's settings, kept in the JSON table
};
void write_calibration(const CalibrationOutputs& outputs, const HistogramFile& histograms, const RangeTable& table, const Graph& graph);

}  // namespace q8
