// FP32 against INT8 (a QDQ twin) on one dataset, with metrics chosen by what the model outputs
// (docs/accuracy.md):
//   - a classifier ([N, C], C > 1): top-1 of each (with class labels), top-1 agreement, cosine;
//   - a dense map ([N, C, H, W]): per-pixel argmax agreement (C > 1), or for C = 1 the map
//     binarised at a threshold: FP32/INT8 foreground IoU and pixel agreement; with per-pixel
//     labels (masks), pixel accuracy and mean IoU of each;
//   - anything else: cosine, max abs and relative error.
// Every output gets cosine, max abs and relative error; every quantized activation its SQNR
// = 20·log10(‖x‖ / ‖x − x̂‖) (x from the FP32 model, x̂ its dequantized twin), worst first.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "datasets/batch_stream.h"
#include "datasets/progress.h"
#include "engine/ir/graph.h"
#include "eval/blame.h"

namespace q8 {

enum class OutputKind { Classifier, ClassMap, BinaryMap, Tensor };
const char* output_kind_name(OutputKind kind);

struct LayerSqnr {
  std::string tensor;
  double sqnr_db = 0;
  uint64_t elements = 0;
};

struct OutputError {
  std::string name;
  double cosine_sum = 0;    // over samples
  int64_t samples = 0;
  double max_abs_error = 0, max_abs_fp32 = 0;
  double abs_error_sum = 0;  // Σ |a − b| over every element (the mean absolute error, MAE, of mattes)
  uint64_t elements = 0;
  double cosine() const { return samples ? cosine_sum / double(samples) : 0; }
  double mean_abs_error() const { return elements ? abs_error_sum / double(elements) : 0; }
  // max |a − b| / max |a| over the whole output.
  double max_rel_error() const { return max_abs_fp32 > 0 ? max_abs_error / max_abs_fp32 : 0; }
  // Adds a batch of this output: a from the reference (FP32), b beside it, float32 of one shape whose
  // first axis is the sample.
  void add(const Tensor& a, const Tensor& b);
};

// Per-pixel classes against the masks, for one model: pixels right, and per class the
// intersection and union of prediction and mask.
struct MaskScore {
  uint64_t correct = 0;
  std::vector<uint64_t> intersection, union_;
  double mean_iou() const;
};

struct CompareOptions {
  double threshold = 0.5;                      // binarises a one-channel map
  std::shared_ptr<SampleSource> masks;         // per-pixel class labels, aligned with the data
  std::function<void(const TensorMap&)> on_batch;  // sees each batch's inputs
  bool int8_engine = false;                    // run the QDQ model lowered into fused INT8 ops
  const std::atomic<bool>* interrupt = nullptr;  // once set, compare_accuracy stops after the batch it runs
};

struct AccuracyReport {
  OutputKind kind = OutputKind::Tensor;
  std::string output;  // the output the metrics read (the first)
  int64_t samples = 0, labelled = 0;
  int64_t fp32_correct = 0, int8_correct = 0;  // classifier, labelled samples
  int64_t units = 0, agree = 0;                // samples (classifier) or pixels (maps) compared, and agreeing
  uint64_t fg_intersection = 0, fg_union = 0;  // binary maps: FP32 against INT8 foreground
  int64_t mask_pixels = 0;
  MaskScore fp32_masks, int8_masks;
  bool labels_ignored = false;                 // class labels given for a dense output
  std::vector<OutputError> outputs;
  std::vector<LayerSqnr> layers;               // worst first
  std::string placement;                       // the QDQ side's backends ("cpu-int8 5 nodes; cpu 3 nodes")

  double fp32_top1() const { return labelled ? double(fp32_correct) / double(labelled) : 0; }
  double int8_top1() const { return labelled ? double(int8_correct) / double(labelled) : 0; }
  double agreement() const { return units ? double(agree) / double(units) : 0; }
  // The metrics this report holds, by the names --fail-below takes: percentages in percent,
  // drops in points, cosine as is.
  std::map<std::string, double> metrics() const;
};

// Metric names that are drops (fail when above the value); every other fails when below.
bool metric_is_drop(const std::string& name);
// Every metric name compare can report.
const std::vector<std::string>& metric_names();

// The metrics of one comparison, batch by batch: every output's errors, and the first output's
// metrics by its kind.
class AccuracyTally {
 public:
  AccuracyTally(const Graph& fp32, const CompareOptions& options);
  // One batch's outputs from both models; batch gives the labels and sample indices.
  void add(const TensorMap& fp32_outputs, const TensorMap& int8_outputs, const Batch& batch);
  const AccuracyReport& report() const { return report_; }

 private:
  CompareOptions options_;
  AccuracyReport report_;
  bool first_ = true;
};

// Error naming `what` unless qdq has a DequantizeLinear (a QDQ model, not its FP32 original).
void check_qdq_model(const Graph& qdq, const std::string& what);
// The preprocessing a comparison feeds both models: what calibration recorded in the QDQ model's
// metadata (quant/preprocess_metadata.h), else the defaults; `from` says which.
Preprocessing recorded_or_default_preprocessing(const Graph& qdq, const std::string& what, std::string& from);

// Runs every batch through both graphs (same inputs, same order).
AccuracyReport compare_accuracy(const Graph& fp32, const Graph& qdq, BatchSource& stream, Progress& progress,
                                const CompareOptions& options);

// The FP32 model's outputs on every batch of a stream (the batches kept without their inputs),
// for measuring many QDQ variants without running FP32 again (q8 quantize --budget): it holds
// every sample's outputs.
struct ReferenceOutputs {
  std::vector<Batch> batches;
  std::vector<TensorMap> outputs;
};
ReferenceOutputs run_reference(const Graph& fp32, BatchSource& stream);
// compare_accuracy's metrics (no per-layer SQNR) of qdq on a stream that replays the reference's
// batches, against the reference's outputs.
AccuracyReport compare_to_reference(const Graph& fp32, const ReferenceOutputs& reference, const Graph& qdq, BatchSource& stream,
                                    const CompareOptions& options);
std::string format_accuracy_json(const AccuracyReport& r, const std::string& fp32_path, const std::string& qdq_path,
                                 const std::string& dataset, const BlameReport* blame = nullptr);

}  // namespace q8
