// INT8 GEMM through the OpenCL backend: QGemm (int8 x [n, n] · int8 wᵀ [n, n], int32 bias, the
// requantizing epilogue) at the sizes given, timed from the first launch to the queue's end, on
// the OpenCL device chosen, beside CLBlast's SGEMM (float32, the same shapes, on the same queue).
// Prints TOPS / TFLOP/s (2·n³ operations per run) and writes JSON.
//
//   opencl_gemm [--device N] [--n 1024,4096] [--repeat R] [--json OUT]
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <random>

#include <nlohmann/json.hpp>

#include "engine/io/atomic_write.h"
#include "engine/opencl/device.h"
#include "engine/opencl/opencl_backend.h"

#include <clblast.h>  // after q8's OpenCL headers, which fix the OpenCL version

using namespace q8;

int main(int argc, char** argv) {
  CLI::App app{"INT8 GEMM TOPS through q8's OpenCL backend"};
  int device = 0, repeat = 5;
  std::vector<int64_t> sizes = {1024, 2048, 4096};
  std::string json;
  app.add_option("--device", device, "OpenCL device index (list order over all platforms)")->capture_default_str();
  app.add_option("--n", sizes, "matrix sizes")->delimiter(',')->capture_default_str();
  app.add_option("--repeat", repeat, "timed runs per size")->capture_default_str();
  app.add_option("--json", json, "write the figures here");
  CLI11_PARSE(app, argc, argv);
  try {
    const Backend& backend = opencl_backend(device);
    const std::shared_ptr<OpenClDevice> cl = OpenClDevice::open(device);
    std::printf("device: %s\n", cl->caps().describe().c_str());
    nlohmann::ordered_json out;
    out["device"] = cl->caps().describe();
    for (int64_t n : sizes) {
      std::mt19937 rng(1);
      Tensor x(DType::Int8, {n, n}), w(DType::Int8, {n, n}), b(DType::Int32, {n}), m(DType::Float32, {n});
      for (int8_t& v : x.values<int8_t>()) v = int8_t(int(rng() % 255) - 127);
      for (int8_t& v : w.values<int8_t>()) v = int8_t(int(rng() % 255) - 127);
      for (float& v : m.values<float>()) v = 1e-5f;
      Node node;
      node.domain = kInt8Domain, node.op_type = "QGemm", node.name = "gemm", node.inputs = {"x", "w", "b", "m"}, node.outputs = {"y"};
      node.attributes["transB"] = Attribute::of_int(1);
      NodeView view{node, 13, {DType::Int8, DType::Int8, DType::Int32, DType::Float32}, {{}, {}, {}, {}}, {nullptr, &w, &b, &m}};
      const std::unique_ptr<PreparedNode> prepared = backend.create(view);
      const Tensor xd = backend.upload(x);
      const Inputs in = {&xd, &w, &b, &m};
      prepared->reshape(describe(in));
      std::vector<Tensor> y(1);
      prepared->run(in, y, {});  // warm-up
      cl->finish();
      const auto start = std::chrono::steady_clock::now();
      for (int r = 0; r < repeat; ++r) prepared->run(in, y, {});
      cl->finish();
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / repeat;
      const double tops = 2.0 * double(n) * double(n) * double(n) / s / 1e12;
      // CLBlast SGEMM on float copies: C = A · Bᵀ.
      Tensor af(DType::Float32, {n, n}), bf(DType::Float32, {n, n});
      for (int64_t i = 0; i < n * n; ++i) af.data<float>()[i] = float(x.data<int8_t>()[i]), bf.data<float>()[i] = float(w.data<int8_t>()[i]);
      const Tensor ad = cl->upload(af), bd = cl->upload(bf), cd = cl->allocate(DType::Float32, {n, n});
      cl_command_queue queue = cl->queue();
      auto sgemm = [&] {
        const clblast::StatusCode status =
            clblast::Gemm<float>(clblast::Layout::kRowMajor, clblast::Transpose::kNo, clblast::Transpose::kYes, size_t(n), size_t(n), size_t(n),
                                 1.0f, buffer_of(ad), 0, size_t(n), buffer_of(bd), 0, size_t(n), 0.0f, buffer_of(cd), 0, size_t(n), &queue, nullptr);
        if (status != clblast::StatusCode::kSuccess) throw Error("CLBlast SGEMM failed with status " + std::to_string(int(status)));
      };
      sgemm();  // warm-up (CLBlast compiles its kernels here)
      cl->finish();
      const auto s0 = std::chrono::steady_clock::now();
      for (int r = 0; r < repeat; ++r) sgemm();
      cl->finish();
      const double fs = std::chrono::duration<double>(std::chrono::steady_clock::now() - s0).count() / repeat;
      const double tflops = 2.0 * double(n) * double(n) * double(n) / fs / 1e12;
      std::printf("n = %5lld: q8 QGemm %9.3f ms, %8.2f TOPS | CLBlast SGEMM %9.3f ms, %8.2f TFLOP/s\n", static_cast<long long>(n),
                  s * 1e3, tops, fs * 1e3, tflops);
      out["gemm"].push_back({{"n", n}, {"ms", s * 1e3}, {"tops", tops}, {"clblast_sgemm_ms", fs * 1e3}, {"clblast_sgemm_tflops", tflops}});
    }
    if (!json.empty()) write_file_atomically(json, out.dump(2) + "\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "opencl_gemm: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
