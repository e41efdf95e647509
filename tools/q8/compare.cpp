// q8 compare FP32_MODEL QDQ_MODEL --data PATH: INT8 against FP32 on a (labelled) dataset — top-1
// of each, top-1 agreement, output cosine similarity, per-layer SQNR worst first; JSON with --json.
#include <cstdio>

#include "datasets/model_inputs.h"
#include "engine/io/atomic_write.h"
#include "engine/onnx/import.h"
#include "quant/accuracy.h"
#include "tools/q8/commands.h"
#include "tools/q8/dataset_options.h"

namespace q8::cli {

namespace {

struct CompareOptions {
  std::string fp32, qdq, json;
  DatasetOptions d;
  int64_t layers = 20;
};

void compare(CompareOptions o) {
  o.d.resolve();
  check(!o.d.data.empty(), "give --data (a dataset to compare on)");
  const Graph fp32 = load_model(o.fp32), qdq = load_model(o.qdq);
  if (const auto fixed = fixed_batch_size(fp32)) o.d.stream.batch_size = *fixed;
  const auto inputs = open_model_inputs(fp32, o.d.data, o.d.pre, o.d.source);
  BatchStream stream(inputs, o.d.pre, o.d.stream);
  const std::string dataset = inputs[0].source->describe() + " at " + o.d.data;
  std::printf("=== q8 compare ===\nFP32:    %s\nINT8:    %s\ndataset: %s, running %lld\npreproc: %s\n", o.fp32.c_str(), o.qdq.c_str(),
              dataset.c_str(), static_cast<long long>(stream.total()), o.d.pre.describe().c_str());
  Progress progress("comparing", stream.total(), o.d.quiet);
  const AccuracyReport r = compare_accuracy(fp32, qdq, stream, progress);
  std::printf("samples:        %lld (%lld labelled)\n", static_cast<long long>(r.samples), static_cast<long long>(r.labelled));
  if (r.labelled)
    std::printf("top-1:          FP32 %.2f %%   INT8 %.2f %%   (%+.2f points)\n", 100 * r.fp32_top1(), 100 * r.int8_top1(),
                100 * (r.int8_top1() - r.fp32_top1()));
  std::printf("top-1 agreement: %.2f %%\noutput cosine:  %.5f\n", 100 * r.agreement(), r.cosine());
  std::printf("per-layer SQNR (worst first, %zu quantized activations):\n", r.layers.size());
  for (size_t i = 0; i < r.layers.size() && int64_t(i) < o.layers; ++i)
    std::printf("  %8.2f dB  %s\n", r.layers[i].sqnr_db, r.layers[i].tensor.c_str());
  if (!o.json.empty()) {
    write_file_atomically(o.json, format_accuracy_json(r, o.fp32, o.qdq, dataset));
    std::printf("wrote %s\n", o.json.c_str());
  }
}

}  // namespace

void add_compare_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("compare", "INT8 (a QDQ model) against FP32: top-1, agreement, cosine, per-layer SQNR");
  auto o = std::make_shared<CompareOptions>();
  cmd->add_option("fp32_model", o->fp32, "FP32 ONNX model")->required();
  cmd->add_option("qdq_model", o->qdq, "its QDQ twin from q8 quantize")->required();
  cmd->add_option("--json", o->json, "write the report as JSON");
  cmd->add_option("--layers", o->layers, "rows of the per-layer table")->capture_default_str();
  add_dataset_options(cmd, o->d);
  cmd->callback([o] { compare(*o); });
}

}  // namespace q8::cli
