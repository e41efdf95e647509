// The layout pass of q8 run and q8 bench ("--graph-optimization all", ONNX Runtime's layout level):
// regions of 2-D convolutions, pools and the elementwise ops between them run on channels-last
// activations ([N, H, W, C], oneDNN's native layout), as the ops of domain com.ms.internal.nhwc
// (engine/ops/channels_last.h), with one ONNX Transpose where a value enters or leaves a region.
// In a graph of the INT8 engine the same regions hold q8's QConv (with channels_last = 1) and
// QAdd, for the CPU INT8 backend, whose oneDNN primitives read and write int8 channels-last.
// Every value keeps its name and channels-first layout outside the regions; inside, its
// channels-last copy is named "<value>_nhwc". The results are bit-identical: the same kernels
// see the same values in another order (docs/cpu.md).
#pragma once

#include <string>

#include "engine/ir/graph.h"

namespace q8 {

struct LayoutReport {
  int channels_last_nodes = 0;
  int transposes = 0;

  // "12 nodes channels-last, 2 Transpose"
  std::string summary() const;
};

LayoutReport assign_channels_last(Graph& graph);

}  // namespace q8
