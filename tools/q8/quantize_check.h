// The check q8 quantize ends with (docs/accuracy.md, "The check after quantizing"): the QDQ model
// written against the FP32 model on a few samples of the calibration data, one line of figures,
// and one warning with the worst tensors and the --budget command when an output's cosine is
// under the floor.
#pragma once

#include <string>

#include "calib/range_table.h"
#include "engine/ir/graph.h"
#include "eval/method_choice.h"

namespace q8::cli {

inline constexpr double kCheckFloor = kCollapseCosine;

struct CheckOptions {
  std::string model, calib, output, data;  // data: "" for the table's own (settings.data)
  int64_t samples = 8;                     // 0: no check
  double floor = kCheckFloor;
};

// Never throws: a check that cannot run (no data recorded, data moved) says why in one line.
void check_quantized(const Graph& qdq, const RangeTable& table, const CheckOptions& o);

}  // namespace q8::cli
