// Step 2 of quantize_graph: the scale of every activation a rule quantizes: its range table's
// amax / 127, except that a scale carrier's output takes its input's scale (Concat: the largest of
// its inputs'), so a quantized consumer reads its producer's scale (docs/quantization.md).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "calib/range_table.h"
#include "quant/rules/rule.h"

namespace q8 {

// Error naming every tensor the rules quantize that the table has no range for. `pinned`
// tensors keep their own range even behind a carrier (overrides). Values known without the data
// (`data_independent`) carry no scale: a Concat joining one with activations takes its own
// observed range, which covers the joined values.
std::map<std::string, float> activation_scales(const GraphIndex& index, const std::vector<NodeMark>& marks, const RangeTable& table,
                                               const std::set<std::string>& pinned, const std::set<std::string>& data_independent);

// The tensor whose table entry gives t's scale under activation_scales' rule: t itself, or, behind
// single-input scale carriers, the tensor they carry it from. nullopt when a Concat joins scales
// on the way (its output takes the largest of its inputs').
std::optional<std::string> scale_source(const GraphIndex& index, const std::vector<NodeMark>& marks, const std::set<std::string>& pinned,
                                        const std::set<std::string>& data_independent, const std::string& t);

}  // namespace q8
