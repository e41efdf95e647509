// What a range table says of how its model was calibrated, carried into the model it quantizes:
// the preprocessing, in the QDQ model's metadata_props so that q8 compare feeds it the same inputs
// (docs/accuracy.md), and the cross-layer equalization, repeated on the graph before Q/DQ.
#pragma once

#include <optional>
#include <string>

#include "calib/range_table.h"
#include "engine/ir/graph.h"
#include "engine/passes/equalize_channels.h"

namespace q8 {

inline constexpr const char* kPreprocessMetadataKey = "q8.preprocess";

// The JSON object (Preprocessing::to_json's keys) recorded in the model, if any.
std::optional<std::string> recorded_preprocessing(const Graph& graph);
// Records the table's preprocessing (if it has one) in the QDQ model made from it.
void record_preprocessing(Graph& qdq, const RangeTable& table);

// The graph as the table was calibrated on: cross-layer equalized (engine/passes) when the table
// says --equalize; nullopt when it does not.
std::optional<EqualizeReport> equalize_as_calibrated(Graph& graph, const RangeTable& table);

}  // namespace q8
