// q8.load, Model: an ONNX model, its inputs and outputs, FP32 runs and saving.
#include <filesystem>

#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "engine/io/atomic_write.h"
#include "engine/io/sha256.h"
#include "engine/onnx/export.h"
#include "engine/onnx/import.h"
#include "engine/passes/optimize_for_inference.h"
#include "python/arrays.h"
#include "python/bindings.h"

namespace q8::python {

namespace {

Model load(const std::filesystem::path& file) {
  const std::string path = file.string();
  const std::string bytes = read_file(path);
  Model m;
  m.graph = std::make_shared<const Graph>(parse_model(bytes, std::filesystem::path(path).parent_path().string(), path, path));
  m.path = path;
  m.sha256 = sha256_hex(bytes);
  return m;
}

// [(name, dtype, shape)] with None for a dim of unknown size and its name for a symbolic one.
py::list describe(const std::vector<ValueInfo>& values) {
  py::list out;
  for (const ValueInfo& v : values) {
    py::object shape = py::none();
    if (v.shape) {
      py::list dims;
      for (const Dim& d : *v.shape)
        dims.append(d.known() ? py::object(py::int_(d.value)) : d.symbol.empty() ? py::object(py::none()) : py::object(py::str(d.symbol)));
      shape = dims;
    }
    out.append(py::make_tuple(v.name, std::string(dtype_name(v.dtype)), shape));
  }
  return out;
}

py::dict run(Model& m, const py::dict& inputs, const std::string& graph_optimization) {
  const auto level = graph_optimization_level(graph_optimization, "graph_optimization");
  TensorMap tensors = to_tensor_map(inputs, "inputs");
  TensorMap outputs;
  {
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(*m.running);
    if (!m.executor || m.executor_level != graph_optimization) {
      Graph graph = *m.graph;
      if (level) optimize_for_inference(graph, *level);
      m.executor = std::make_shared<Executor>(std::move(graph));
      m.executor_level = graph_optimization;
    }
    outputs = m.executor->run(tensors);
  }
  return to_dict(std::move(outputs));
}

void save(Model& m, const std::filesystem::path& file) {
  const std::string path = file.string();
  const std::string bytes = serialize_model(*m.graph, path);
  write_file_atomically(path, bytes);
  if (m.path.empty()) m.path = path, m.sha256 = sha256_hex(bytes);
}

}  // namespace

void bind_model(py::module_& m) {
  py::class_<Model>(m, "Model", "An ONNX model as q8 reads it (q8.load), or a QDQ model q8.quantize made")
      .def_property_readonly("path", [](const Model& x) { return x.path; }, "the file it was read from or saved to ('' if neither)")
      .def_property_readonly("sha256", [](const Model& x) { return x.sha256; }, "SHA-256 of that file's bytes")
      .def_property_readonly("inputs", [](const Model& x) { return describe(x.graph->inputs); }, "[(name, dtype, shape)]")
      .def_property_readonly("outputs", [](const Model& x) { return describe(x.graph->outputs); }, "[(name, dtype, shape)]")
      .def_property_readonly("opset", [](const Model& x) { return x.graph->opset(); })
      .def("run", &run, py::arg("inputs"), py::kw_only(), py::arg("graph_optimization") = "all",
           "Runs the model in FP32 on the CPU: {input name: array} in, {output name: array} out; graph_optimization: disable, "
           "extended or all (ONNX Runtime's levels, as q8 run --graph-optimization)")
      .def("save", &save, py::arg("path"), "Writes the model as ONNX (atomically, after onnx::checker)")
      .def("__repr__", [](const Model& x) {
        return "<q8.Model " + (x.path.empty() ? std::string("(not saved)") : x.path) + ": " + std::to_string(x.graph->nodes.size()) + " nodes>";
      });
  m.def("load", &load, py::arg("path"), "Reads an ONNX model (external data beside it included)");
}

}  // namespace q8::python
