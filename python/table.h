// What q8.calibrate returns: the range table as its JSON text reads back (so that quantizing it
// is quantizing the file q8 calibrate writes), the model it was made for, and the histograms.
#pragma once

#include <memory>
#include <string>

#include "calib/hdf5_histograms.h"
#include "calib/range_table.h"
#include "engine/ir/graph.h"

namespace q8::python {

struct CalibrationTable {
  std::shared_ptr<const Graph> graph;
  std::string method;
  std::string json;  // format_json_table's text, settings included
  RangeTable table;  // parse_json_table(json)
  std::shared_ptr<HistogramFile> histograms;
};

}  // namespace q8::python
