#include "quant/preprocess_metadata.h"

namespace q8 {

std::optional<std::string> recorded_preprocessing(const Graph& graph) {
  const auto it = graph.metadata.find(kPreprocessMetadataKey);
  if (it == graph.metadata.end() || it->second.empty()) return std::nullopt;
  return it->second;
}

void record_preprocessing(Graph& qdq, const RangeTable& table) {
  if (!table.preprocess.empty()) qdq.metadata[kPreprocessMetadataKey] = table.preprocess;
}

std::optional<EqualizeReport> equalize_as_calibrated(Graph& graph, const RangeTable& table) {
  if (!table.equalize) return std::nullopt;
  return equalize_channels(graph);
}

}  // namespace q8
