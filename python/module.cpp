// _q8: the extension module behind the q8 package (python/q8/__init__.py).
#include <pybind11/pybind11.h>

#include "calib/calibrator.h"
#include "calib/trt_cache.h"
#include "engine/io/log.h"
#include "engine/ir/error.h"
#include "eval/accuracy.h"
#include "eval/method_choice.h"
#include "python/bindings.h"

PYBIND11_MODULE(_q8, m) {
  namespace py = pybind11;
  m.doc() = "q8: post-training INT8 quantization of ONNX models (docs/python.md)";
  // q8.Error carries q8's one-line message; an argument that cannot work is also a ValueError.
  static py::exception<q8::Error> error(m, "Error", PyExc_RuntimeError);
  static py::exception<q8::ArgumentError> argument_error(m, "ArgumentError", error.ptr());
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const q8::ArgumentError& e) {
      argument_error(e.what());
    } catch (const q8::Error& e) {
      error(e.what());
    }
  });
  m.def("set_log_level", [](const std::string& level) {
    q8::check_argument(level == "debug" || level == "info" || level == "warning",
                       "log level '" + level + "': debug, info or warning");
    q8::log::set_level(level == "debug" ? q8::log::Level::Debug : level == "info" ? q8::log::Level::Info : q8::log::Level::Warn);
  }, py::arg("level"), "What q8 logs: 'debug', 'info' (the CLI's settings lines) or 'warning' (the module's default)");
  // A notebook gets warnings, not the CLI's settings lines.
  q8::log::set_level(q8::log::Level::Warn);
  m.attr("__version__") = Q8_VERSION;
  m.attr("DEFAULT_METHOD") = q8::kDefaultCalibrateMethod;
  m.attr("DEFAULT_AUTO_SAMPLES") = q8::kDefaultAutoSamples;
  m.attr("DEFAULT_BINS") = q8::kDefaultHistogramBins;
  m.attr("DEFAULT_PERCENTILE") = q8::MethodOptions{}.percentile;
  m.attr("DEFAULT_THRESHOLD") = q8::CompareOptions{}.threshold;
  m.attr("DEFAULT_TRT_VERSION") = q8::kDefaultTrtVersion;
  q8::python::bind_model(m);
  q8::python::bind_calibrate(m);
  q8::python::bind_quantize(m);
  q8::python::bind_plan(m);
  q8::python::bind_compare(m);
}
