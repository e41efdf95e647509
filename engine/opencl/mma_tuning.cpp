#include "engine/opencl/mma_tuning.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "engine/io/atomic_write.h"
#include "engine/ir/error.h"

namespace q8 {

namespace {

// q8's entries: device name → the tuning that won `q8 tune` there (the device tile, then
// "class tile" pairs).
const std::map<std::string, std::string>& table() {
  static const std::map<std::string, std::string> entries = {
      // `q8 tune --repeat 5`, driver 580.159.04, kernel time from OpenCL's events: geometric
      // mean 173.4 TOPS over the eleven shapes at these class tiles, against 167.2 for
      // 128x128x64/2x2/2 with the small-tile rules (the entry before shape classes).
      {"NVIDIA H100 80GB HBM3", "128x64x64/2x2/3 narrow 128x64x64/2x2/3 small 64x64x64/2x2/3 deep 128x128x64/2x2/2 wide 64x64x64/2x2/3"},
      // `q8 tune --repeat 3`, driver 580.159.04, split-K in the small class's launches: 177.3 TOPS
      // over the eleven shapes against 160.2 for the default tile with the rules.
      {"NVIDIA H200", "128x64x64/2x2/3 narrow 128x64x64/2x2/3 small 64x64x64/2x2/4 deep 128x64x64/2x2/3 wide 128x64x64/2x2/3"},
  };
  return entries;
}

nlohmann::ordered_json read_db(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return nlohmann::ordered_json::object();
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::ordered_json db = nlohmann::ordered_json::parse(text.str(), nullptr, false);
  check(!db.is_discarded() && db.is_object() && db.value("format", "") == "q8-tuning" && db.contains("devices") && db["devices"].is_array(),
        path + ": not a q8 tuning database (remove it or run `q8 tune` again)");
  return db;
}

bool is_entry_for(const nlohmann::ordered_json& e, const DeviceCaps& caps) {
  return e.is_object() && e.value("device", "") == caps.name && e.value("driver", "") == caps.driver;
}

// The tiles of an entry or a section: "qgemm_mma", and "classes" by the names of kMmaClasses.
MmaTuning tuning_of(const nlohmann::ordered_json& e, const DeviceCaps& caps, const std::string& source) {
  MmaTuning t;
  t.source = source;
  check(e.contains("qgemm_mma") && e["qgemm_mma"].is_string(), "no qgemm_mma tile");
  t.tile = parse_mma_tile(e["qgemm_mma"].get<std::string>(), caps);
  if (!e.contains("classes")) return t;
  check(e["classes"].is_object(), "\"classes\" is not an object of tiles by shape class");
  for (const auto& [name, tile] : e["classes"].items()) {
    check(std::find(std::begin(kMmaClasses), std::end(kMmaClasses), name) != std::end(kMmaClasses),
          "\"" + name + "\" is no shape class (narrow, small, deep, wide)");
    check(tile.is_string(), "class " + name + ": the tile is not a string");
    t.classes[name] = parse_mma_tile(tile.get<std::string>(), caps);
  }
  return t;
}

nlohmann::ordered_json tiles_json(const MmaTuning& tuning) {
  nlohmann::ordered_json j;
  j["qgemm_mma"] = tuning.tile.name();
  if (tuning.classes.empty()) return j;
  nlohmann::ordered_json classes = nlohmann::ordered_json::object();
  for (const char* name : kMmaClasses)
    if (const auto it = tuning.classes.find(name); it != tuning.classes.end()) classes[name] = it->second.name();
  j["classes"] = classes;
  return j;
}

}  // namespace

std::string tuning_db_path() {
  if (const char* db = std::getenv("Q8_TUNING_DB"); db && *db) return db;
  if (const char* dir = std::getenv("Q8_CACHE_DIR"); dir && *dir) return std::string(dir) + "/tuning.json";
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/q8/tuning.json";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/q8/tuning.json";
  return "";
}

MmaTuning device_mma_tuning(const DeviceCaps& caps, const std::string& db_path) {
  if (!db_path.empty()) {
    const nlohmann::ordered_json db = read_db(db_path);
    for (const nlohmann::ordered_json& e : db.value("devices", nlohmann::ordered_json::array()))
      if (is_entry_for(e, caps)) {
        try {
          return tuning_of(e, caps, "tuning database " + db_path);
        } catch (const Error& error) {
          throw Error(db_path + ": " + error.what());
        }
      }
  }
  if (const auto it = table().find(caps.name); it != table().end()) {
    std::istringstream words(it->second);
    MmaTuning t;
    std::string tile, name;
    words >> tile;
    t.tile = parse_mma_tile(tile, caps);
    while (words >> name >> tile) t.classes[name] = parse_mma_tile(tile, caps);
    t.source = "q8's entry for " + caps.name;
    return t;
  }
  return {kMmaTile, {}, "default"};
}

void record_mma_tuning(const std::string& db_path, const DeviceCaps& caps, const MmaTuning& tuning, const std::string& measured) {
  check(!db_path.empty(), "no place for the tuning database (set Q8_TUNING_DB or HOME)");
  nlohmann::ordered_json db = read_db(db_path);
  nlohmann::ordered_json devices = nlohmann::ordered_json::array();
  for (const nlohmann::ordered_json& e : db.value("devices", nlohmann::ordered_json::array()))
    if (!is_entry_for(e, caps)) devices.push_back(e);
  nlohmann::ordered_json entry;
  entry["device"] = caps.name, entry["driver"] = caps.driver;
  entry.update(tiles_json(tuning));
  entry["measured"] = nlohmann::ordered_json::parse(measured);
  devices.push_back(entry);
  nlohmann::ordered_json out;
  out["format"] = "q8-tuning", out["version"] = 1, out["devices"] = devices;
  const std::filesystem::path parent = std::filesystem::path(db_path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent);
  write_file_atomically(db_path, out.dump(2) + "\n");
}

std::string mma_tuning_section(const DeviceCaps& caps, const MmaTuning& tuning) {
  nlohmann::ordered_json j;
  j["format"] = "q8-device", j["device"] = caps.name, j["driver"] = caps.driver;
  j.update(tiles_json(tuning));
  return j.dump(2) + "\n";
}

std::optional<MmaTuning> parse_mma_tuning_section(const std::string& section, const DeviceCaps& caps, const std::string& what) {
  const nlohmann::ordered_json j = nlohmann::ordered_json::parse(section, nullptr, false);
  check(!j.is_discarded() && j.is_object() && j.value("format", "") == "q8-device", what + ": the device section is not one q8 wrote");
  if (!is_entry_for(j, caps)) return std::nullopt;
  try {
    return tuning_of(j, caps, "plan " + what);
  } catch (const Error& error) {
    throw Error(what + ": device section: " + error.what());
  }
}

std::vector<MmaTile> mma_candidates(const DeviceCaps& caps) {
  std::vector<MmaTile> all;
  const int shapes[][4] = {{128, 128, 2, 2}, {128, 128, 4, 2}, {128, 128, 2, 4}, {128, 256, 2, 4}, {256, 128, 4, 2},
                           {64, 128, 2, 2},   {128, 64, 2, 2},   {64, 64, 2, 2}};
  for (const auto& s : shapes)
    for (int depth : {32, 64})
      for (int stages : {2, 3, 4}) {
        MmaTile t;
        t.rows = s[0], t.cols = s[1], t.warps_m = s[2], t.warps_n = s[3], t.depth = depth, t.stages = stages;
        try {
          check_mma_tile(t, caps);
          all.push_back(t);
        } catch (const Error&) {  // not one the kernel or the device can take
        }
      }
  return all;
}

}  // namespace q8
