// What q8.calibrate returns: the range table as its JSON text reads back (so that quantizing it
// is quantizing the file q8 calibrate writes), the model it was made for, and the histograms; or
// what q8.load_table read from a JSON table or a TensorRT cache (no histograms).
#pragma once

#include <memory>
#include <string>

#include "calib/hdf5_histograms.h"
#include "calib/range_table.h"
#include "engine/ir/graph.h"

namespace q8::python {

struct CalibrationTable {
  std::shared_ptr<const Graph> graph;
  std::string trt_algorithm;  // the calibrator its TensorRT cache names
  std::string json;           // the JSON table's text, settings included
  RangeTable table;           // parse_json_table(json), or a TensorRT cache's ranges
  std::shared_ptr<HistogramFile> histograms;  // null for a table read from a file
  std::string source;         // the file it was read from, or ""
};

}  // namespace q8::python
