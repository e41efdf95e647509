// q8.quantize: Q/DQ inserted by the per-op rules into a copy of the model, from a table, as
// `q8 quantize MODEL --calib TABLE.json` does with the same options (the table's equalization
// repeated, its preprocessing recorded in the QDQ model).
#include <pybind11/stl.h>

#include "calib/json_table.h"
#include "quant/materialize.h"
#include "quant/preprocess_metadata.h"
#include "quant/rules/rule.h"
#include "python/bindings.h"
#include "python/table.h"

namespace q8::python {

namespace {

Model quantize(const Model& model, const CalibrationTable& t, bool per_channel, bool fp32_weights, bool quantize_bmm,
               const std::string& add_mode, const std::vector<std::string>& exclude, const std::vector<std::string>& quantize_ops,
               bool quantize_heads) {
  check_argument(t.table.model_sha256.empty() || t.table.model_sha256 == model.sha256, "the table was made for another model (sha256 " + t.table.model_sha256.substr(0, 12) +
                                                           "…) than this one (sha256 " + model.sha256.substr(0, 12) + "…)");
  check_argument(add_mode == "both" || add_mode == "tensorrt", "add_mode '" + add_mode + "': both or tensorrt");
  QuantOptions q;
  q.per_tensor_weights = !per_channel, q.fp32_weights = fp32_weights, q.quantize_bmm = quantize_bmm, q.quantize_heads = quantize_heads;
  q.add_mode = add_mode == "tensorrt" ? AddMode::TensorRT : AddMode::Both;
  for (const std::string& op : quantize_ops) check_quantize_op(op, "quantize_ops"), q.quantize_ops.insert(op);
  Graph qdq;
  {
    py::gil_scoped_release release;
    Graph graph = *model.graph;
    equalize_as_calibrated(graph, t.table);
    QuantizeReport report;
    qdq = quantize_graph(std::move(graph), t.table, q, std::set<std::string>(exclude.begin(), exclude.end()), report);
    record_preprocessing(qdq, t.table);
  }
  Model out;
  out.graph = std::make_shared<const Graph>(std::move(qdq));
  return out;
}

}  // namespace

void bind_quantize(py::module_& m) {
  m.def("quantize", &quantize, py::arg("model"), py::arg("table"), py::kw_only(), py::arg("per_channel") = true,
        py::arg("fp32_weights") = false, py::arg("quantize_bmm") = false, py::arg("add_mode") = "both",
        py::arg("exclude") = std::vector<std::string>{}, py::arg("quantize_ops") = std::vector<std::string>{}, py::arg("quantize_heads") = false,
        "A QDQ copy of the model: Q/DQ around Conv, ConvTranspose, Gemm and MatMul by the table's ranges, weights per output "
        "channel (per_channel=False: per tensor); exclude: node names or op types kept FP32; quantize_ops: op types without a "
        "rule whose float inputs are also quantized; quantize_heads: also the cheap output heads kept FP32. q8 quantize's flags, by the same "
        "names");
}

}  // namespace q8::python
