// q8 quantize --budget METRIC=VALUE --data PATH: the flags, the held-back samples, and the search
// (eval/fallback.h) with its printout and JSON.
#pragma once

#include <CLI/CLI.hpp>

#include <set>
#include <string>

#include "calib/range_table.h"
#include "quant/rules/rule.h"

namespace q8::cli {

inline constexpr int64_t kDefaultBudgetBatch = 64;

struct BudgetOptions {
  std::string budget, data, json;
  int64_t samples = 1000, batch_size = kDefaultBudgetBatch;
  const CLI::Option* batch_size_option = nullptr;
};

void add_budget_options(CLI::App* cmd, BudgetOptions& o);

// The nodes to keep in FP32 so that the model meets the budget on held-back samples of
// o.data: those after the calibration's when the table was calibrated on the same data (in its
// order), else the first o.samples. Prints the ranking and the search; `json` receives the report
// (eval/fallback.h's result as JSON). Error, saying how close the closest came, when no set of
// FP32 nodes meets the budget.
std::set<std::string> nodes_for_budget(const Graph& fp32, const RangeTable& table, const std::string& calib_path,
                                       const QuantOptions& quant, const std::set<std::string>& exclude, const BudgetOptions& o,
                                       std::string& json);

}  // namespace q8::cli
