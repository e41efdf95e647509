// The `data` argument of calibrate and compare, as ONNX Runtime's and NNCF's Python users hand
// data over: a dataset path (str or os.PathLike: what the CLI's --data takes), a reader with
// get_next() returning {name: array} or None at the end (ONNX Runtime's CalibrationDataReader),
// or any iterable of {name: array}, one batch each. Readers and iterables are pulled one batch at
// a time, under the GIL, from the thread that runs the model.
#pragma once

#include <memory>
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

}  // namespace q8::python
