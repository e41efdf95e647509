// q8 tune's work (docs/opencl.md, "Tuning"): qgemm_mma timed under every candidate tile on GEMM
// shapes of every shape class q8's plans run (squares, and convolutions' im2col shapes at batch
// 64), each tile's outputs checked byte for byte against the present tuning's, and the fastest tile
// of each class, and the fastest over all shapes as the device's, chosen. The CLI prints and records.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#if Q8_WITH_OPENCL
#include "engine/opencl/mma_tuning.h"

namespace q8 {

// A QGemm of x [rows, k] · wᵀ ([n, k]) timed on every tile.
struct TuningShape {
  std::string name;
  int64_t rows, k, n;
};
// Squares and ResNet-50's convolution shapes at batch 64 (rows = 64 · H · W, K = C · taps), two or
// three of each shape class on a device of about 100 to 140 compute units.
const std::vector<TuningShape>& tuning_shapes();

struct TileScore {
  MmaTile tile;
  std::vector<double> tops;   // per shape
  double geometric_mean = 0;
};

struct TuneResult {
  std::vector<std::string> classes;         // per shape: its class on this device
  MmaTuning present;                        // the tuning the device had
  TileScore present_score;                  // its figures
  std::vector<TileScore> tiles;             // every candidate, forced on every shape
  std::map<std::string, TileScore> best_of_class;  // per class: its fastest tile, over that class's shapes
  MmaTuning best;                           // the fastest over all shapes as the device's tile, the classes' own
  TileScore tuned;                          // the device with `best`: every shape at its class's tile
  // The figures the database keeps beside the entry (JSON).
  std::string figures_json() const;
};

// Tunes OpenCL device `index`, timing each shape `repeat` times per tile by OpenCL's profiling
// events; `on_tile(label, score)` hears every pass (the present tiles, each candidate, the tuned
// device). The device is left with `best`. Error for a device without tensor cores, or when a tile
// gives other outputs than the present tuning's (a kernel fault).
TuneResult tune_device(int index, int repeat, const std::function<void(const std::string&, const TileScore&)>& on_tile);

}  // namespace q8
#endif
