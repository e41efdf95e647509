// Matching a dataset path to a model's inputs. One input: the path holds its samples. Several
// inputs: the path is a directory with one subdirectory (or file) per input name, samples
// paired by their order (docs/datasets.md).
#pragma once

#include <string>
#include <vector>

#include "datasets/batch_stream.h"

namespace q8 {

// The batch size the model's inputs fix (a known first dimension), if they fix one.
std::optional<int64_t> fixed_batch_size(const Graph& graph);

// The batch every command streams a model's samples at: the model's own when its inputs fix one
// (most static exports fix 1), whatever was asked; else the batch asked for; else `fallback`.
// `note` says where the size came from when it is not what was asked ("" when it is).
struct BatchChoice {
  int64_t size = 1;
  std::string note;
};
BatchChoice choose_batch_size(const Graph& graph, std::optional<int64_t> asked, int64_t fallback, const std::string& fallback_note = "");

// What the data is: its description, path, and a hash of every sample's origin (file names, or
// file[index]) of every input, so a folder whose files changed is another dataset.
std::string dataset_identity(const std::vector<StreamInput>& inputs, const std::string& path);

std::vector<StreamInput> open_model_inputs(const Graph& graph, const std::string& path, const Preprocessing& pre,
                                           SourceOptions options);

}  // namespace q8
