// The dataset, preprocessing and streaming flags that calibrate and compare share.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

#include "datasets/batch_stream.h"

namespace q8::cli {

struct DatasetOptions {
  std::string data;
  Preprocessing pre;
  std::string preprocess_json, size, mean, std;
  int64_t sequence_length = 0;
  std::vector<std::string> batch_axis;  // --batch-axis NAME=AXIS, repeatable
  SourceOptions source;
  BatchStreamOptions stream;
  int threads = 0;
  const CLI::Option* batch_size_option = nullptr;

  // Applies --preprocess, --size, --mean, --std and --threads to the fields above.
  void resolve();
  // --batch-size when given, else nothing (the command's default then applies).
  std::optional<int64_t> asked_batch_size() const;
};

// auto_batch: --batch-size has no fixed default; the command picks one when it is not given.
void add_dataset_options(CLI::App* cmd, DatasetOptions& o, bool auto_batch = false);


}  // namespace q8::cli
