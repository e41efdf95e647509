// Where batches come from, for the loops that run them (calibration, comparison): a dataset's
// batch stream (datasets/batch_stream.h), or batches a program hands over one at a time
// (datasets/callback_batches.h, what q8's Python module reads a data reader through).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "datasets/batch.h"

namespace q8 {

class BatchSource {
 public:
  virtual ~BatchSource() = default;
  // The next batch, or nullopt at the end. Errors name the sample or batch at fault.
  virtual std::optional<Batch> next() = 0;
  // Samples it will deliver; -1 when not known before the end.
  virtual int64_t total() const = 0;
};

}  // namespace q8
