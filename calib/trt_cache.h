// TensorRT's calibration cache (text): "TRT-<version>-<algorithm>", then one
// "<tensor>: <8 hex digits of the float32 bits of amax / 127>" line per tensor.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "calib/range_table.h"
#include "engine/ir/graph.h"

namespace q8 {

inline constexpr const char* kDefaultTrtVersion = "100300";  // TensorRT 10.3

struct TrtCache {
  std::string version;
  std::string algorithm;
  std::vector<std::pair<std::string, float>> scales;  // tensor → amax / 127
};

// EntropyCalibration2 for entropy, percentile and mse (docs/calibration.md says why);
// MinMaxCalibration for max.
std::string trt_algorithm(const std::string& method);
// "3c010204" for 1/127.
std::string scale_to_hex(float scale);
float hex_to_scale(const std::string& hex, const std::string& what);

// The cache of a table's activations, in graph order (inputs, then node outputs).
TrtCache make_trt_cache(const RangeTable& table, const Graph& graph, const std::string& version, const std::string& algorithm);
std::string format_trt_cache(const TrtCache& cache);
// Parses cache text; Errors name the line that is wrong.
TrtCache parse_trt_cache(const std::string& text, const std::string& what);

// Whether text starts like a TensorRT cache ("TRT-").
bool looks_like_trt_cache(const std::string& text);

// A range table from a TensorRT cache of any version header TensorRT has written
// (TRT-<digits>-<EntropyCalibration2|EntropyCalibration|MinMaxCalibration|LegacyCalibration>):
// amax = scale · 127 for each tensor the graph has (others are listed in `ignored`), weight
// ranges read from the graph's initializers. A scale that is not positive and finite is an error.
RangeTable range_table_from_trt_cache(const TrtCache& cache, const Graph& graph, const std::string& what,
                                      std::vector<std::string>& ignored);

}  // namespace q8
