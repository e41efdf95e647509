#include "calib/overrides.h"

#include <nlohmann/json.hpp>

#include "calib/json_table.h"
#include "calib/methods/method.h"
#include "engine/ir/error.h"

namespace q8 {

std::map<std::string, RangeOverride> parse_overrides(const std::string& text, const std::string& what) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(what + ": not valid JSON (" + std::string(e.what()) + ")");
  }
  check(j.is_object(), what + ": overrides must be a JSON object {\"tensor\": {...}}");
  std::map<std::string, RangeOverride> out;
  for (const auto& [name, o] : j.items()) {
    RangeOverride r;
    if (o.is_object() && o.contains("amax") && o["amax"].is_number()) {
      r.amax = o["amax"].get<double>();
      check_amax(*r.amax, what + ": entry '" + name + "'");
    } else {
      check(o.is_object() && o.contains("method") && o["method"].is_string(),
            what + ": entry '" + name + "' needs {\"amax\": number} or {\"method\": name}");
      r.method = o["method"].get<std::string>();
      check(find_method(r.method) != nullptr,
            what + ": entry '" + name + "': unknown method '" + r.method + "' (methods: " + method_names() + ")");
    }
    out[name] = r;
  }
  return out;
}

}  // namespace q8
