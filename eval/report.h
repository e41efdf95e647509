// The HTML report (q8 report; q8 calibrate --report): one self-contained file, with inline CSS,
// SVG and a few lines of script, that fetches nothing. It shows what the inputs hold:
// - histograms (and a range table): per tensor, the |x| histogram on a log scale with every
//   method's threshold marked and the chosen one highlighted, and the fraction each clips;
// - a comparison (q8 compare --json): the FP32/INT8 accuracy table, per-layer SQNR and isolated
//   blame charts;
// - a plan: the lowering and placement of every node.
// Every figure is also in a data-* attribute at full precision, so tests read the numbers back.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "calib/hdf5_histograms.h"
#include "calib/methods/method.h"
#include "calib/range_table.h"

namespace q8 {

struct ReportInputs {
  std::string title;                        // the model's file name
  const HistogramFile* histograms = nullptr;
  const RangeTable* table = nullptr;        // the chosen method and amax per tensor
  const nlohmann::json* compare = nullptr;  // q8 compare --json
  std::string lowering, placement;          // a plan's reports (engine/plan), "" without one
  MethodOptions method_options;             // the percentile the marks use
};

std::string render_report(const ReportInputs& in);

}  // namespace q8
