#include "tools/q8/quantize_check.h"

#include <algorithm>
#include <filesystem>

#include "datasets/model_inputs.h"
#include "datasets/progress.h"
#include "engine/io/log.h"
#include "engine/onnx/import.h"
#include "engine/passes/equalize_channels.h"
#include "eval/accuracy.h"

namespace q8::cli {

void check_quantized(const Graph& qdq, const RangeTable& table, const CheckOptions& o) {
  if (o.samples <= 0) return;
  const bool own = o.data.empty();
  const std::string data = own ? table.data : o.data;
  const bool shuffle = own && table.shuffle;
  const uint64_t seed = own ? table.seed : 0;
  if (data.empty() || !std::filesystem::exists(data)) {
    log::info("checked:  not run: %s (give --data PATH to check INT8 against FP32)\n",
              data.empty() ? "the table records no calibration data" : ("the calibration data " + data + " is not there").c_str());
    return;
  }
  try {
    // The FP32 reference: the model as given, equalized when the table was (the same function,
    // and the per-tensor SQNR then compares like with like).
    Graph fp32 = load_model(o.model);
    if (table.equalize) equalize_channels(fp32);
    Preprocessing pre;
    if (!table.preprocess.empty()) pre.merge_json_text(table.preprocess, o.calib + " (preprocess)");
    const auto inputs = open_model_inputs(fp32, data, pre, {});
    const int64_t size = int64_t(inputs[0].source->size());
    BatchStreamOptions stream;
    stream.shuffle = shuffle, stream.seed = seed;
    // Held back: the samples after the ones calibration observed, when there are any.
    const bool held_back = own && size > int64_t(table.samples);
    stream.skip = held_back ? int64_t(table.samples) : 0;
    stream.limit = std::min(size, stream.skip + o.samples);
    stream.batch_size = choose_batch_size(fp32, std::nullopt, o.samples, "", pre).size;
    const int64_t n = stream.limit - stream.skip;
    BatchStream batches(inputs, pre, stream);
    Progress progress("checking", n, true);
    const AccuracyReport r = compare_accuracy(fp32, qdq, batches, progress, {});
    const std::map<std::string, double> m = r.metrics();
    // The lowest cosine of any output: a detector's box or score output can go wrong alone.
    double cosine = 1;
    std::string lowest;
    for (const OutputError& e : r.outputs)
      if (e.cosine() <= cosine) cosine = e.cosine(), lowest = e.name;
    std::string figures = "lowest output cosine " + std::to_string(cosine).substr(0, 8) + " ('" + lowest + "')";
    for (const char* k : {"agreement", "iou"})
      if (m.count(k)) figures += std::string(", ") + (std::string(k) == "iou" ? "foreground IoU " : "agreement ") + std::to_string(m.at(k)).substr(0, 6) + " %";
    const std::string which = std::to_string(n) + (held_back ? " held-back samples" : own ? " calibration samples (none held back)" : " samples") +
                              " of " + data;
    log::info("checked:  INT8 against FP32 on %s: %s\n", which.c_str(), figures.c_str());
    if (cosine >= o.floor) return;
    std::string worst;
    for (size_t i = 0; i < r.layers.size() && i < 3; ++i)
      worst += (i ? ", " : "") + r.layers[i].tensor + " (" + std::to_string(r.layers[i].sqnr_db).substr(0, 5) + " dB)";
    char floor[32];
    std::snprintf(floor, sizeof floor, "%g", o.floor);
    log::warn("INT8's lowest output cosine %.4f against FP32 on %s is under %s: the lowest-SQNR tensors are %s; try --equalize at calibration "
              "and --bias-correction, or `q8 quantize %s --calib %s -o %s --data %s --budget cosine=%s` to keep the fewest nodes in "
              "FP32 that meet it\n",
              cosine, which.c_str(), floor, worst.empty() ? "(none quantized)" : worst.c_str(), o.model.c_str(), o.calib.c_str(),
              o.output.c_str(), data.c_str(), floor);
  } catch (const Error& e) {
    log::info("checked:  not run: %s\n", e.what());
  }
}

}  // namespace q8::cli
