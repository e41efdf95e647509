#include "engine/opencl/mma_tuning.h"

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

// q8's entries: device name → the tile that won `q8 tune` there.
const std::map<std::string, std::string>& table() {
  static const std::map<std::string, std::string> entries = {
      // `q8 tune --repeat 3`, driver 580.159.04, with ldmatrix and the small tile for small
      // shapes: geometric mean 180.0 TOPS over the five shapes; 128x128x64/2x4/2 (the entry
      // before ldmatrix) 142.3 timed first, about 161 warm.
      {"NVIDIA H100 80GB HBM3", "128x128x64/2x2/2"},
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

}  // namespace

std::string tuning_db_path() {
  if (const char* db = std::getenv("Q8_TUNING_DB"); db && *db) return db;
  if (const char* dir = std::getenv("Q8_CACHE_DIR"); dir && *dir) return std::string(dir) + "/tuning.json";
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/q8/tuning.json";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/q8/tuning.json";
  return "";
}

TunedTile tuned_mma_tile(const DeviceCaps& caps, const std::string& db_path) {
  if (!db_path.empty()) {
    const nlohmann::ordered_json db = read_db(db_path);
    for (const nlohmann::ordered_json& e : db.value("devices", nlohmann::ordered_json::array()))
      if (e.value("device", "") == caps.name && e.value("driver", "") == caps.driver) {
        try {
          return {parse_mma_tile(e.value("qgemm_mma", ""), caps), "tuning database " + db_path};
        } catch (const Error& error) {
          throw Error(db_path + ": " + error.what());
        }
      }
  }
  if (const auto it = table().find(caps.name); it != table().end()) return {parse_mma_tile(it->second, caps), "q8's entry for " + caps.name};
  return {kMmaTile, "default"};
}

void record_mma_tile(const std::string& db_path, const DeviceCaps& caps, const MmaTile& tile, const std::string& measured) {
  check(!db_path.empty(), "no place for the tuning database (set Q8_TUNING_DB or HOME)");
  nlohmann::ordered_json db = read_db(db_path);
  nlohmann::ordered_json devices = nlohmann::ordered_json::array();
  for (const nlohmann::ordered_json& e : db.value("devices", nlohmann::ordered_json::array()))
    if (!(e.value("device", "") == caps.name && e.value("driver", "") == caps.driver)) devices.push_back(e);
  nlohmann::ordered_json entry;
  entry["device"] = caps.name, entry["driver"] = caps.driver, entry["qgemm_mma"] = tile.name();
  entry["measured"] = nlohmann::ordered_json::parse(measured);
  devices.push_back(entry);
  nlohmann::ordered_json out;
  out["format"] = "q8-tuning", out["version"] = 1, out["devices"] = devices;
  const std::filesystem::path parent = std::filesystem::path(db_path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent);
  write_file_atomically(db_path, out.dump(2) + "\n");
}

std::vector<MmaTile> mma_candidates(const DeviceCaps& caps) {
  std::vector<MmaTile> all;
  const int shapes[][4] = {{128, 128, 2, 2}, {128, 128, 4, 2}, {128, 128, 2, 4}, {128, 256, 2, 4}, {256, 128, 4, 2}, {64, 128, 2, 2}};
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
