// The pieces of q8's Python module (docs/python.md), one file each: the Model, calibration and
// its table, quantization, plans, comparison. Each binds library calls and nothing else.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include <pybind11/pybind11.h>

#include "engine/exec/executor.h"
#include "engine/ir/graph.h"

namespace q8::python {

namespace py = pybind11;

// An ONNX model: its graph, the file it came from, and that file's SHA-256 (what tables and plans
// record); a model q8.quantize made has no file until saved.
struct Model {
  std::shared_ptr<const Graph> graph;
  std::string path;
  std::string sha256;
  // The FP32 executor Model.run uses, made at the first run (and again for another graph
  // optimization level); one run at a time.
  std::shared_ptr<Executor> executor;
  std::string executor_level;
  std::shared_ptr<std::mutex> running = std::make_shared<std::mutex>();
};

void bind_model(py::module_& m);
void bind_calibrate(py::module_& m);
void bind_quantize(py::module_& m);
void bind_plan(py::module_& m);
void bind_compare(py::module_& m);

}  // namespace q8::python
