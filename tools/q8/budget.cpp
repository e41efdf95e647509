#include "tools/q8/budget.h"

#include <chrono>
#include <cstdio>
#include <optional>

#include <nlohmann/json.hpp>

#include "datasets/model_inputs.h"
#include "datasets/progress.h"
#include "engine/io/atomic_write.h"
#include "engine/io/log.h"
#include "eval/fallback.h"
#include "tools/q8/dataset_options.h"
#include "tools/q8/validators.h"

namespace q8::cli {

void add_budget_options(CLI::App* cmd, BudgetOptions& o) {
  auto* g = "Accuracy budget";
  cmd->add_option("--budget", o.budget,
                  "METRIC=VALUE (top1-drop=0.2, cosine=0.999, miou-drop=0.5, ...): keep the fewest nodes in FP32 that meet it")
      ->group(g);
  cmd->add_option("--data", o.data, "samples for --budget (those after the calibration's, when it is the same data), --bias-correction, --output-aware "
                                          "and the check after quantizing (default: the table's calibration data)")
      ->group(g);
  cmd->add_option("--budget-samples", o.samples, "held-back samples measured")->capture_default_str()->check(at_least(1))->group(g);
  o.batch_size_option = cmd->add_option("--batch-size", o.batch_size, "samples per batch while measuring (a model whose inputs fix "
                                                                       "the batch runs at that batch)")
                            ->capture_default_str()->check(at_least(1))->group(g);
  cmd->add_option("--budget-json", o.json, "the ranking, the search and the result as JSON (default: OUTPUT with .budget.json)")
      ->group(g);
}

std::set<std::string> nodes_for_budget(const Graph& fp32, const RangeTable& table, const std::string& calib_path,
                                       const QuantOptions& quant, const std::set<std::string>& exclude, const BudgetOptions& o,
                                       std::string& json) {
  check_argument(!o.data.empty(), "--budget needs --data: the samples to measure it on");
  const Budget budget = parse_budget(o.budget);
  // The held-back part: the calibration's own order (its shuffle and seed, from the table's
  // settings), after the samples it observed.
  Preprocessing pre;
  if (!table.preprocess.empty()) pre.merge_json_text(table.preprocess, calib_path + " (preprocess)");
  const auto inputs = open_model_inputs(fp32, o.data, pre, {});
  const int64_t size = int64_t(inputs[0].source->size());
  BatchStreamOptions stream;
  const BatchChoice batch = choose_batch_size(fp32, o.batch_size_option && o.batch_size_option->count() ? std::optional(o.batch_size)
                                                                                                        : std::nullopt,
                                              kDefaultBudgetBatch, "", pre);
  stream.batch_size = batch.size;
  const bool same_data = !table.dataset.empty() && dataset_identity(inputs, o.data) == table.dataset;
  if (same_data) {
    stream.shuffle = table.shuffle;
    stream.seed = table.seed;
    stream.skip = int64_t(table.samples);
    check_argument(stream.skip < size, "--data " + o.data + ": the table was calibrated on all " + std::to_string(size) +
                                           " of its samples; none is left to measure the budget on (calibrate with --limit, or "
                                           "give other --data)");
  }
  stream.limit = std::min(size, stream.skip + o.samples);
  const int64_t measured = stream.limit - stream.skip;
  log::info("budget:   %s %s %g, measured on %lld samples of %s (%s)\n", budget.metric.c_str(), metric_is_drop(budget.metric) ? "<=" : ">=",
            budget.value, static_cast<long long>(measured), o.data.c_str(),
            same_data ? ("held back: after the " + std::to_string(stream.skip) + " the table was calibrated on, in its order").c_str()
                      : "not the calibration data");
  log::info("batch:    %lld%s\n", static_cast<long long>(batch.size), batch.note.empty() ? "" : (" (" + batch.note + ")").c_str());
  const auto start = std::chrono::steady_clock::now();
  BatchStream reference_stream(inputs, pre, stream);
  const ReferenceOutputs reference = run_reference(fp32, reference_stream);
  auto evaluate = [&](const Graph& qdq) {
    BatchStream batches(inputs, pre, stream);
    return compare_to_reference(fp32, reference, qdq, batches, {});
  };
  std::optional<Progress> progress;
  const FallbackResult r = fit_budget(fp32, table, quant, exclude, budget, evaluate, [&](size_t done, size_t total) {
    if (!progress) progress.emplace("fitting the budget", int64_t(total), log::quiet(), "models");
    progress->update(int64_t(done));
  });
  if (progress) progress->finish();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  log::info("fully quantized: %s %.6g (%s)\n", budget.metric.c_str(), r.trials[0].metric, budget.met(r.trials[0].metric) ? "meets the budget" : "misses the budget");
  nlohmann::ordered_json j;
  j["budget"] = {{"metric", budget.metric}, {"value", budget.value}};
  j["held_back"] = {{"data", o.data}, {"same_data_as_calibration", same_data}, {"skip", stream.skip}, {"samples", measured}};
  j["fully_quantized"] = r.trials[0].metric;
  j["ranking"] = nlohmann::ordered_json::array();
  if (!r.ranking.empty()) log::info("ranking (each node alone quantized, worst first):\n  %-36s %-14s %12s %12s\n", "node", "op", "cosine loss",
                                    budget.metric.c_str());
  for (const NodeEffect& e : r.ranking) {
    log::info("  %-36s %-14s %12.4e %12.6g\n", e.node.c_str(), e.op_type.c_str(), e.cosine_loss, e.metric);
    j["ranking"].push_back({{"node", e.node}, {"op_type", e.op_type}, {"cosine_loss", e.cosine_loss}, {"metric", e.metric}});
  }
  j["trials"] = nlohmann::ordered_json::array();
  if (r.trials.size() > 1) log::info("search (%s):\n", r.search.c_str());
  for (const FallbackTrial& t : r.trials) {
    if (t.fp32_nodes) log::info("  %zu node%s in FP32: %s %.6g\n", t.fp32_nodes, t.fp32_nodes == 1 ? "" : "s", budget.metric.c_str(), t.metric);
    j["trials"].push_back({{"fp32_nodes", t.fp32_nodes}, {"metric", t.metric}});
  }
  j["search"] = r.search;
  j["batch_size"] = batch.size;
  j["models_measured"] = r.trials.size() + r.ranking.size();
  j["seconds"] = seconds;
  log::info("measured %zu models in %.1f s\n", r.trials.size() + r.ranking.size(), seconds);
  const double final_value = r.final_report.metrics().at(budget.metric);
  if (r.met) {
    log::info("meets the budget with %zu node%s kept in FP32: %s %.6g\n", r.fp32_nodes.size(), r.fp32_nodes.size() == 1 ? "" : "s",
              budget.metric.c_str(), final_value);
  } else {
    char what[300];
    std::snprintf(what, sizeof what, "no set of FP32 nodes meets --budget %s=%g: the closest, %zu of %zu nodes in FP32, reaches %s %.6g "
                  "(%.6g short); nothing written", budget.metric.c_str(), budget.value, r.fp32_nodes.size(), r.ranking.size(),
                  budget.metric.c_str(), final_value, budget.shortfall(final_value));
    throw Error(what);
  }
  j["fp32_nodes"] = r.fp32_nodes;
  j["met"] = r.met;
  j["final"] = {{"metric", final_value}, {"metrics", r.final_report.metrics()}};
  json = j.dump(2) + "\n";
  return std::set<std::string>(r.fp32_nodes.begin(), r.fp32_nodes.end());
}

}  // namespace q8::cli
