// calibrate_example MODEL DATA OUT_PREFIX: calibrates MODEL on the samples at DATA with the
// entropy method, then writes OUT_PREFIX.cache (TensorRT's calibration cache) and
// OUT_PREFIX.qdq.onnx (the QDQ model). The three calls of docs/api.md.
#include <q8/calib/calibrate.h>
#include <q8/calib/trt_cache.h>
#include <q8/engine/io/atomic_write.h>
#include <q8/engine/onnx/export.h>
#include <q8/engine/onnx/import.h>
#include <q8/quant/materialize.h>

#include <cstdio>
#include <exception>

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s MODEL DATA OUT_PREFIX\n", argv[0]);
    return 2;
  }
  try {
    const q8::Graph graph = q8::load_model(argv[1]);

    q8::CalibrateOptions options;
    options.method = "entropy";
    options.stream.batch_size = 64;
    options.stream.limit = 512;
    const q8::RangeTable table = q8::calibrate(graph, argv[2], options);

    const std::string prefix = argv[3];
    q8::write_file_atomically(prefix + ".cache", q8::format_trt_cache(q8::make_trt_cache(table, graph, "8601", "EntropyCalibration2")));
    q8::QuantizeReport report;
    q8::save_model(q8::quantize_graph(graph, table, {}, {}, report), prefix + ".qdq.onnx");
    std::printf("calibrated %zu activations; quantized %zu nodes; wrote %s.cache and %s.qdq.onnx\n", table.activations.size(),
                report.quantized.size(), prefix.c_str(), prefix.c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "calibrate_example: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
