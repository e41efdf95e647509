// The q8 subcommands. Each file registers one subcommand; the CLI holds no library logic.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

#include "engine/passes/optimize_for_inference.h"

namespace q8::cli {

void add_inspect_command(CLI::App& app);
void add_run_command(CLI::App& app);
void add_calibrate_command(CLI::App& app);
void add_quantize_command(CLI::App& app);
void add_compare_command(CLI::App& app);
void add_build_command(CLI::App& app);
void add_bench_command(CLI::App& app);
void add_report_command(CLI::App& app);
void add_tune_command(CLI::App& app);

// --graph-optimization disable|extended|all for the commands that run a model (ONNX Runtime's
// levels): "extended" folds BatchNormalization and fuses Conv with its Add and activation; "all"
// also runs convolution regions channels-last, and on the CPU an INT8 graph's QConv chains
// (engine/passes/optimize_for_inference.h).
inline void add_graph_optimization_option(CLI::App* cmd, std::string& level) {
  cmd->add_option("--graph-optimization", level, "graph rewrites before running (as ONNX Runtime's levels); at all, on the CPU, an INT8 graph's convolution chains also run channels-last")
      ->capture_default_str()
      ->check(CLI::IsMember({"disable", "extended", "all"}));
}

}  // namespace q8::cli
