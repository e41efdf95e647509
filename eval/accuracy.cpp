#include "eval/accuracy.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

#include "engine/exec/executor.h"
#include "engine/plan/lower.h"
#include "engine/runtime/backends.h"
#include "eval/metrics.h"
#include "eval/qdq_pairs.h"
#include "quant/preprocess_metadata.h"

namespace q8 {

namespace {

OutputKind kind_of(const Tensor& t) {
  if (t.rank() == 2 && t.dim(1) > 1) return OutputKind::Classifier;
  if (t.rank() == 4) return t.dim(1) > 1 ? OutputKind::ClassMap : OutputKind::BinaryMap;
  return OutputKind::Tensor;
}

// Per-pixel classes of one sample from the masks source: an 8-bit image (one channel) or an
// integer tensor of H×W (or 1×H×W).
std::vector<int64_t> load_mask(const SampleSource& masks, size_t index, int64_t height, int64_t width) {
  const RawSample s = masks.load(index);
  const std::string where = masks.origin(index);
  std::vector<int64_t> out;
  if (s.kind == RawSample::Kind::Image) {
    check(s.image.channels == 1, where + ": a mask must have one channel, this image has " + std::to_string(s.image.channels));
    check(s.image.height == height && s.image.width == width, where + ": mask is " + std::to_string(s.image.height) + "x" +
                                                                  std::to_string(s.image.width) + ", the output map is " +
                                                                  std::to_string(height) + "x" + std::to_string(width));
    out.assign(s.image.pixels.begin(), s.image.pixels.end());
    return out;
  }
  const Tensor& t = s.tensor;
  check(t.numel() == height * width && (t.rank() == 2 || (t.rank() == 3 && t.dim(0) == 1)),
        where + ": mask of shape " + dims_to_string(t.dims()) + " does not fit the output map " + std::to_string(height) + "x" +
            std::to_string(width));
  out.resize(size_t(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) {
    switch (t.dtype()) {
      case DType::Uint8: out[size_t(i)] = t.data<uint8_t>()[i]; break;
      case DType::Int32: out[size_t(i)] = t.data<int32_t>()[i]; break;
      case DType::Int64: out[size_t(i)] = t.data<int64_t>()[i]; break;
      case DType::Float32: out[size_t(i)] = std::lround(t.data<float>()[i]); break;
      default: throw Error(where + ": masks must be uint8, int32, int64 or float32, not " + std::string(dtype_name(t.dtype())));
    }
  }
  return out;
}

void score_mask(MaskScore& s, const std::vector<int64_t>& predicted, const std::vector<int64_t>& mask, int64_t classes) {
  s.intersection.resize(size_t(classes)), s.union_.resize(size_t(classes));
  for (size_t i = 0; i < mask.size(); ++i) {
    const int64_t p = predicted[i], m = mask[i];
    s.correct += p == m;
    if (p == m) ++s.intersection[size_t(p)], ++s.union_[size_t(p)];
    else ++s.union_[size_t(p)], ++s.union_[size_t(m)];
  }
}

// Per-pixel class of one sample's map: argmax over channels, or the threshold for one channel.
std::vector<int64_t> pixel_classes(const float* map, int64_t channels, int64_t pixels, double threshold) {
  std::vector<int64_t> out(static_cast<size_t>(pixels), 0);
  for (int64_t p = 0; p < pixels; ++p) {
    if (channels == 1) {
      out[size_t(p)] = map[p] > threshold;
      continue;
    }
    out[size_t(p)] = pixel_argmax(map, channels, pixels, p);
  }
  return out;
}

}  // namespace

const char* output_kind_name(OutputKind kind) {
  switch (kind) {
    case OutputKind::Classifier: return "classifier";
    case OutputKind::ClassMap: return "dense map of class scores";
    case OutputKind::BinaryMap: return "one-channel dense map";
    default: return "tensor";
  }
}

double MaskScore::mean_iou() const {
  double sum = 0;
  int64_t classes = 0;
  for (size_t c = 0; c < union_.size(); ++c)
    if (union_[c]) sum += double(intersection[c]) / double(union_[c]), ++classes;
  return classes ? sum / double(classes) : 0;
}

const std::vector<std::string>& metric_names() {
  static const std::vector<std::string> names = {"top1", "top1-drop", "agreement", "cosine", "iou", "pixel-accuracy",
                                                 "pixel-accuracy-drop", "miou", "miou-drop"};
  return names;
}

bool metric_is_drop(const std::string& name) { return name.size() > 5 && name.compare(name.size() - 5, 5, "-drop") == 0; }

std::map<std::string, double> AccuracyReport::metrics() const {
  std::map<std::string, double> m;
  if (!outputs.empty()) m["cosine"] = outputs[0].cosine();
  if (kind != OutputKind::Tensor) m["agreement"] = 100 * agreement();
  if (kind == OutputKind::Classifier && labelled) m["top1"] = 100 * int8_top1(), m["top1-drop"] = 100 * (fp32_top1() - int8_top1());
  if (kind == OutputKind::BinaryMap) m["iou"] = fg_union ? 100.0 * double(fg_intersection) / double(fg_union) : 100.0;
  if (mask_pixels) {
    const double a32 = 100.0 * double(fp32_masks.correct) / double(mask_pixels);
    const double a8 = 100.0 * double(int8_masks.correct) / double(mask_pixels);
    m["pixel-accuracy"] = a8, m["pixel-accuracy-drop"] = a32 - a8;
    m["miou"] = 100 * int8_masks.mean_iou(), m["miou-drop"] = 100 * (fp32_masks.mean_iou() - int8_masks.mean_iou());
  }
  return m;
}

void OutputError::add(const Tensor& fa, const Tensor& fb) {
  check(fa.dims() == fb.dims() && fa.dtype() == DType::Float32 && fb.dtype() == DType::Float32 && fa.rank() >= 1,
        "the two models' outputs '" + name + "' differ in shape or are not float32");
  const int64_t n = fa.dim(0), width = n ? fa.numel() / n : 0;
  for (int64_t i = 0; i < n; ++i) {
    const float* pa = fa.data<float>() + i * width;
    const float* pb = fb.data<float>() + i * width;
    for (int64_t j = 0; j < width; ++j) {
      max_abs_error = std::max(max_abs_error, std::fabs(double(pa[j]) - pb[j]));
      abs_error_sum += std::fabs(double(pa[j]) - pb[j]);
      max_abs_fp32 = std::max(max_abs_fp32, std::fabs(double(pa[j])));
    }
    cosine_sum += cosine_similarity(pa, pb, width);
    elements += uint64_t(width);
  }
  samples += n;
}

AccuracyTally::AccuracyTally(const Graph& fp32, const CompareOptions& options) : options_(options) {
  check(!fp32.outputs.empty(), "a model has no outputs");
  report_.output = fp32.outputs[0].name;
  for (const ValueInfo& v : fp32.outputs) report_.outputs.push_back({v.name});
}

void AccuracyTally::add(const TensorMap& fp32_outputs, const TensorMap& int8_outputs, const Batch& batch) {
  AccuracyReport& r = report_;
  for (OutputError& out : r.outputs) {
    const auto it = int8_outputs.find(out.name);
    check(it != int8_outputs.end(), "the QDQ model has no output '" + out.name + "'");
    out.add(fp32_outputs.at(out.name), it->second);
  }
  const Tensor& fa = fp32_outputs.at(r.output);
  const Tensor& fb = int8_outputs.at(r.output);
  if (first_) {
    r.kind = kind_of(fa);
    check(!options_.masks || r.kind == OutputKind::ClassMap || r.kind == OutputKind::BinaryMap,
          "--masks needs a dense output [N, C, H, W]; output '" + r.output + "' has shape " + dims_to_string(fa.dims()));
    first_ = false;
  }
  const int64_t n = fa.dim(0), width = n ? fa.numel() / n : 0;
  for (int64_t i = 0; i < n; ++i) {
    const float* pa = fa.data<float>() + i * width;
    const float* pb = fb.data<float>() + i * width;
    if (r.kind == OutputKind::Classifier) {
      const int64_t ca = argmax(pa, width), cb = argmax(pb, width);
      ++r.units, r.agree += ca == cb;
      if (const auto& label = batch.labels[size_t(i)]) {
        ++r.labelled;
        r.fp32_correct += ca == *label;
        r.int8_correct += cb == *label;
      }
    } else if (r.kind == OutputKind::ClassMap || r.kind == OutputKind::BinaryMap) {
      const int64_t channels = fa.dim(1), height = fa.dim(2), w = fa.dim(3), pixels = height * w;
      const std::vector<int64_t> ka = pixel_classes(pa, channels, pixels, options_.threshold);
      const std::vector<int64_t> kb = pixel_classes(pb, channels, pixels, options_.threshold);
      for (int64_t p = 0; p < pixels; ++p) {
        r.agree += ka[size_t(p)] == kb[size_t(p)];
        r.fg_intersection += ka[size_t(p)] && kb[size_t(p)];
        r.fg_union += ka[size_t(p)] || kb[size_t(p)];
      }
      r.units += pixels;
      r.labels_ignored = r.labels_ignored || batch.labels[size_t(i)].has_value();
      if (options_.masks) {
        const size_t index = batch.indices[size_t(i)];
        std::vector<int64_t> mask = load_mask(*options_.masks, index, height, w);
        const int64_t classes = std::max<int64_t>(channels, 2);
        for (int64_t& m : mask)
          check(m >= 0 && m < classes, options_.masks->origin(index) + ": mask value " + std::to_string(m) +
                                           " is not a class of the output (0.." + std::to_string(classes - 1) + ")");
        score_mask(r.fp32_masks, ka, mask, classes);
        score_mask(r.int8_masks, kb, mask, classes);
        r.mask_pixels += pixels;
      }
    }
  }
  r.samples += n;
}

void check_qdq_model(const Graph& qdq, const std::string& what) {
  check(std::any_of(qdq.nodes.begin(), qdq.nodes.end(), [](const Node& n) { return n.op_type == "DequantizeLinear"; }),
        what + ": has no DequantizeLinear: not a QDQ model (give the model q8 quantize wrote)");
}

Preprocessing recorded_or_default_preprocessing(const Graph& qdq, const std::string& what, std::string& from) {
  Preprocessing pre;
  if (const auto recorded = recorded_preprocessing(qdq)) {
    pre.merge_json_text(*recorded, what + " (metadata " + std::string(kPreprocessMetadataKey) + ")");
    from = "recorded at calibration, from the QDQ model's metadata";
  } else {
    from = "defaults (the QDQ model records none)";
  }
  return pre;
}

AccuracyReport compare_accuracy(const Graph& fp32, const Graph& qdq, BatchSource& stream, Progress& progress,
                                const CompareOptions& options) {
  check(!qdq.outputs.empty(), "a model has no outputs");
  AccuracyTally tally(fp32, options);
  std::map<std::string, std::string> pairs;  // FP32 tensor → its DequantizeLinear output
  for (const ActivationQdq& p : activation_qdq_pairs(qdq)) pairs[p.tensor] = p.dequantized;
  std::map<std::string, std::string> twin_of;  // DQ output → FP32 tensor
  for (const auto& [t, dq] : pairs) twin_of[dq] = t;
  std::map<std::string, std::pair<double, double>> energy;  // tensor → (Σx², Σ(x − x̂)²)
  std::map<std::string, uint64_t> elements;
  Executor a(fp32), b(options.int8_engine ? lower_qdq(qdq).graph : qdq, backends_for("cpu"));
  std::map<std::string, Tensor> captured;
  a.set_hook([&](const Node& node, size_t, const std::vector<Tensor>& outs) {
    for (size_t k = 0; k < node.outputs.size() && k < outs.size(); ++k)
      if (pairs.count(node.outputs[k])) captured[node.outputs[k]] = outs[k].clone();  // outs may live in the arena
  });
  b.set_hook([&](const Node& node, size_t, const std::vector<Tensor>& outs) {
    for (size_t k = 0; k < node.outputs.size() && k < outs.size(); ++k) {
      auto t = twin_of.find(node.outputs[k]);
      if (t == twin_of.end() || !captured.count(t->second)) continue;
      const Tensor& x = captured[t->second];
      const Tensor& y = outs[k];
      if (x.dims() != y.dims() || x.dtype() != DType::Float32) continue;
      auto& [signal, noise] = energy[t->second];
      const float* px = x.data<float>();
      const float* py = y.data<float>();
      double s = 0, e = 0;
      for (int64_t i = 0; i < x.numel(); ++i) {
        const double v = px[i], d = v - py[i];
        s += v * v, e += d * d;
      }
      signal += s, noise += e;
      elements[t->second] += uint64_t(x.numel());
    }
  });
  while (!(options.interrupt && *options.interrupt)) {
    std::optional<Batch> batch = stream.next();
    if (!batch) break;
    captured.clear();
    for (const auto& [name, t] : batch->inputs)
      if (pairs.count(name)) captured[name] = t;
    if (options.on_batch) options.on_batch(batch->inputs);
    const TensorMap ra = a.run(batch->inputs), rb = b.run(batch->inputs);
    tally.add(ra, rb, *batch);
    progress.update(batch->position);
  }
  progress.finish();
  AccuracyReport r = tally.report();
  r.placement = placement_summary(b.placement(), b.shape_work());
  for (const auto& [t, e] : energy) {
    const double sqnr = e.second > 0 ? 10.0 * std::log10(e.first / e.second) : INFINITY;  // = 20·log10(‖x‖/‖x − x̂‖)
    r.layers.push_back({t, sqnr, elements[t]});
  }
  std::sort(r.layers.begin(), r.layers.end(), [](const LayerSqnr& x, const LayerSqnr& y) { return x.sqnr_db < y.sqnr_db; });
  return r;
}

ReferenceOutputs run_reference(const Graph& fp32, BatchSource& stream) {
  ReferenceOutputs ref;
  Executor exec(fp32);
  while (auto batch = stream.next()) {
    ref.outputs.push_back(exec.run(batch->inputs));
    batch->inputs.clear();
    ref.batches.push_back(std::move(*batch));
  }
  return ref;
}

AccuracyReport compare_to_reference(const Graph& fp32, const ReferenceOutputs& reference, const Graph& qdq, BatchSource& stream,
                                    const CompareOptions& options) {
  AccuracyTally tally(fp32, options);
  Executor exec(options.int8_engine ? lower_qdq(qdq).graph : qdq, backends_for("cpu"));
  for (size_t i = 0; i < reference.batches.size(); ++i) {
    std::optional<Batch> batch = stream.next();
    check(batch && batch->indices == reference.batches[i].indices, "the samples differ from the reference run's");
    tally.add(reference.outputs[i], exec.run(batch->inputs), reference.batches[i]);
  }
  AccuracyReport r = tally.report();
  r.placement = placement_summary(exec.placement(), exec.shape_work());
  return r;
}

std::string format_accuracy_json(const AccuracyReport& r, const std::string& fp32_path, const std::string& qdq_path,
                                 const std::string& dataset, const BlameReport* blame) {
  nlohmann::ordered_json j;
  j["fp32_model"] = fp32_path;
  j["qdq_model"] = qdq_path;
  j["dataset"] = dataset;
  j["output"] = r.output;
  j["kind"] = output_kind_name(r.kind);
  j["samples"] = r.samples;
  j["placement"] = r.placement;
  j["labelled"] = r.labelled;
  if (r.kind == OutputKind::Classifier && r.labelled) j["fp32_top1"] = r.fp32_top1(), j["int8_top1"] = r.int8_top1();
  if (r.kind == OutputKind::Classifier) j["top1_agreement"] = r.agreement();
  if (r.kind == OutputKind::ClassMap || r.kind == OutputKind::BinaryMap) j["pixel_agreement"] = r.agreement();
  if (r.mask_pixels) {
    j["fp32_pixel_accuracy"] = double(r.fp32_masks.correct) / double(r.mask_pixels);
    j["int8_pixel_accuracy"] = double(r.int8_masks.correct) / double(r.mask_pixels);
    j["fp32_miou"] = r.fp32_masks.mean_iou();
    j["int8_miou"] = r.int8_masks.mean_iou();
  }
  j["output_cosine"] = r.outputs.empty() ? 0.0 : r.outputs[0].cosine();
  nlohmann::ordered_json metrics = nlohmann::ordered_json::object();
  for (const auto& [k, v] : r.metrics()) metrics[k] = v;
  j["metrics"] = metrics;
  nlohmann::ordered_json outs = nlohmann::ordered_json::array();
  for (const OutputError& o : r.outputs)
    outs.push_back({{"name", o.name}, {"cosine", o.cosine()}, {"max_abs_error", o.max_abs_error}, {"mean_abs_error", o.mean_abs_error()},
                    {"max_rel_error", o.max_rel_error()}});
  j["outputs"] = outs;
  nlohmann::ordered_json layers = nlohmann::ordered_json::array();
  for (const LayerSqnr& l : r.layers)
    layers.push_back({{"tensor", l.tensor}, {"sqnr_db", std::isfinite(l.sqnr_db) ? nlohmann::ordered_json(l.sqnr_db) : nullptr},
                      {"elements", l.elements}});
  j["layers"] = layers;
  if (blame) {
    nlohmann::ordered_json b;
    b["samples"] = blame->samples;
    b["weights_only"] = {{"cosine_loss", blame->weights_only.cosine_loss}, {"disagreement", blame->weights_only.disagreement}};
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const TensorBlame& t : blame->tensors)
      rows.push_back({{"tensor", t.tensor}, {"cosine_loss", t.cosine_loss}, {"disagreement", t.disagreement}});
    b["tensors"] = rows;
    j["blame"] = b;
  }
  return j.dump(2) + "\n";
}

}  // namespace q8
