#include "calib/table_file.h"

#include "calib/json_table.h"
#include "calib/trt_cache.h"
#include "engine/io/atomic_write.h"

namespace q8 {

TableFile read_table_file(const std::string& path, const Graph& graph, const std::string& model_sha256, const std::string& model_path) {
  TableFile f;
  f.text = read_file(path);
  if (looks_like_trt_cache(f.text)) {
    std::vector<std::string> ignored;
    const TrtCache cache = parse_trt_cache(f.text, path);
    f.table = range_table_from_trt_cache(cache, graph, path, ignored);
    f.trt_algorithm = cache.algorithm;
    f.note = std::to_string(f.table.activations.size()) + " activations from TensorRT cache TRT-" + cache.version + "-" + cache.algorithm;
    if (!ignored.empty())
      f.note += "; " + std::to_string(ignored.size()) + " cache tensors are not in the model (first: '" + ignored[0] + "')";
    return f;
  }
  f.table = parse_json_table(f.text, path);
  check(f.table.model_sha256 == model_sha256, path + " was made for another model (sha256 " + f.table.model_sha256.substr(0, 12) +
                                                  "…), not " + model_path + " (sha256 " + model_sha256.substr(0, 12) + "…)");
  f.trt_algorithm = trt_algorithm(f.table.method);
  return f;
}

}  // namespace q8
