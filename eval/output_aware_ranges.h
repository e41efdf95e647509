// Output-aware ranges (docs/calibration.md, "Output-aware ranges"): each scale source's amax
// chosen by the relative error its quantization causes in the outputs of the Conv, Gemm and
// MatMul layers that read it, measured on rows of their inputs sampled from data.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "calib/range_table.h"
#include "datasets/batch_stream.h"
#include "engine/ir/graph.h"
#include "quant/rules/rule.h"

namespace q8 {

struct OutputAwareReport {
  size_t sources = 0;        // scale sources refined
  size_t readers = 0;        // layers whose outputs decided them
  int64_t samples = 0;       // samples the rows came from
  double median_ratio = 1;   // new amax / table amax, median over the refined sources
};

// The error of one reader for amax a: ‖(x̂_a(P) − P)·Wᵀ‖² / ‖P·Wᵀ‖², rows P [rows, D] of group
// `row_group[r]`, weight W [groups · outputs, D] (each group's block of `outputs` rows).
struct ReaderRows {
  std::vector<float> rows;          // [count, D], sorted by group
  std::vector<int64_t> group_start;  // rows of group g: [group_start[g], group_start[g + 1])
  std::vector<float> weight;        // [groups · outputs, D]
  int64_t d = 0, outputs = 0;
  double energy = 0;                // ‖P·Wᵀ‖², computed once when the rows are complete
};
double reader_error(const ReaderRows& r, double amax);

// The search over candidates for a source read by `readers` whose largest |x| is max_abs, with the
// table's amax `current` among the candidates. Returns the chosen amax.
double choose_amax(const std::vector<const ReaderRows*>& readers, double max_abs, double current);

// graph: the FP32 model as given to q8 quantize (prepared here as quantize_graph prepares it);
// the table's amax of every refined source is replaced.
OutputAwareReport refine_ranges_by_output(const Graph& graph, RangeTable& table, const QuantOptions& options,
                                          const std::set<std::string>& exclude, BatchSource& stream);

}  // namespace q8
