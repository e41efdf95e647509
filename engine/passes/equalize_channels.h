// Cross-layer equalization (Nagel et al. 2019; docs/calibration.md, "Cross-layer equalization"):
// each output channel c of a convolution P is divided by s_c and multiplied back in the input
// channel c of every convolution T that reads it through positively homogeneous ops (Relu,
// pooling, Resize, Concat on channels, ...), with s_c = sqrt(r1_c / r2_c) from the weight ranges.
// Exact in real arithmetic; it evens out the channels' ranges of the tensors between P and T.
#pragma once

#include <string>
#include <vector>

#include "engine/ir/graph.h"

namespace q8 {

struct EqualizeReport {
  size_t producers = 0;  // convolutions whose output channels were equalized
  size_t readers = 0;    // convolutions whose input channels took the factors
  int sweeps = 0;        // sweeps until no factor moved by more than 1 %
  std::vector<std::pair<std::string, std::string>> skipped;  // convolution, why its channels were left
};

// Folds BatchNormalization and constants first (as the Q/DQ pass does), then equalizes.
EqualizeReport equalize_channels(Graph& graph);

}  // namespace q8
