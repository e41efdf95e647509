// q8 report: the HTML report (eval/report.h) from the files calibrate, compare and build write.
#include <filesystem>
#include <memory>

#include <nlohmann/json.hpp>

#include "calib/json_table.h"
#include "engine/exec/executor.h"
#include "engine/io/atomic_write.h"
#include "engine/io/log.h"
#include "engine/plan/plan_file.h"
#include "engine/runtime/backends.h"
#include "eval/report.h"
#include "tools/q8/commands.h"
#include "tools/q8/validators.h"

namespace q8::cli {

namespace {

struct ReportOptions {
  std::string histograms, table, compare, plan, output, title;
  double percentile = MethodOptions{}.percentile;
};

void report(const ReportOptions& o) {
  check_argument(!o.histograms.empty() || !o.compare.empty() || !o.plan.empty(),
                 "nothing to report: give --histograms, --compare or --plan");
  check_argument(o.table.empty() || !o.histograms.empty(), "--table marks thresholds on histograms: give --histograms too");
  check_output_file("-o", o.output, {{"--histograms", o.histograms}, {"--table", o.table}, {"--compare", o.compare}, {"--plan", o.plan}});
  ReportInputs in;
  in.title = o.title.empty() ? std::filesystem::path(o.output).stem().string() : o.title;
  in.method_options.percentile = o.percentile;
  HistogramFile histograms;
  RangeTable table;
  nlohmann::json compare;
  if (!o.histograms.empty()) {
    histograms = read_histograms(o.histograms);
    in.histograms = &histograms;
  }
  if (!o.table.empty()) {
    table = read_json_table(o.table);
    check(table.model_sha256 == histograms.model_sha256,
          o.table + " was made for another model than " + o.histograms + " (sha256 " + table.model_sha256.substr(0, 12) + "… and " +
              histograms.model_sha256.substr(0, 12) + "…)");
    in.table = &table;
  }
  if (!o.compare.empty()) {
    try {
      compare = nlohmann::json::parse(read_file(o.compare));
    } catch (const nlohmann::json::exception& e) {
      throw Error(o.compare + ": not a q8 compare JSON file (" + e.what() + ")");
    }
    check(compare.is_object() && compare.contains("metrics") && compare.contains("layers"),
          o.compare + ": not a q8 compare JSON file (no \"metrics\" and \"layers\")");
    in.compare = &compare;
  }
  if (!o.plan.empty()) {
    const std::string bytes = read_file(o.plan);
    check(is_plan(bytes), o.plan + ": not a q8 plan file");
    const Plan plan = parse_plan(bytes, o.plan);
    const Executor exec(plan.graph, backends_for("cpu"));
    in.lowering = plan.lowering_report;
    in.placement = placement_summary(exec.placement(), exec.shape_work()) + "\n" + exec.placement_report(true);
  }
  write_file_atomically(o.output, render_report(in));
  log::info("wrote %s (%s%s%s%s)\n", o.output.c_str(), in.histograms ? "histograms " : "", in.table ? "thresholds " : "",
            in.compare ? "accuracy, SQNR, blame " : "", in.lowering.empty() ? "" : "plan");
}

}  // namespace

void add_report_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("report", "Write a self-contained HTML report of calibration, comparison and plan files");
  auto o = std::make_shared<ReportOptions>();
  cmd->add_option("--histograms", o->histograms, "HDF5 histograms (q8 calibrate --histograms): per-tensor charts and thresholds");
  cmd->add_option("--table", o->table, "JSON range table (q8 calibrate --json): the chosen method and amax");
  cmd->add_option("--compare", o->compare, "q8 compare --json: accuracy, per-layer SQNR and isolated blame");
  cmd->add_option("--plan", o->plan, "a plan (q8 build): lowering and placement");
  cmd->add_option("-o,--output", o->output, "the HTML file to write")->required();
  cmd->add_option("--title", o->title, "the report's title (default: the output's name)");
  cmd->add_option("--percentile", o->percentile, "the percentile method's mark")->capture_default_str()->check(CLI::Range(0.0, 100.0));
  cmd->callback([o] { report(*o); });
}

}  // namespace q8::cli
