#include "eval/fallback.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "engine/io/numbers.h"
#include "quant/materialize.h"

namespace q8 {

namespace {

double metric_of(const AccuracyReport& r, const Budget& budget) {
  const auto metrics = r.metrics();
  const auto it = metrics.find(budget.metric);
  check_argument(it != metrics.end(), "--budget " + budget.metric + ": this comparison has no " + budget.metric + " (a " +
                                          output_kind_name(r.kind) + (r.labelled || r.mask_pixels ? "" : ", without labels") + ")");
  return it->second;
}

std::string short_number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", v);
  return text;
}

}  // namespace

Budget parse_budget(const std::string& text) {
  const size_t eq = text.find('=');
  check_argument(eq != std::string::npos && eq > 0, "--budget '" + text + "' is not METRIC=VALUE (for example top1-drop=0.5)");
  Budget b;
  b.metric = text.substr(0, eq);
  const auto& names = metric_names();
  std::string known;
  for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
  check_argument(std::find(names.begin(), names.end(), b.metric) != names.end(),
                 "--budget '" + text + "': unknown metric '" + b.metric + "' (metrics: " + known + ")");
  try {
    b.value = parse_double(text.substr(eq + 1), "--budget " + b.metric);
  } catch (const Error& e) {
    throw ArgumentError(e.what());
  }
  check_argument(std::isfinite(b.value), "--budget '" + text + "': the value must be finite");
  return b;
}

FallbackResult fit_budget(const Graph& fp32, const RangeTable& table, const QuantOptions& options,
                          const std::set<std::string>& exclude, const Budget& budget, const Evaluate& evaluate,
                          const FallbackProgress& progress) {
  FallbackResult out;
  out.budget = budget;
  QuantizeReport full_report;
  Graph full = quantize_graph(fp32, table, options, exclude, full_report);
  AccuracyReport full_accuracy = evaluate(full);
  const double full_value = metric_of(full_accuracy, budget);
  const size_t nodes = full_report.quantized.size();
  const size_t at_most = 1 + (budget.met(full_value) ? 0 : 2 * nodes);  // linear at worst
  if (progress) progress(1, at_most);
  out.trials.push_back({0, full_value});
  if (budget.met(full_value)) {
    out.met = true, out.final_report = std::move(full_accuracy), out.qdq = std::move(full);
    return out;
  }
  // Rank: each node alone quantized (every other quantized node kept FP32 with its weights).
  std::map<std::string, std::string> op_of;
  for (const Node& n : fp32.nodes) op_of[n.name] = n.op_type;
  for (size_t i = 0; i < nodes; ++i) {
    std::set<std::string> others = exclude;
    for (size_t j = 0; j < nodes; ++j)
      if (j != i) others.insert(full_report.quantized[j]);
    QuantizeReport r;
    const AccuracyReport alone = evaluate(quantize_graph(fp32, table, options, others, r));
    const auto metrics = alone.metrics();
    out.ranking.push_back({full_report.quantized[i], op_of[full_report.quantized[i]], 1.0 - metrics.at("cosine"), metric_of(alone, budget)});
    if (progress) progress(2 + i, at_most);
  }
  // Worst first: the larger cosine loss, then the worse metric, then the name (a stable order).
  std::sort(out.ranking.begin(), out.ranking.end(), [&](const NodeEffect& a, const NodeEffect& b) {
    if (a.cosine_loss != b.cosine_loss) return a.cosine_loss > b.cosine_loss;
    if (a.metric != b.metric) return budget.shortfall(a.metric) > budget.shortfall(b.metric);
    return a.node < b.node;
  });
  // The shortest prefix of the ranking kept in FP32 that meets the budget. Each prefix is
  // measured at most once; the best is kept as it is found.
  std::map<size_t, double> measured = {{0, full_value}};
  size_t best_n = 0;
  double best_value = full_value;
  AccuracyReport best_report = std::move(full_accuracy);
  Graph best = std::move(full);
  auto measure = [&](size_t n) {
    if (auto it = measured.find(n); it != measured.end()) return it->second;
    std::set<std::string> kept = exclude;
    for (size_t i = 0; i < n; ++i) kept.insert(out.ranking[i].node);
    QuantizeReport r;
    Graph qdq = quantize_graph(fp32, table, options, kept, r);
    AccuracyReport accuracy = evaluate(qdq);
    const double value = metric_of(accuracy, budget);
    out.trials.push_back({n, value});
    measured[n] = value;
    if (progress) progress(nodes + out.trials.size(), at_most);
    // The answer: the smallest prefix that meets the budget; while none does, the closest.
    const bool better = budget.met(value) ? !budget.met(best_value) || n < best_n
                                          : !budget.met(best_value) && budget.shortfall(value) < budget.shortfall(best_value);
    if (better) best_n = n, best_value = value, best_report = std::move(accuracy), best = std::move(qdq);
    return value;
  };
  // A larger prefix measured strictly worse than a smaller one: the metric is not monotone.
  auto not_monotone = [&]() -> std::string {
    for (auto a = measured.begin(); a != measured.end(); ++a)
      for (auto b = std::next(a); b != measured.end(); ++b)
        if (budget.shortfall(b->second) > budget.shortfall(a->second))
          return std::to_string(b->first) + " nodes in FP32 measured " + short_number(b->second) + ", worse than " +
                 std::to_string(a->first) + "'s " + short_number(a->second);
    return "";
  };
  out.search = "bisection";
  size_t miss = 0, meet = nodes;  // the largest prefix known to miss, the smallest known to meet
  if (budget.met(measure(nodes))) {
    while (meet - miss > 1) {
      const size_t mid = miss + (meet - miss) / 2;
      (budget.met(measure(mid)) ? meet : miss) = mid;
    }
    if (const std::string why = not_monotone(); !why.empty()) {
      out.search = "linear: the metric is not monotone in the prefix (" + why + ")";
      for (size_t n = 1; n < meet; ++n)
        if (budget.met(measure(n))) break;
    }
  }
  out.met = budget.met(best_value);
  for (size_t i = 0; i < best_n; ++i) out.fp32_nodes.push_back(out.ranking[i].node);
  out.final_report = std::move(best_report);
  out.qdq = std::move(best);
  return out;
}

}  // namespace q8
