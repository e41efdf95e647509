// q8.compare: INT8 (the QDQ model, or with int8=True the INT8 engine's plan of it) against FP32
// on data, the metrics `q8 compare --json` writes, as a dict.
#include <pybind11/stl.h>

#include "datasets/model_inputs.h"
#include "eval/accuracy.h"
#include "python/background.h"
#include "python/bindings.h"
#include "python/data.h"

namespace q8::python {

namespace {

py::object compare(const Model& fp32, const Model& qdq, const py::object& data, bool int8, double threshold,
                   std::optional<int64_t> batch_size, int64_t limit, const std::optional<std::string>& preprocess_json,
                   const py::object& progress) {
  const std::string fp32_name = fp32.path.empty() ? "the FP32 model" : fp32.path;
  const std::string qdq_name = qdq.path.empty() ? "the QDQ model" : qdq.path;
  check_qdq_model(*qdq.graph, qdq_name);
  CompareOptions options;
  options.int8_engine = int8, options.threshold = threshold;
  const DataArgument d = data_argument(*fp32.graph, data);
  check_stream_options(d, batch_size, limit, limit != 0 || batch_size || preprocess_json, "limit, batch_size and preprocess");
  std::unique_ptr<BatchStream> stream;
  std::string dataset = d.description;
  if (!d.path.empty()) {
    std::string from;
    Preprocessing pre = recorded_or_default_preprocessing(*qdq.graph, qdq_name, from);
    if (preprocess_json) pre = Preprocessing{}, pre.merge_json_text(*preprocess_json, "preprocess");
    BatchStreamOptions s;
    s.batch_size = choose_batch_size(*fp32.graph, batch_size, s.batch_size, "", pre).size;
    s.limit = limit;
    const auto inputs = open_model_inputs(*fp32.graph, d.path, pre, {});
    stream = std::make_unique<BatchStream>(inputs, pre, s);
    dataset = inputs[0].source->describe() + " at " + d.path;
  }
  BatchSource& batches = stream ? static_cast<BatchSource&>(*stream) : *d.batches;
  Background background(progress, "comparing");
  Progress bar = background.progress(batches.total());
  options.interrupt = &background.interrupt();
  AccuracyReport r;
  background.run([&] { r = compare_accuracy(*fp32.graph, *qdq.graph, batches, bar, options); });
  check(r.samples > 0, "no sample could be compared (the data holds none, or every one was skipped as corrupt)");
  return py::module_::import("json").attr("loads")(format_accuracy_json(r, fp32_name, qdq_name, dataset));
}

}  // namespace

void bind_compare(py::module_& m) {
  m.def("_compare", &compare, py::arg("fp32"), py::arg("qdq"), py::arg("data"), py::arg("int8"), py::arg("threshold"),
        py::arg("batch_size"), py::arg("limit"), py::arg("preprocess_json"), py::arg("progress"));
}

}  // namespace q8::python
