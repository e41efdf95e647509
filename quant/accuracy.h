// FP32 against INT8 (a QDQ twin) on one dataset: top-1 of each when labels exist, top-1
// agreement, output cosine similarity, and per-layer SQNR = 20·log10(‖x‖ / ‖x − x̂‖) of every
// quantized activation (x from the FP32 model, x̂ its dequantized twin), worst first.
#pragma once

#include <string>
#include <vector>

#include "datasets/batch_stream.h"
#include "datasets/progress.h"
#include "engine/ir/graph.h"

namespace q8 {

struct LayerSqnr {
  std::string tensor;
  double sqnr_db = 0;
  uint64_t elements = 0;
};

struct AccuracyReport {
  int64_t samples = 0, labelled = 0;
  int64_t fp32_correct = 0, int8_correct = 0, agree = 0;
  double cosine_sum = 0;
  std::vector<LayerSqnr> layers;  // worst first
  std::string output;             // the output compared

  double fp32_top1() const { return labelled ? double(fp32_correct) / double(labelled) : 0; }
  double int8_top1() const { return labelled ? double(int8_correct) / double(labelled) : 0; }
  double agreement() const { return samples ? double(agree) / double(samples) : 0; }
  double cosine() const { return samples ? cosine_sum / double(samples) : 0; }
};

// Runs every batch through both graphs (same inputs, same order).
AccuracyReport compare_accuracy(const Graph& fp32, const Graph& qdq, BatchStream& stream, Progress& progress);
std::string format_accuracy_json(const AccuracyReport& r, const std::string& fp32_path, const std::string& qdq_path,
                                 const std::string& dataset);

}  // namespace q8
