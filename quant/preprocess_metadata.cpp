#include "quant/preprocess_metadata.h"

namespace q8 {

std::optional<std::string> recorded_preprocessing(const Graph& graph) {
  const auto it = graph.metadata.find(kPreprocessMetadataKey);
  if (it == graph.metadata.end() || it->second.empty()) return std::nullopt;
  return it->second;
}

}  // namespace q8
