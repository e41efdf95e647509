// The preprocessing a model was calibrated with, carried in the QDQ model's metadata_props so
// that q8 compare feeds it the same inputs (docs/accuracy.md).
#pragma once

#include <optional>
#include <string>

#include "engine/ir/graph.h"

namespace q8 {

inline constexpr const char* kPreprocessMetadataKey = "q8.preprocess";

// The JSON object (Preprocessing::to_json's keys) recorded in the model, if any.
std::optional<std::string> recorded_preprocessing(const Graph& graph);

}  // namespace q8
