// Calibration in one call, for programs that link q8 (docs/api.md): a model and a dataset path in,
// a RangeTable out, as `q8 calibrate MODEL --data PATH` computes it (without its resume, merge
// and provenance checks).
#pragma once

#include <string>

#include "calib/calibrator.h"
#include "datasets/batch_stream.h"
#include "datasets/preprocess.h"

namespace q8 {

struct CalibrateOptions {
  std::string method = kDefaultMethod;  // max, percentile, entropy or mse
  MethodOptions method_options;         // the percentile, ...
  Preprocessing pre;                    // how images become input tensors (tensors pass as they are)
  BatchStreamOptions stream;            // batch size, limit, shuffle
  int64_t bins = kDefaultHistogramBins;
  bool skip_zeros = false;
};

// Runs the samples at `data` (a file or directory, docs/datasets.md) through `graph` and returns
// each activation's amax by `options.method`, and the weights' per-channel ranges. Error for a
// dataset that does not fit the model's inputs.
RangeTable calibrate(const Graph& graph, const std::string& data, const CalibrateOptions& options = {});

}  // namespace q8
