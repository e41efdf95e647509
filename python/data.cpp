#include "python/data.h"

#include "python/arrays.h"

namespace q8::python {

namespace {

// A Python object shared with C++ code that may drop it without the GIL.
std::shared_ptr<py::object> shared(py::object o) {
  return std::shared_ptr<py::object>(new py::object(std::move(o)), [](py::object* p) {
    py::gil_scoped_acquire gil;
    delete p;
  });
}

std::string type_name(const py::handle& o) { return py::str(py::type::of(o).attr("__name__")); }

}  // namespace

DataArgument data_argument(const Graph& graph, const py::object& data) {
  DataArgument out;
  const py::module_ os = py::module_::import("os");
  if (py::isinstance<py::str>(data) || py::isinstance(data, os.attr("PathLike"))) {
    out.path = py::str(os.attr("fspath")(data));
    return out;
  }
  std::shared_ptr<py::object> source;
  bool reader = false;
  if (py::hasattr(data, "get_next")) {
    source = shared(data), reader = true;
    out.description = "a data reader (" + type_name(data) + ", get_next())";
  } else if (!py::isinstance<py::dict>(data) && py::hasattr(data, "__iter__")) {
    source = shared(py::iter(data));
    out.description = "a Python iterable (" + type_name(data) + ")";
  } else {
    throw ArgumentError("data: a dataset path, a reader with get_next() or an iterable of {input name: array} expected, got " +
                        type_name(data) + (py::isinstance<py::dict>(data) ? " (one batch: put it in a list)" : ""));
  }
  auto batch = std::make_shared<int64_t>(0);
  out.batches = std::make_shared<CallbackBatches>(graph, [source, reader, batch]() -> std::optional<TensorMap> {
    py::gil_scoped_acquire gil;
    py::object item;
    if (reader) {
      item = source->attr("get_next")();
      if (item.is_none()) return std::nullopt;
    } else {
      PyObject* next = PyIter_Next(source->ptr());
      if (!next) {
        if (PyErr_Occurred()) throw py::error_already_set();
        return std::nullopt;
      }
      item = py::reinterpret_steal<py::object>(next);
    }
    return to_tensor_map(item, "data: batch " + std::to_string((*batch)++));
  });
  return out;
}

void check_stream_options(const DataArgument& data, std::optional<int64_t> batch_size, int64_t limit, bool path_only_given,
                          const std::string& path_only) {
  check_argument(!batch_size || *batch_size >= 1, "batch_size " + std::to_string(batch_size.value_or(0)) + ": must be at least 1");
  check_argument(limit >= 0, "limit " + std::to_string(limit) + ": must be at least 0 (0: every sample)");
  check_argument(!data.batches || !path_only_given, path_only + " apply to a dataset path; a reader's batches run as given");
}

}  // namespace q8::python
