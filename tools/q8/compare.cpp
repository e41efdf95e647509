// q8 compare FP32_MODEL QDQ_MODEL --data PATH: INT8 against FP32 with the metrics the output's
// shape calls for (eval/accuracy.h), per-layer SQNR worst first; JSON with --json;
// --fail-below METRIC=VALUE exits non-zero when INT8 misses it.
#include <algorithm>
#include <cstdio>
#include <optional>

#include "datasets/model_inputs.h"
#include "engine/io/atomic_write.h"
#include "engine/io/log.h"
#include "engine/io/numbers.h"
#include "engine/onnx/import.h"
#include "eval/accuracy.h"
#include "eval/blame.h"
#include "quant/preprocess_metadata.h"
#include "tools/q8/commands.h"
#include "tools/q8/dataset_options.h"
#include "tools/q8/tensor_args.h"
#include "tools/q8/validators.h"

namespace q8::cli {

namespace {

struct CompareCliOptions {
  std::string fp32, qdq, json, masks;
  DatasetOptions d;
  bool preprocessing_given = false;  // a preprocessing flag was on the command line
  CompareOptions compare;
  std::vector<std::string> fail_below;
  int64_t layers = 20;
  int64_t blame = 0;  // samples for isolated blame (0: none)
};

struct Threshold {
  std::string metric;
  double value = 0;
};

std::vector<Threshold> parse_thresholds(const std::vector<std::string>& args) {
  std::vector<Threshold> out;
  for (const auto& [metric, value] : parse_assignments(args, "--fail-below", "METRIC=VALUE")) {
    Threshold t{metric, 0};
    bool known = false;
    std::string names;
    for (const auto& n : metric_names()) known = known || n == t.metric, names += (names.empty() ? "" : ", ") + n;
    check_argument(known, "--fail-below '" + metric + "=" + value + "': unknown metric '" + t.metric + "' (metrics: " + names + ")");
    t.value = parse_double(value, "--fail-below '" + metric + "=" + value + "'");
    out.push_back(t);
  }
  return out;
}

void print_report(const AccuracyReport& r, const CompareCliOptions& o) {
  log::info("output:          %s, read as a %s\n", r.output.c_str(), output_kind_name(r.kind));
  log::info("samples:         %lld (%lld labelled)\n", static_cast<long long>(r.samples), static_cast<long long>(r.labelled));
  if (!r.placement.empty()) log::info("placement:       %s (the QDQ side)\n", r.placement.c_str());
  if (r.kind == OutputKind::Classifier) {
    if (r.labelled)
      log::info("top-1:           FP32 %.2f %%   INT8 %.2f %%   (%+.2f points)\n", 100 * r.fp32_top1(), 100 * r.int8_top1(),
                  100 * (r.int8_top1() - r.fp32_top1()));
    log::info("top-1 agreement: %.2f %%\n", 100 * r.agreement());
  } else if (r.kind == OutputKind::ClassMap || r.kind == OutputKind::BinaryMap) {
    if (r.kind == OutputKind::BinaryMap) {
      const auto m = r.metrics();
      log::info("binarised at:    %g (--threshold)\nforeground IoU:  %.2f %% (INT8 against FP32)\n", o.compare.threshold, m.at("iou"));
    }
    log::info("pixel agreement: %.2f %%\n", 100 * r.agreement());
    if (r.mask_pixels) {
      log::info("pixel accuracy:  FP32 %.2f %%   INT8 %.2f %%   (%+.2f points)\n",
                  100.0 * double(r.fp32_masks.correct) / double(r.mask_pixels), 100.0 * double(r.int8_masks.correct) / double(r.mask_pixels),
                  100.0 * (double(r.int8_masks.correct) - double(r.fp32_masks.correct)) / double(r.mask_pixels));
      log::info("mean IoU:        FP32 %.2f %%   INT8 %.2f %%   (%+.2f points)\n", 100 * r.fp32_masks.mean_iou(),
                  100 * r.int8_masks.mean_iou(), 100 * (r.int8_masks.mean_iou() - r.fp32_masks.mean_iou()));
    } else {
      log::info("(no per-pixel labels: give --masks PATH for pixel accuracy and mean IoU)\n");
    }
    if (r.labels_ignored) log::info("(the dataset's class labels do not apply to a dense output and were not used)\n");
  }
  for (const OutputError& e : r.outputs)
    log::info("output %-20s cosine %.5f   max abs error %.4g   mean abs error %.4g   max rel error %.4g\n", ("'" + e.name + "'").c_str(),
              e.cosine(), e.max_abs_error, e.mean_abs_error(), e.max_rel_error());
  log::info("per-layer SQNR (worst first, %zu quantized activations):\n", r.layers.size());
  for (size_t i = 0; i < r.layers.size() && int64_t(i) < o.layers; ++i)
    log::info("  %8.2f dB  %s\n", r.layers[i].sqnr_db, r.layers[i].tensor.c_str());
}

void print_blame(const BlameReport& b, int64_t rows) {
  log::info("isolated blame (%lld samples; each activation quantized alone, weights as in the QDQ model; worst first):\n"
              "  %12s %13s  %s\n  %12.3e %12.3f%%  %s\n",
              static_cast<long long>(b.samples), "1 - cosine", "argmax differ", "tensor", b.weights_only.cosine_loss,
              100 * b.weights_only.disagreement, b.weights_only.tensor.c_str());
  for (size_t i = 0; i < b.tensors.size() && int64_t(i) < rows; ++i)
    log::info("  %12.3e %12.3f%%  %s\n", b.tensors[i].cosine_loss, 100 * b.tensors[i].disagreement, b.tensors[i].tensor.c_str());
}

void compare(CompareCliOptions o) {
  const std::vector<Threshold> thresholds = parse_thresholds(o.fail_below);
  check_output_file("--json", o.json, {{"the FP32 model", o.fp32}, {"the QDQ model", o.qdq}});
  const Graph fp32 = load_model(o.fp32), qdq = load_model(o.qdq);
  check_qdq_model(qdq, o.qdq);
  // The preprocessing calibration used travels in the QDQ model; flags given here replace it.
  std::string preprocessing_from = "flags";
  if (!o.preprocessing_given) o.d.pre = recorded_or_default_preprocessing(qdq, o.qdq, preprocessing_from);
  o.d.resolve();
  check_argument(!o.d.data.empty(), "give --data (a dataset to compare on)");
  const BatchChoice batch = choose_batch_size(fp32, o.d.asked_batch_size(), o.d.stream.batch_size, "", o.d.pre);
  o.d.stream.batch_size = batch.size;
  const auto inputs = open_model_inputs(fp32, o.d.data, o.d.pre, o.d.source);
  if (!o.masks.empty()) {
    SourceOptions mask_options = o.d.source;
    mask_options.sample_rank = 2;
    o.compare.masks = open_source(o.masks, mask_options);
    check(o.compare.masks->size() == inputs[0].source->size(), o.masks + ": " + std::to_string(o.compare.masks->size()) +
                                                                   " masks for " + std::to_string(inputs[0].source->size()) + " samples");
  }
  BatchStream stream(inputs, o.d.pre, o.d.stream);
  const std::string dataset = inputs[0].source->describe() + " at " + o.d.data;
  log::info("=== q8 compare ===\nFP32:    %s\nINT8:    %s\ndataset: %s, running %lld (batch %lld%s)\npreproc: %s (%s)\n", o.fp32.c_str(),
            o.qdq.c_str(), dataset.c_str(), static_cast<long long>(stream.total()), static_cast<long long>(batch.size),
            batch.note.empty() ? "" : (", " + batch.note).c_str(), o.d.pre.describe().c_str(), preprocessing_from.c_str());
  log::info("engine:  %s\n", o.compare.int8_engine ? "INT8 (the QDQ model lowered into fused integer ops, --int8)"
                                                      : "the QDQ model as float Q/DQ");
  if (!o.masks.empty()) log::info("masks:   %s\n", o.compare.masks->describe().c_str());
  for (const Threshold& t : thresholds)
    log::info("fail if: %s %s %g\n", t.metric.c_str(), metric_is_drop(t.metric) ? ">" : "<", t.value);
  std::fflush(stdout);
  Progress progress("comparing", stream.total(), log::quiet());
  std::vector<TensorMap> kept;  // the first --blame samples, whole batches
  int64_t kept_samples = 0;
  o.compare.on_batch = [&](const TensorMap& inputs) {
    if (kept_samples >= o.blame) return;
    kept.push_back(inputs);
    kept_samples += inputs.begin()->second.dim(0);
  };
  const AccuracyReport r = compare_accuracy(fp32, qdq, stream, progress, o.compare);
  check(r.samples > 0, "no sample of " + o.d.data + " could be compared (every one was skipped as corrupt)");
  print_report(r, o);
  std::optional<BlameReport> blame;
  if (o.blame > 0) {
    Progress blame_progress("isolating", int64_t(blamed_tensor_count(qdq)) + 1, log::quiet(), "model variants");
    blame = isolated_blame(fp32, qdq, kept, blame_progress);
    print_blame(*blame, o.layers);
  } else {
    log::info("(--blame N: each quantized activation's own effect on the output, on the first N samples)\n");
  }
  if (!o.json.empty()) {
    write_file_atomically(o.json, format_accuracy_json(r, o.fp32, o.qdq, dataset, blame ? &*blame : nullptr));
    log::info("wrote %s\n", o.json.c_str());
  }
  const auto metrics = r.metrics();
  for (const Threshold& t : thresholds) {
    const auto it = metrics.find(t.metric);
    check_argument(it != metrics.end(), "--fail-below " + t.metric + ": this comparison has no " + t.metric + " (a " +
                                   output_kind_name(r.kind) + (r.labelled || r.mask_pixels ? "" : ", without labels") + ")");
    const bool failed = metric_is_drop(t.metric) ? it->second > t.value : it->second < t.value;
    char what[200];
    std::snprintf(what, sizeof what, "INT8 misses --fail-below %s=%g: %s is %.6g", t.metric.c_str(), t.value, t.metric.c_str(), it->second);
    check(!failed, what);
  }
}

}  // namespace

void add_compare_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("compare", "INT8 (a QDQ model) against FP32: metrics by output shape, per-layer SQNR");
  auto o = std::make_shared<CompareCliOptions>();
  cmd->add_option("fp32_model", o->fp32, "FP32 ONNX model")->required();
  cmd->add_option("qdq_model", o->qdq, "its QDQ twin from q8 quantize")->required();
  cmd->add_option("--json", o->json, "write the report as JSON");
  cmd->add_flag("--int8", o->compare.int8_engine, "run the QDQ model on the INT8 engine (lowered into fused integer ops)");
  cmd->add_option("--layers", o->layers, "rows of the per-layer table")->capture_default_str()->check(at_least(0));
  cmd->add_option("--blame", o->blame, "isolated per-layer blame on the first N samples (0: off)")->capture_default_str()
      ->check(at_least(0));
  cmd->add_option("--masks", o->masks, "per-pixel class labels for a dense output, one per sample in the data's order "
                                       "(IDX, .npy, images)");
  cmd->add_option("--threshold", o->compare.threshold, "binarises a one-channel output map")->capture_default_str()
      ->check(CLI::Range(-1e30, 1e30));
  cmd->add_option("--fail-below", o->fail_below, "METRIC=VALUE: exit non-zero when INT8 misses it (top1, agreement, cosine, "
                                                 "iou, pixel-accuracy, miou: below; top1-drop, pixel-accuracy-drop, miou-drop: above)");
  add_dataset_options(cmd, o->d);
  cmd->callback([o, cmd] {
    for (const char* flag : {"--resize", "--size", "--color", "--layout", "--scale", "--mean", "--std", "--preprocess"})
      o->preprocessing_given = o->preprocessing_given || cmd->count(flag) > 0;
    compare(*o);
  });
}

}  // namespace q8::cli
