#include "calib/trt_cache.h"

#include <bit>
#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>

#include "calib/weight_ranges.h"

namespace q8 {

std::string trt_algorithm(const std::string& method) { return method == "max" ? "MinMaxCalibration" : "EntropyCalibration2"; }

std::string scale_to_hex(float scale) {
  char buf[9];
  std::snprintf(buf, sizeof buf, "%08x", std::bit_cast<uint32_t>(scale));
  return buf;
}

float hex_to_scale(const std::string& hex, const std::string& what) {
  check(hex.size() == 8 && hex.find_first_not_of("0123456789abcdefABCDEF") == std::string::npos,
        what + ": '" + hex + "' is not 8 hex digits");
  return std::bit_cast<float>(uint32_t(std::stoul(hex, nullptr, 16)));
}

TrtCache make_trt_cache(const RangeTable& table, const Graph& graph, const std::string& version, const std::string& algorithm) {
  check(!version.empty() && version.find_first_not_of("0123456789") == std::string::npos,
        "--trt-version must be digits (7000, 8601, 100300), got '" + version + "'");
  TrtCache cache{version, algorithm, {}};
  std::set<std::string> written;
  auto add = [&](const std::string& name) {
    auto it = table.activations.find(name);
    if (it == table.activations.end() || !written.insert(name).second) return;
    cache.scales.emplace_back(name, float(it->second.scale()));
  };
  for (const auto& in : graph.inputs) add(in.name);
  for (const Node& n : graph.nodes)
    for (const auto& o : n.outputs) add(o);
  for (const auto& [name, r] : table.activations) add(name);  // anything not in the graph order
  return cache;
}

std::string format_trt_cache(const TrtCache& cache) {
  std::string out = "TRT-" + cache.version + "-" + cache.algorithm + "\n";
  for (const auto& [name, scale] : cache.scales) out += name + ": " + scale_to_hex(scale) + "\n";
  return out;
}

bool looks_like_trt_cache(const std::string& text) { return text.rfind("TRT-", 0) == 0; }

RangeTable range_table_from_trt_cache(const TrtCache& cache, const Graph& graph, const std::string& what,
                                      std::vector<std::string>& ignored) {
  static const std::set<std::string> algorithms = {"EntropyCalibration2", "EntropyCalibration", "MinMaxCalibration",
                                                   "LegacyCalibration"};
  check(!cache.version.empty() && cache.version.find_first_not_of("0123456789") == std::string::npos,
        what + ": version '" + cache.version + "' in line 1 is not a TensorRT version number");
  check(algorithms.count(cache.algorithm) > 0, what + ": unknown calibrator '" + cache.algorithm +
                                                   "' in line 1 (EntropyCalibration2, EntropyCalibration, MinMaxCalibration, "
                                                   "LegacyCalibration)");
  std::set<std::string> tensors;
  for (const ValueInfo& v : graph.inputs) tensors.insert(v.name);
  for (const Node& n : graph.nodes) tensors.insert(n.outputs.begin(), n.outputs.end());
  RangeTable table;
  table.dataset = "TensorRT calibration cache " + what + " (TRT-" + cache.version + "-" + cache.algorithm + ")";
  for (const auto& [name, scale] : cache.scales) {
    check(std::isfinite(scale) && scale > 0, what + ": tensor '" + name + "' has scale " + std::to_string(scale) +
                                                 "; a scale must be positive and finite");
    if (!tensors.count(name)) {
      ignored.push_back(name);
      continue;
    }
    TensorRange& r = table.activations[name];
    r.descriptor.tensor = name;
    r.descriptor.amax = {double(scale) * 127.0};
    r.descriptor.method = "trt-cache";
    r.stats.max_abs = r.descriptor.amax[0];
  }
  check(!table.activations.empty(), what + ": none of its " + std::to_string(cache.scales.size()) +
                                        " tensors is in the model (was it made for another model?)");
  table.weights = weight_ranges(graph);
  return table;
}

TrtCache parse_trt_cache(const std::string& text, const std::string& what) {
  std::istringstream in(text);
  std::string line;
  check(bool(std::getline(in, line)), what + ": empty calibration cache");
  if (!line.empty() && line.back() == '\r') line.pop_back();
  check(line.rfind("TRT-", 0) == 0, what + ": line 1 '" + line + "' is not TRT-<version>-<algorithm>");
  const size_t dash = line.find('-', 4);
  check(dash != std::string::npos, what + ": line 1 '" + line + "' is not TRT-<version>-<algorithm>");
  TrtCache cache{line.substr(4, dash - 4), line.substr(dash + 1), {}};
  int number = 1;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const size_t colon = line.rfind(": ");
    check(colon != std::string::npos, what + ": line " + std::to_string(number) + " '" + line + "' is not <tensor>: <hex>");
    cache.scales.emplace_back(line.substr(0, colon),
                              hex_to_scale(line.substr(colon + 2), what + ": line " + std::to_string(number)));
  }
  return cache;
}

}  // namespace q8
