// The result of calibration: amax (and the statistics behind it) per tensor, plus the weight
// ranges per output channel, and what the table was made from.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "calib/quant_descriptor.h"
#include "calib/tensor_observer.h"

namespace q8 {

// amax below this is degenerate: recorded as 0, written with scale kMinAmax / 127.
inline constexpr double kMinAmax = 1.0 / 16777216.0;  // 2^-24

struct TensorRange {
  QuantDescriptor descriptor;  // amax has one value for activations
  TensorStats stats;
  std::string producer_op;     // op type of the node producing it ("" for graph inputs)
  double clipped = 0;          // fraction of its non-zero values above amax (calib/clipping.h)
  // max |x| per channel of the last axis, for a tensor a MatMul or Gemm multiplies by a constant
  // weight (what SmoothQuant reads, docs/quantization.md); empty otherwise.
  std::vector<double> channel_amax;
  bool degenerate() const { return descriptor.amax.empty() || descriptor.amax[0] < kMinAmax; }
  // amax / 127, with the degenerate floor applied.
  double scale() const;
};

struct WeightRange {
  std::string tensor;  // the initializer
  std::string node;    // the node using it
  std::string op;      // Conv, ConvTranspose, Gemm, MatMul
  int64_t axis = 0;    // axis of the weight the channels run along (ConvTranspose: 1)
  std::vector<double> amax;  // one per output channel
};

struct RangeTable {
  std::string model_sha256;
  std::string q8_version;
  std::string dataset;        // description of the data and preprocessing
  uint64_t samples = 0;
  std::string method;         // the run's default method (settings.method), "" if unknown
  std::string preprocess;     // the preprocessing as JSON (Preprocessing::to_json), "" if unknown
  bool equalize = false;      // calibrated on the graph after cross-layer equalization (--equalize)
  // The data calibration read and its order (settings.data, shuffle, seed): where the samples
  // after its own are, for --budget, --bias-correction and the check after quantizing.
  std::string data;
  bool shuffle = false;
  uint64_t seed = 0;
  std::map<std::string, TensorRange> activations;
  std::map<std::string, WeightRange> weights;
};

}  // namespace q8
