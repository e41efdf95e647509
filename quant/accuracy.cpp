#include "quant/accuracy.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>

#include "engine/cpu/executor.h"

namespace q8 {

namespace {

// (FP32 tensor → its DequantizeLinear output) for every activation the QDQ model quantizes.
std::map<std::string, std::string> quantized_pairs(const Graph& qdq) {
  std::map<std::string, std::string> quantize_input;  // Q output → Q input
  for (const Node& n : qdq.nodes)
    if (n.op_type == "QuantizeLinear" && !n.inputs.empty() && !qdq.initializers.count(n.inputs[0]))
      quantize_input[n.outputs[0]] = n.inputs[0];
  std::map<std::string, std::string> pairs;
  for (const Node& n : qdq.nodes)
    if (n.op_type == "DequantizeLinear" && quantize_input.count(n.inputs[0])) pairs[quantize_input[n.inputs[0]]] = n.outputs[0];
  return pairs;
}

int64_t argmax(const float* row, int64_t n) { return int64_t(std::max_element(row, row + n) - row); }

}  // namespace

AccuracyReport compare_accuracy(const Graph& fp32, const Graph& qdq, BatchStream& stream, Progress& progress) {
  check(!fp32.outputs.empty() && !qdq.outputs.empty(), "a model has no outputs");
  AccuracyReport r;
  r.output = fp32.outputs[0].name;
  const std::map<std::string, std::string> pairs = quantized_pairs(qdq);
  std::map<std::string, std::string> twin_of;  // DQ output → FP32 tensor
  for (const auto& [t, dq] : pairs) twin_of[dq] = t;
  std::map<std::string, std::pair<double, double>> energy;  // tensor → (Σx², Σ(x − x̂)²)
  std::map<std::string, uint64_t> elements;
  Executor a(fp32), b(qdq);
  std::map<std::string, Tensor> captured;
  a.set_hook([&](const Node& node, size_t, const std::vector<Tensor>& outs) {
    for (size_t k = 0; k < node.outputs.size() && k < outs.size(); ++k)
      if (pairs.count(node.outputs[k])) captured[node.outputs[k]] = outs[k];
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
  while (auto batch = stream.next()) {
    captured.clear();
    for (const auto& [name, t] : batch->inputs)
      if (pairs.count(name)) captured[name] = t;
    const Tensor fa = a.run(batch->inputs).at(r.output);
    const Tensor fb = b.run(batch->inputs).at(r.output);
    check(fa.dims() == fb.dims() && fa.dtype() == DType::Float32 && fa.rank() >= 1,
          "the two models' outputs '" + r.output + "' differ in shape or are not float32");
    const int64_t n = fa.dim(0), width = n ? fa.numel() / n : 0;
    for (int64_t i = 0; i < n; ++i) {
      const float* pa = fa.data<float>() + i * width;
      const float* pb = fb.data<float>() + i * width;
      double dot = 0, na = 0, nb = 0;
      for (int64_t j = 0; j < width; ++j) dot += double(pa[j]) * pb[j], na += double(pa[j]) * pa[j], nb += double(pb[j]) * pb[j];
      r.cosine_sum += (na > 0 && nb > 0) ? dot / std::sqrt(na * nb) : (na == nb ? 1.0 : 0.0);
      const int64_t ca = argmax(pa, width), cb = argmax(pb, width);
      r.agree += ca == cb;
      if (const auto& label = batch->labels[size_t(i)]) {
        ++r.labelled;
        r.fp32_correct += ca == *label;
        r.int8_correct += cb == *label;
      }
    }
    r.samples += n;
    progress.update(batch->position);
  }
  progress.finish();
  for (const auto& [t, e] : energy) {
    const double sqnr = e.second > 0 ? 10.0 * std::log10(e.first / e.second) : INFINITY;  // = 20·log10(‖x‖/‖x − x̂‖)
    r.layers.push_back({t, sqnr, elements[t]});
  }
  std::sort(r.layers.begin(), r.layers.end(), [](const LayerSqnr& x, const LayerSqnr& y) { return x.sqnr_db < y.sqnr_db; });
  return r;
}

std::string format_accuracy_json(const AccuracyReport& r, const std::string& fp32_path, const std::string& qdq_path,
                                 const std::string& dataset) {
  nlohmann::ordered_json j;
  j["fp32_model"] = fp32_path;
  j["qdq_model"] = qdq_path;
  j["dataset"] = dataset;
  j["output"] = r.output;
  j["samples"] = r.samples;
  j["labelled"] = r.labelled;
  if (r.labelled) j["fp32_top1"] = r.fp32_top1(), j["int8_top1"] = r.int8_top1();
  j["top1_agreement"] = r.agreement();
  j["output_cosine"] = r.cosine();
  nlohmann::ordered_json layers = nlohmann::ordered_json::array();
  for (const LayerSqnr& l : r.layers)
    layers.push_back({{"tensor", l.tensor}, {"sqnr_db", std::isfinite(l.sqnr_db) ? nlohmann::ordered_json(l.sqnr_db) : nullptr},
                      {"elements", l.elements}});
  j["layers"] = layers;
  return j.dump(2) + "\n";
}

}  // namespace q8
