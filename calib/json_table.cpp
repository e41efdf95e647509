#include "calib/json_table.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>

#include "engine/io/sha256.h"
#include "engine/io/atomic_write.h"
#include "engine/io/json_int.h"

namespace q8 {

using nlohmann::ordered_json;

namespace {
// JSON has no Inf or NaN: a tensor that saw no finite value has no min/max.
ordered_json number_or_null(double v) { return std::isfinite(v) ? ordered_json(v) : ordered_json(nullptr); }
double number_or(const ordered_json& j, double fallback) { return j.is_number() ? j.get<double>() : fallback; }
}  // namespace

std::string format_json_table(const RangeTable& table, const std::string& settings_json) {
  ordered_json j;
  j["format"] = "q8-range-table";
  j["format_version"] = 1;
  j["q8_version"] = table.q8_version;
  j["model_sha256"] = table.model_sha256;
  j["dataset"] = table.dataset;
  j["samples"] = table.samples;
  j["settings"] = settings_json.empty() ? ordered_json::object() : ordered_json::parse(settings_json);
  ordered_json acts = ordered_json::object();
  for (const auto& [name, r] : table.activations) {
    const QuantDescriptor& d = r.descriptor;
    ordered_json t;
    t["amax"] = d.amax.empty() ? 0.0 : d.amax[0];
    t["scale"] = r.scale();
    t["method"] = d.method;
    t["num_bits"] = d.num_bits;
    t["axis"] = d.axis ? ordered_json(*d.axis) : ordered_json(nullptr);
    t["unsigned"] = d.is_unsigned;
    t["narrow_range"] = d.narrow_range;
    t["degenerate"] = r.degenerate();
    t["producer_op"] = r.producer_op;
    t["elements"] = r.stats.elements;
    t["zeros"] = r.stats.zeros;
    t["nan"] = r.stats.nan;
    t["pos_inf"] = r.stats.pos_inf;
    t["neg_inf"] = r.stats.neg_inf;
    t["min"] = number_or_null(r.stats.min);
    t["max"] = number_or_null(r.stats.max);
    t["max_abs"] = r.stats.max_abs;
    t["clipped"] = r.clipped;
    if (!r.channel_amax.empty()) t["channel_amax"] = r.channel_amax;
    acts[name] = std::move(t);
  }
  j["activations"] = std::move(acts);
  ordered_json weights = ordered_json::object();
  for (const auto& [name, w] : table.weights) {
    ordered_json t;
    t["node"] = w.node;
    t["op"] = w.op;
    t["axis"] = w.axis;
    t["num_bits"] = 8;
    t["narrow_range"] = true;
    t["method"] = "max";
    t["amax"] = w.amax;
    weights[name] = std::move(t);
  }
  j["weights"] = std::move(weights);
  return j.dump(2) + "\n";
}

void write_json_table(const std::string& path, const RangeTable& table, const std::string& settings_json) {
  write_file_atomically(path, format_json_table(table, settings_json));
}

void check_amax(double amax, const std::string& what) {
  // amax / 127 becomes a float32 scale: it must be finite, and a negative range means nothing.
  check(std::isfinite(amax) && amax >= 0 && amax / 127.0 <= double(std::numeric_limits<float>::max()),
        what + ": amax " + std::to_string(amax) + " is not a finite, non-negative range a float32 scale can hold");
}

RangeTable read_json_table(const std::string& path) { return parse_json_table(read_file(path), path); }

RangeTable parse_json_table(const std::string& text, const std::string& path) {
  ordered_json j;
  try {
    j = ordered_json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(path + ": not valid JSON (" + std::string(e.what()) + ")");
  }
  try {
    check(j.value("format", "") == "q8-range-table", path + ": not a q8 range table (no \"format\": \"q8-range-table\")");
    RangeTable t;
    t.q8_version = j.value("q8_version", "");
    t.model_sha256 = j.value("model_sha256", "");
    t.dataset = j.value("dataset", "");
    t.samples = json_int_or<uint64_t>(j, "samples", 0, path);
    if (j.contains("settings") && j["settings"].is_object() && j["settings"].contains("preprocess") &&
        j["settings"]["preprocess"].is_object())
      t.preprocess = j["settings"]["preprocess"].dump();
    if (j.contains("settings") && j["settings"].is_object()) {
      const auto& s = j["settings"];
      t.equalize = s.value("equalize", false);
      t.method = s.contains("method") && s["method"].is_string() ? s["method"].get<std::string>() : "";
      t.data = s.contains("data") && s["data"].is_string() ? s["data"].get<std::string>() : "";
      t.shuffle = s.value("shuffle", false);
      t.seed = s.contains("seed") && s["seed"].is_number_unsigned() ? s["seed"].get<uint64_t>() : 0;
    }
    for (const auto& [name, a] : j.at("activations").items()) {
      const std::string where = path + ": activation '" + name + "'";
      TensorRange r;
      r.descriptor.tensor = name;
      r.descriptor.amax = {a.at("amax").get<double>()};
      check_amax(r.descriptor.amax[0], path + ": activation '" + name + "'");
      r.descriptor.method = a.value("method", "");
      r.descriptor.num_bits = json_int_or<int>(a, "num_bits", 8, where);
      if (a.contains("axis") && !a["axis"].is_null()) r.descriptor.axis = json_int<int64_t>(a["axis"], where + ": \"axis\"");
      r.producer_op = a.value("producer_op", "");
      r.stats.elements = json_int_or<uint64_t>(a, "elements", 0, where);
      r.stats.zeros = json_int_or<uint64_t>(a, "zeros", 0, where);
      r.stats.nan = json_int_or<uint64_t>(a, "nan", 0, where);
      r.stats.pos_inf = json_int_or<uint64_t>(a, "pos_inf", 0, where);
      r.stats.neg_inf = json_int_or<uint64_t>(a, "neg_inf", 0, where);
      r.stats.min = number_or(a.value("min", ordered_json()), INFINITY);
      r.stats.max = number_or(a.value("max", ordered_json()), -INFINITY);
      r.stats.max_abs = a.value("max_abs", 0.0);
      r.clipped = a.value("clipped", 0.0);
      if (a.contains("channel_amax")) {
        check(a["channel_amax"].is_array(), where + ": \"channel_amax\" is not a list of numbers");
        for (const auto& v : a["channel_amax"]) {
          check(v.is_number(), where + ": \"channel_amax\" is not a list of numbers");
          r.channel_amax.push_back(v.get<double>());
          check_amax(r.channel_amax.back(), where + ": channel_amax");
        }
      }
      t.activations[name] = std::move(r);
    }
    for (const auto& [name, w] : j.at("weights").items()) {
      t.weights[name] = WeightRange{name, w.value("node", ""), w.value("op", ""), json_int_or<int64_t>(w, "axis", 0, path + ": weight '" + name + "'"),
                                    w.at("amax").get<std::vector<double>>()};
      for (double v : t.weights[name].amax) check_amax(v, path + ": weight '" + name + "'");
    }
    return t;
  } catch (const nlohmann::json::exception& e) {
    throw Error(path + ": malformed range table (" + std::string(e.what()) + ")");
  }
}

}  // namespace q8
