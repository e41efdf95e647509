// q8.calibrate and CalibrationTable: a calibration run as `q8 calibrate` makes it (the same
// session, calib/session.h), on a dataset path or on batches a Python reader or iterable gives,
// and the table's three files.
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "calib/json_table.h"
#include "calib/session.h"
#include "calib/table_file.h"
#include "calib/trt_cache.h"
#include "engine/io/atomic_write.h"
#include "eval/auto_calibration.h"
#include "python/background.h"
#include "python/bindings.h"
#include "python/data.h"
#include "python/table.h"

namespace q8::python {

namespace {

CalibrationTable calibrate(const Model& model, const py::object& data, const std::string& method, double percentile, int64_t bins,
                           std::optional<int64_t> batch_size, int64_t limit, bool shuffle, uint64_t seed, bool skip_zeros, bool equalize,
                           const std::map<std::string, std::string>& overrides, const std::optional<std::string>& preprocess_json,
                           int streams, int64_t auto_samples, const py::object& progress) {
  check_argument(!model.path.empty(), "calibrate: the model has no file (save it first): calibration records the file's SHA-256");
  SessionOptions s;
  s.model = model.path;
  // auto observes for every method and calibrates by the default until it has chosen.
  const bool choose = method == kAutoMethod;
  s.choice.default_method = choose ? kDefaultMethod : method;
  s.choice.options.percentile = percentile;
  for (const auto& [name, m] : overrides) s.choice.overrides[name] = m;
  s.bins = bins, s.skip_zeros = skip_zeros, s.equalize = equalize;
  if (preprocess_json) s.pre.merge_json_text(*preprocess_json, "preprocess");
  s.asked_batch = batch_size;
  if (batch_size) s.stream.batch_size = *batch_size;
  s.stream.limit = limit, s.stream.shuffle = shuffle, s.stream.seed = seed;
  const DataArgument d = data_argument(*model.graph, data);
  check_stream_options(d, batch_size, limit, shuffle || limit != 0 || batch_size, "shuffle, limit and batch_size");
  s.data = d.path;
  if (d.batches) {
    s.batches = d.batches, s.batches_description = d.description;
    s.stream.batch_size = 0;  // as given
  }
  CalibrationSession session(s);
  Background background(progress, "calibrating");
  Progress bar = background.progress(session.source()->total());
  CalibrationRunResult run;
  background.run([&] { run = session.run(bar, background.interrupt(), calibration_streams(streams)); });
  check(run.samples > 0, "no sample was observed (the data holds none, or every one was skipped as corrupt)");
  std::unique_ptr<CalibrationSession> equalized;
  if (choose) {
    AutoCalibrationOptions a;
    a.samples = auto_samples, a.streams = calibration_streams(streams), a.interrupt = &background.interrupt();
    if (equalize) a.why_not_equalized = "the graph is already equalized (equalize=True)";
    background.run([&] { equalized = choose_method_by_outputs(session, a); });
  }
  // The session whose observers the table comes from: the equalized one when auto chose it.
  CalibrationSession& out = equalized ? *equalized : session;
  CalibrationTable t;
  t.graph = model.graph;
  t.trt_algorithm = trt_algorithm(out.options().choice.default_method);
  t.histograms = std::make_shared<HistogramFile>(out.histograms(run.positions));
  t.json = format_json_table(out.table(t.histograms->samples), out.settings_json());
  t.table = parse_json_table(t.json, "the calibration table");
  return t;
}

CalibrationTable load_table(const std::filesystem::path& file, const Model& model) {
  const std::string path = file.string();
  TableFile f = read_table_file(path, *model.graph, model.sha256, model.path.empty() ? "the model" : model.path);
  CalibrationTable t;
  t.graph = model.graph;
  t.trt_algorithm = f.trt_algorithm;
  t.json = looks_like_trt_cache(f.text) ? format_json_table(f.table, "") : f.text;
  t.table = std::move(f.table);
  t.source = path;
  return t;
}

py::dict amax(const CalibrationTable& t) {
  py::dict out;
  for (const auto& [name, r] : t.table.activations) out[py::str(name)] = r.degenerate() ? 0.0 : r.descriptor.amax[0];
  return out;
}

}  // namespace

void bind_calibrate(py::module_& m) {
  py::class_<CalibrationTable>(m, "CalibrationTable", "Each activation's amax and the weights' per-channel ranges (q8.calibrate)")
      .def_property_readonly("amax", &amax, "{tensor: amax} of every calibrated activation (0 for one that was all zero)")
      .def_property_readonly("samples", [](const CalibrationTable& t) { return t.table.samples; })
      .def_property_readonly("method", [](const CalibrationTable& t) { return t.table.method; }, "the run's method ('' for a TensorRT cache)")
      .def("to_json", [](const CalibrationTable& t) { return t.json; }, "The JSON range table's text (what save_json writes)")
      .def("save_json", [](const CalibrationTable& t, const std::filesystem::path& p) { write_file_atomically(p.string(), t.json); },
           py::arg("path"), "Writes the JSON range table `q8 quantize --calib` reads")
      .def("save_trt_cache", [](const CalibrationTable& t, const std::filesystem::path& p, const std::string& version) {
             write_file_atomically(p.string(), format_trt_cache(make_trt_cache(t.table, *t.graph, version, t.trt_algorithm)));
           }, py::arg("path"), py::arg("trt_version") = kDefaultTrtVersion,
           "Writes TensorRT's calibration cache (TRT-<version>-<algorithm>, as q8 calibrate --cache)")
      .def("save_histograms", [](const CalibrationTable& t, const std::filesystem::path& p) {
             check_argument(t.histograms != nullptr, "the table was read from " + t.source + ", which holds no histograms");
             write_file_atomically(p.string(), histograms_image(*t.histograms));
           }, py::arg("path"), "Writes the HDF5 histograms (to inspect, or to resume and merge with q8 calibrate)")
      .def("__repr__", [](const CalibrationTable& t) {
        return "<q8.CalibrationTable " + (t.source.empty() ? t.table.method : t.source) + ": " + std::to_string(t.table.activations.size()) + " activations, " +
               std::to_string(t.table.weights.size()) + " weights, " + std::to_string(t.table.samples) + " samples>";
      });
  m.def("load_table", &load_table, py::arg("path"), py::arg("model"),
        "Reads a table for quantizing `model`: q8's JSON range table (made for this model) or a TensorRT calibration cache");
  m.def("_calibrate", &calibrate, py::arg("model"), py::arg("data"), py::arg("method"), py::arg("percentile"), py::arg("bins"),
        py::arg("batch_size"), py::arg("limit"), py::arg("shuffle"), py::arg("seed"), py::arg("skip_zeros"), py::arg("equalize"),
        py::arg("overrides"), py::arg("preprocess_json"), py::arg("streams"), py::arg("auto_samples"), py::arg("progress"));
}

}  // namespace q8::python
