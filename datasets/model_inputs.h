// Matching a dataset path to a model's inputs. One input: the path holds its samples. Several
// inputs: the path is a directory with one subdirectory (or file) per input name, samples
// paired by their order (docs/datasets.md).
#pragma once

#include <string>
#include <vector>

#include "datasets/batch_stream.h"

namespace q8 {

// The axis input v batches along (docs/datasets.md, "Batch axes"): --batch-axis's, else -1 for a
// scalar (no batch axis: one value for every batch), else the axis whose symbolic dim is named as
// another input's batch dim when v's axis 0 is fixed (a state [2, batch, 128] beside input
// [batch, sequence]), else 0.
int64_t batch_axis_of(const Graph& graph, const ValueInfo& v, const Preprocessing& pre);

// The batch size the model's inputs fix (a known batch dimension), if they fix one.
std::optional<int64_t> fixed_batch_size(const Graph& graph, const Preprocessing& pre = {});

// The batch every command streams a model's samples at: the model's own when its inputs fix one
// (most static exports fix 1), whatever was asked; else the batch asked for; else `fallback`.
// `note` says where the size came from when it is not what was asked ("" when it is).
struct BatchChoice {
  int64_t size = 1;
  std::string note;
};
BatchChoice choose_batch_size(const Graph& graph, std::optional<int64_t> asked, int64_t fallback, const std::string& fallback_note = "",
                              const Preprocessing& pre = {});

// What the data is: its description, path, and a hash of every sample's origin (file names, or
// file[index]) of every input, so a folder whose files changed is another dataset.
std::string dataset_identity(const std::vector<StreamInput>& inputs, const std::string& path);

std::vector<StreamInput> open_model_inputs(const Graph& graph, const std::string& path, const Preprocessing& pre,
                                           SourceOptions options);

}  // namespace q8
