// The q8 subcommands. Each file registers one subcommand; the CLI holds no library logic.
#pragma once

#include <CLI/CLI.hpp>

namespace q8::cli {

void add_inspect_command(CLI::App& app);
void add_run_command(CLI::App& app);
void add_calibrate_command(CLI::App& app);
void add_quantize_command(CLI::App& app);
void add_compare_command(CLI::App& app);
void add_build_command(CLI::App& app);
void add_bench_command(CLI::App& app);

}  // namespace q8::cli
