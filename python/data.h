// The `data` argument of calibrate and compare, as ONNX Runtime's and NNCF's Python users hand
// data over: a dataset path (str or os.PathLike: what the CLI's --data takes), a reader with
// get_next() returning {name: array} or None at the end (ONNX Runtime's CalibrationDataReader),
// or any iterable of {name: array}, one batch each. Readers and iterables are pulled one batch at
// a time, under the GIL, from the thread that runs the model.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include <pybind11/pybind11.h>

#include "datasets/callback_batches.h"

namespace q8::python {

namespace py = pybind11;

struct DataArgument {
  std::string path;                          // a dataset path, or ""
  std::shared_ptr<CallbackBatches> batches;  // a reader's or an iterable's batches, or null
  std::string description;                   // "a Python iterable (list)", for the table's provenance
};

// Error for anything else (a number, a dict: one batch is not a dataset).
DataArgument data_argument(const Graph& graph, const py::object& data);

// The streaming options of calibrate and compare: batch_size at least 1, limit at least 0, and
// none of the options only a dataset path takes (named in `path_only`) given with a reader's
// batches. ArgumentError otherwise.
void check_stream_options(const DataArgument& data, std::optional<int64_t> batch_size, int64_t limit, bool path_only_given,
                          const std::string& path_only);

}  // namespace q8::python
