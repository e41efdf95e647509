// q8 quantize MODEL --calib TABLE.json -o OUT.onnx: folds BatchNorm, inserts Q/DQ by the per-op
// rules and writes a QDQ model that onnx::checker accepts (docs/quantization.md).
#include <cstdio>
#include <filesystem>
#include <optional>
#include <set>

#include "calib/hdf5_histograms.h"
#include "calib/json_table.h"
#include "calib/methods/method.h"
#include "calib/overrides.h"
#include "calib/table_file.h"
#include "calib/trt_cache.h"
#include "datasets/model_inputs.h"
#include "engine/io/atomic_write.h"
#include "engine/io/log.h"
#include "engine/io/sha256.h"
#include "engine/onnx/export.h"
#include "engine/onnx/import.h"
#include "engine/ops/op.h"
#include "engine/passes/equalize_channels.h"
#include "eval/bias_correction.h"
#include "eval/output_aware_ranges.h"
#include "quant/materialize.h"
#include "quant/rules/rule.h"
#include "quant/smooth_quant.h"
#include "quant/preprocess_metadata.h"
#include "tools/q8/budget.h"
#include "tools/q8/commands.h"
#include "tools/q8/quantize_check.h"
#include "tools/q8/validators.h"

namespace q8::cli {

namespace {

struct QuantizeOptions {
  std::string model, calib, output, overrides, histograms, add_mode = "both";
  std::vector<std::string> exclude;
  std::vector<std::string> quantize_ops;  // --quantize-op
  std::optional<double> smoothquant;      // --smoothquant ALPHA
  bool bias_correction = false;
  int64_t bias_samples = 64;
  bool output_aware = false;
  int64_t output_aware_samples = 16;
  CheckOptions check;
  QuantOptions quant;
  BudgetOptions budget;
};

// Applies --overrides (calib/overrides.h) to the table: an amax as given, a method recomputed from
// the run's HDF5 histograms (--histograms, which must be this model's).
void apply_overrides(RangeTable& table, const std::string& path, const std::string& histograms_path, std::set<std::string>& pinned,
                     const std::string& model_sha256) {
  std::optional<HistogramFile> histograms;
  for (const auto& [name, o] : parse_overrides(read_file(path), path)) {
    check(table.activations.count(name) > 0, path + ": '" + name + "' is not a calibrated activation of the model");
    auto& r = table.activations[name];
    r.descriptor.tensor = name;
    pinned.insert(name);
    if (o.amax) {
      r.descriptor.amax = {*o.amax};
      r.descriptor.method = "override";
      continue;
    }
    check(!histograms_path.empty(), path + ": entry '" + name + "' asks for method " + o.method +
                                        "; give --histograms FILE.h5 from the calibration run");
    if (!histograms) {
      histograms = read_histograms(histograms_path);
      check(histograms->model_sha256 == model_sha256, histograms_path + " was made for another model (sha256 " +
                                                          histograms->model_sha256.substr(0, 12) + "…) than the one quantized (sha256 " +
                                                          model_sha256.substr(0, 12) + "…)");
    }
    auto it = histograms->observers.find(name);
    check(it != histograms->observers.end(), histograms_path + " has no histogram for '" + name + "'");
    r.descriptor.amax = {observer_amax(*find_method(o.method), it->second, {})};
    r.descriptor.method = o.method;
  }
}

// The first `limit` samples of the calibration's own data (its data, order and preprocessing from
// the table's settings) or of --data, for `what` (a flag that measures on data).
std::unique_ptr<BatchStream> calibration_samples(const Graph& graph, const RangeTable& table, const QuantizeOptions& o, int64_t limit,
                                                 const std::string& what) {
  std::string data = o.budget.data;
  BatchStreamOptions stream;
  if (data.empty()) {
    data = table.data, stream.shuffle = table.shuffle, stream.seed = table.seed;
    check_argument(!data.empty(), what + " needs samples: " + o.calib + " records no calibration data; give --data PATH");
  }
  Preprocessing pre;
  if (!table.preprocess.empty()) pre.merge_json_text(table.preprocess, o.calib + " (preprocess)");
  auto inputs = open_model_inputs(graph, data, pre, {});
  stream.batch_size = choose_batch_size(graph, std::nullopt, 8, "", pre).size;
  stream.limit = std::min<int64_t>(int64_t(inputs[0].source->size()), limit);
  log::info("%s: measuring on %lld samples of %s\n", what.substr(2).c_str(), static_cast<long long>(stream.limit), data.c_str());
  return std::make_unique<BatchStream>(std::move(inputs), pre, stream);
}

// The mean shifts of bias correction, measured on the QDQ model with FP32 weights.
BiasShifts measure_shifts(const Graph& graph, const RangeTable& table, const QuantizeOptions& o, const std::set<std::string>& exclude) {
  const auto batches = calibration_samples(graph, table, o, o.bias_samples, "--bias-correction");
  QuantOptions probe_options = o.quant;
  probe_options.fp32_weights = true;
  QuantizeReport probe_report;
  const Graph probe = quantize_graph(graph, table, probe_options, exclude, probe_report);
  return measure_bias_shifts(probe, *batches);
}

void quantize(QuantizeOptions o) {
  o.quant.add_mode = o.add_mode == "tensorrt" ? AddMode::TensorRT : AddMode::Both;
  for (const std::string& op : o.quantize_ops) {
    check_quantize_op(op, "--quantize-op");
    o.quant.quantize_ops.insert(op);
  }
  std::string requested;
  for (const std::string& op : o.quant.quantize_ops) requested += (requested.empty() ? "" : ", ") + op;
  log::info("=== q8 quantize ===\nmodel:    %s\ntable:    %s\noutput:   %s\nweights:  %s, %s\nadd mode: %s\nbmm:      %s\nheads:    %s\nalso:     %s\nsmooth:   %s\n",
              o.model.c_str(), o.calib.c_str(), o.output.c_str(), o.quant.per_tensor_weights ? "per tensor" : "per output channel",
              o.quant.fp32_weights ? "FP32 behind Q->DQ" : "int8 initializers + DQ", o.add_mode.c_str(),
              o.quant.quantize_bmm ? "MatMul/Gemm of two activations quantized (--quantize-bmm)" : "MatMul/Gemm of two activations FP32",
              o.quant.quantize_heads ? "output heads quantized (--quantize-heads)" : "output heads FP32 where they hold under 1 % of the weights and arithmetic",
              requested.empty() ? "(no --quantize-op)" : requested.c_str(),
              o.smoothquant ? ("SmoothQuant, alpha " + std::to_string(*o.smoothquant)).c_str() : "no SmoothQuant");
  log::info("refine:   %s\n", o.output_aware ? ("output-aware ranges on up to " + std::to_string(o.output_aware_samples) + " calibration samples").c_str()
                                                : "none (the table's ranges)");
  log::info("bias:     %s\ncheck:    %s\n",
            o.bias_correction ? ("bias correction on up to " + std::to_string(o.bias_samples) + " calibration samples").c_str() : "no bias correction",
            o.check.samples ? ("against FP32 on " + std::to_string(o.check.samples) + " samples, warning under an output cosine of " +
                               std::to_string(o.check.floor).substr(0, 4)).c_str()
                            : "none (--check-samples 0)");
  check_output_file("-o", o.output, {{"the model", o.model}, {"--calib", o.calib}, {"--overrides", o.overrides},
                                           {"--histograms", o.histograms}});
  Graph graph = load_model(o.model);
  const std::string model_sha256 = sha256_hex(read_file(o.model));
  TableFile calib = read_table_file(o.calib, graph, model_sha256, o.model);
  RangeTable& table = calib.table;
  if (!calib.note.empty()) log::info("ranges:   %s\n", calib.note.c_str());
  if (const auto e = equalize_as_calibrated(graph, table)) {
    log::info("equalize: cross-layer equalization of %zu convolutions into %zu readers (%d sweeps), as the table was calibrated\n",
              e->producers, e->readers, e->sweeps);
  }
  if (!o.overrides.empty()) apply_overrides(table, o.overrides, o.histograms, o.quant.pinned, model_sha256);
  if (o.smoothquant) {
    const SmoothQuantReport smooth = smooth_quant(graph, table, *o.smoothquant);
    log::info("SmoothQuant (alpha %g): %zu activations smoothed, %zu left as they are\n", *o.smoothquant, smooth.smoothed.size(),
              smooth.skipped.size());
    for (const auto& line : smooth.smoothed) log::info("  smoothed %s\n", line.c_str());
    for (const auto& [x, why] : smooth.skipped) log::info("  not smoothed %s: %s\n", x.c_str(), why.c_str());
  }
  std::set<std::string> exclude(o.exclude.begin(), o.exclude.end());
  if (o.output_aware) {
    const auto batches = calibration_samples(graph, table, o, o.output_aware_samples, "--output-aware");
    const OutputAwareReport r = refine_ranges_by_output(graph, table, o.quant, exclude, *batches);
    log::info("output-aware ranges: %zu scale sources chosen by the outputs of %zu layers on %lld samples, median new/old amax %.3g\n",
              r.sources, r.readers, static_cast<long long>(r.samples), r.median_ratio);
  }
  std::string budget_json;
  if (!o.budget.budget.empty()) {
    const std::set<std::string> kept = nodes_for_budget(graph, table, o.calib, o.quant, exclude, o.budget, budget_json);
    exclude.insert(kept.begin(), kept.end());
  }
  std::optional<BiasShifts> shifts;
  if (o.bias_correction) shifts = measure_shifts(graph, table, o, exclude);
  QuantizeReport report;
  Graph qdq = quantize_graph(std::move(graph), table, o.quant, exclude, report);
  if (shifts) {
    const double largest = apply_bias_shifts(qdq, *shifts);
    log::info("bias correction: %zu layers corrected on %lld samples, largest |shift| %.4g\n", shifts->shifts.size(),
              static_cast<long long>(shifts->samples), largest);
  }
  record_preprocessing(qdq, table);
  // The model and the budget's JSON together or neither.
  StagedFiles files;
  files.write(o.output, serialize_model(qdq, o.output));
  const std::string json_path = o.budget.json.empty() && !budget_json.empty()
                                    ? std::filesystem::path(o.output).replace_extension(".budget.json").string()
                                    : o.budget.json;
  if (!budget_json.empty()) files.write(json_path, budget_json);
  files.commit();
  for (const auto& w : report.warnings) log::warn("%s\n", w.c_str());
  if (report.opset_to != report.opset_from)
    log::info("upgraded opset %lld -> %lld (per-axis DequantizeLinear needs 13)\n", static_cast<long long>(report.opset_from),
                static_cast<long long>(report.opset_to));
  log::info("folded %zu BatchNormalization nodes and %zu constant nodes%s\n", report.fold.folded.size(), report.constants.folded,
              report.constants.static_shapes ? " (static shapes: shape subgraphs folded)" : "");
  for (const auto& [bn, why] : report.fold.kept) log::info("  kept BatchNormalization %s in FP32: %s\n", bn.c_str(), why.c_str());
  log::info("quantized %zu nodes (%zu activation Q/DQ pairs, %zu weight DQs)\n", report.quantized.size(), report.activation_qdq,
              report.weight_dq);
  log::info("left in FP32 (%zu nodes):\n", report.fp32.size());
  for (const auto& [node, why] : report.fp32) log::info("  %-40s %s\n", node.c_str(), why.c_str());
  log::info("wrote %s\n", o.output.c_str());
  if (!budget_json.empty()) log::info("wrote %s\n", json_path.c_str());
  o.check.model = o.model, o.check.calib = o.calib, o.check.output = o.output, o.check.data = o.budget.data;
  check_quantized(qdq, table, o.check);
}

}  // namespace

void add_quantize_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("quantize", "Insert QuantizeLinear/DequantizeLinear and write a QDQ ONNX model");
  auto o = std::make_shared<QuantizeOptions>();
  cmd->add_option("model", o->model, "FP32 ONNX model")->required();
  cmd->add_option("--calib", o->calib, "JSON range table from q8 calibrate, or a TensorRT calibration cache")->required();
  cmd->add_option("-o,--output", o->output, "QDQ ONNX model to write")->required();
  cmd->add_option("--exclude", o->exclude, "node name or op type to keep in FP32; repeatable");
  cmd->add_flag("--per-tensor-weights", o->quant.per_tensor_weights, "one scale per weight instead of per output channel");
  cmd->add_flag("--fp32-weights", o->quant.fp32_weights, "FP32 weights behind Q->DQ instead of int8 initializers");
  cmd->add_flag("--quantize-bmm", o->quant.quantize_bmm, "also quantize MatMul/Gemm of two activations (attention)");
  cmd->add_flag("--quantize-heads", o->quant.quantize_heads,
                "also quantize the output heads kept FP32 where they hold under 1 % of the weights (docs/quantization.md)");
  cmd->add_option("--smoothquant", o->smoothquant,
                  "ALPHA: SmoothQuant before quantizing, s = max|X|^ALPHA / max|W|^(1-ALPHA) per input channel (0.5 is usual)")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--quantize-op", o->quantize_ops,
                  "OPTYPE: also quantize the float activation inputs of every node of this type (LayerNormalization, Softmax, Gelu…); repeatable");
  cmd->add_option("--add-mode", o->add_mode, "both: quantize both Add inputs; tensorrt: leave the conv branch FP32")
      ->capture_default_str()->check(CLI::IsMember({"both", "tensorrt"}));
  cmd->add_option("--overrides", o->overrides,
                  "JSON {\"tensor\": {\"amax\": x} or {\"method\": m}}: ranges to use instead of the table's");
  cmd->add_option("--histograms", o->histograms, "the calibration run's HDF5 histograms (for method overrides)");
  cmd->add_flag("--bias-correction", o->bias_correction,
                "fold each quantized layer's mean output shift into its bias, measured on the calibration data (docs/calibration.md)");
  cmd->add_option("--bias-correction-samples", o->bias_samples, "samples bias correction measures on")
      ->capture_default_str()->check(at_least(1));
  cmd->add_flag("--output-aware", o->output_aware,
                "choose each activation's amax by the error of the layers reading it, measured on the calibration data (docs/calibration.md)");
  cmd->add_option("--output-aware-samples", o->output_aware_samples, "samples output-aware ranges measure on")
      ->capture_default_str()->check(at_least(1));
  cmd->add_option("--check-samples", o->check.samples,
                  "samples of the calibration data (held back where there are) the model written is checked on against FP32; 0: no check")
      ->capture_default_str()->check(at_least(0));
  cmd->add_option("--check-floor", o->check.floor, "output cosine under which the check warns")->capture_default_str()->check(CLI::Range(0.0, 1.0));
  add_budget_options(cmd, o->budget);
  cmd->callback([o] { quantize(*o); });
}

}  // namespace q8::cli
