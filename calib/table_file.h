// The file a quantization reads its ranges from (`q8 quantize --calib`, Python's q8.load_table):
// q8's JSON range table, which must have been made for the model, or a TensorRT calibration cache
// of any version, its tensors matched to the graph's (docs/calibration.md, "Files").
#pragma once

#include <string>

#include "calib/range_table.h"
#include "engine/ir/graph.h"

namespace q8 {

struct TableFile {
  RangeTable table;
  std::string text;           // the file as read
  std::string trt_algorithm;  // the calibrator a TensorRT cache of the table names: a cache's own, else the JSON's method's
  // For a TensorRT cache: "21 activations from TensorRT cache TRT-8601-EntropyCalibration2" and the
  // cache tensors the model lacks; "" for a JSON table.
  std::string note;
};

// Errors name `path`, and for a JSON table made for another model both models' SHA-256.
TableFile read_table_file(const std::string& path, const Graph& graph, const std::string& model_sha256, const std::string& model_path);

}  // namespace q8
