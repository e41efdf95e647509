// Automatic FP32 fallback within an accuracy budget (q8 quantize --budget METRIC=VALUE,
// docs/accuracy.md "Fallback"): each node the rules quantize is ranked by its isolated effect
// (the model with that node alone quantized, against FP32 on held-back samples), then the fewest
// nodes, worst first, are kept in FP32 until the model meets the budget.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "calib/range_table.h"
#include "eval/accuracy.h"
#include "quant/rules/rule.h"

namespace q8 {

struct Budget {
  std::string metric;  // one of metric_names(): top1-drop, cosine, miou-drop, ...
  double value = 0;
  bool met(double v) const { return metric_is_drop(metric) ? v <= value : v >= value; }
  // How far v is from meeting it (≤ 0 when met), in the metric's units.
  double shortfall(double v) const { return metric_is_drop(metric) ? v - value : value - v; }
};

// "top1-drop=0.2" → {top1-drop, 0.2}; ArgumentError naming the text otherwise.
Budget parse_budget(const std::string& text);

struct NodeEffect {
  std::string node, op_type;
  double cosine_loss = 0;  // 1 − the output's cosine with only this node quantized
  double metric = 0;       // the budget's metric with only this node quantized
};

struct FallbackTrial {
  size_t fp32_nodes = 0;  // the first n nodes of the ranking kept in FP32
  double metric = 0;
};

struct FallbackResult {
  Budget budget;
  std::vector<NodeEffect> ranking;     // every node the rules quantize, worst first
  std::vector<FallbackTrial> trials;   // the fully quantized model, then every prefix measured, in order
  std::string search;                  // "bisection", or "linear: " and why bisection was left
  std::vector<std::string> fp32_nodes; // the nodes kept in FP32 (a prefix of the ranking)
  bool met = false;                    // false: no prefix met the budget; the closest is kept
  AccuracyReport final_report;         // the chosen model against FP32
  Graph qdq;                           // the chosen model
};

// Measures a QDQ model against FP32 on the held-back samples.
using Evaluate = std::function<AccuracyReport(const Graph& qdq)>;
// Called after each model measured: (models done, models at most).
using FallbackProgress = std::function<void(size_t, size_t)>;

// Quantizes `fp32` with the table and options (`exclude` stays FP32 throughout), measures it,
// and when it misses the budget ranks the quantized nodes (one model each) and keeps the shortest
// prefix of the ranking in FP32 that meets it, found by bisection while the metric measured is
// monotone in the prefix, linearly otherwise (docs/accuracy.md, "Fallback"); when none meets it,
// the prefix that comes closest.
FallbackResult fit_budget(const Graph& fp32, const RangeTable& table, const QuantOptions& options,
                          const std::set<std::string>& exclude, const Budget& budget, const Evaluate& evaluate,
                          const FallbackProgress& progress = {});

}  // namespace q8
