// INT8 GEMM through the OpenCL backend: QGemm (int8 x [n, n] · int8 wᵀ [n, n], int32 bias, the
// requantizing epilogue) at the sizes given, timed from the first launch to the queue's end, on
// the OpenCL device chosen, beside the backend's float32 Gemm (CLBlast's SGEMM, the same shapes,
// on the same queue, with q8's Xgemm parameters where it has them for the device). Prints TOPS /
// TFLOP/s (2·n³ operations per run) and writes JSON. --xgemm-sweep N times SGEMM at n = N under
// each candidate Xgemm parameter set (engine/opencl/clblast_tuning.h) and CLBlast's own, to find
// a device's entry.
//
//   opencl_gemm [--device N] [--n 1024,4096] [--repeat R] [--json OUT] [--xgemm-sweep N]
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <random>

#include <nlohmann/json.hpp>

#include "engine/io/atomic_write.h"
#include "engine/opencl/clblast_tuning.h"
#include "engine/opencl/device.h"
#include "engine/runtime/devices.h"
#include "engine/opencl/select.h"

#include <clblast.h>  // after q8's OpenCL headers, which fix the OpenCL version

using namespace q8;

namespace {

// Seconds per call of run, over repeat calls after one warm-up, to the queue's end.
template <typename F>
double time_runs(OpenClDevice& cl, int repeat, F run) {
  run();
  cl.finish();
  const auto start = std::chrono::steady_clock::now();
  for (int r = 0; r < repeat; ++r) run();
  cl.finish();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / repeat;
}

// SGEMM at n under each candidate, then under CLBlast's own parameters.
void sweep(OpenClDevice& cl, int64_t n, int repeat, nlohmann::ordered_json& out) {
  Tensor a(DType::Float32, {n, n});
  std::mt19937 rng(2);
  for (float& v : a.values<float>()) v = float(int(rng() % 255) - 127);
  const Tensor ad = cl.upload(a), bd = cl.upload(a), cd = cl.allocate(DType::Float32, {n, n});
  cl_command_queue queue = cl.queue();
  auto sgemm = [&] {
    const clblast::StatusCode status =
        clblast::Gemm<float>(clblast::Layout::kRowMajor, clblast::Transpose::kNo, clblast::Transpose::kYes, size_t(n), size_t(n), size_t(n), 1.0f,
                             buffer_of(ad), 0, size_t(n), buffer_of(bd), 0, size_t(n), 0.0f, buffer_of(cd), 0, size_t(n), &queue, nullptr);
    if (status != clblast::StatusCode::kSuccess) throw Error("CLBlast SGEMM failed with status " + std::to_string(int(status)));
  };
  std::unordered_map<std::string, size_t> own;
  clblast::RetrieveParameters(cl.device(), "Xgemm", clblast::Precision::kSingle, own);
  std::vector<XgemmParams> candidates = xgemm_candidates();
  candidates.push_back(XgemmParams(own.begin(), own.end()));
  for (size_t i = 0; i < candidates.size(); ++i) {
    std::string text;
    for (const auto& [name, value] : candidates[i]) text += name + "=" + std::to_string(value) + " ";
    try {
      override_xgemm(cl.device(), candidates[i]);
      const double s = time_runs(cl, repeat, sgemm);
      const double tflops = 2.0 * double(n) * double(n) * double(n) / s / 1e12;
      std::printf("xgemm %s%s: %8.2f TFLOP/s\n", text.c_str(), i + 1 == candidates.size() ? "(CLBlast's own)" : "", tflops);
      out["xgemm_sweep"].push_back({{"n", n}, {"params", candidates[i]}, {"tflops", tflops}, {"clblast_own", i + 1 == candidates.size()}});
    } catch (const std::exception& e) {
      std::printf("xgemm %s: %s\n", text.c_str(), e.what());
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"INT8 GEMM TOPS through q8's OpenCL backend"};
  int device = 0, repeat = 5;
  std::vector<int64_t> sizes = {1024, 2048, 4096};
  std::string json;
  int64_t sweep_n = 0;
  app.add_option("--device", device, "OpenCL device index (list order over all platforms)")->capture_default_str();
  app.add_option("--n", sizes, "matrix sizes")->delimiter(',')->capture_default_str();
  app.add_option("--repeat", repeat, "timed runs per size")->capture_default_str();
  app.add_option("--json", json, "write the figures here");
  app.add_option("--xgemm-sweep", sweep_n, "time CLBlast's SGEMM at this n under each candidate Xgemm parameter set, then exit");
  CLI11_PARSE(app, argc, argv);
  try {
    const Backend& backend = opencl_backend(device);
    OpenClDevice* cl = &opencl_device(device);
    std::printf("device: %s\n", cl->caps().describe().c_str());
    nlohmann::ordered_json out;
    out["device"] = cl->caps().describe();
    if (sweep_n > 0) {
      sweep(*cl, sweep_n, repeat, out);
      if (!json.empty()) write_file_atomically(json, out.dump(2) + "\n");
      return 0;
    }
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
      const double s = time_runs(*cl, repeat, [&] { prepared->run(in, y, {}); });
      const double tops = 2.0 * double(n) * double(n) * double(n) / s / 1e12;
      // The backend's float32 Gemm (CLBlast's SGEMM) on float copies: Y = A · Bᵀ.
      Tensor af(DType::Float32, {n, n}), bf(DType::Float32, {n, n});
      for (int64_t i = 0; i < n * n; ++i) af.data<float>()[i] = float(x.data<int8_t>()[i]), bf.data<float>()[i] = float(w.data<int8_t>()[i]);
      Node fnode;
      fnode.op_type = "Gemm", fnode.name = "sgemm", fnode.inputs = {"a", "b"}, fnode.outputs = {"y"};
      fnode.attributes["transB"] = Attribute::of_int(1);
      NodeView fview{fnode, 13, {DType::Float32, DType::Float32}, {{}, {}}, {nullptr, &bf}};
      check(backend.supports(fview).ok, "the device does not run float32 Gemm: " + backend.supports(fview).reason);
      const std::unique_ptr<PreparedNode> fprepared = backend.create(fview);
      const Tensor ad = backend.upload(af);
      const Inputs fin = {&ad, &bf};
      fprepared->reshape(describe(fin));
      std::vector<Tensor> fy(1);
      const double fs = time_runs(*cl, repeat, [&] { fprepared->run(fin, fy, {}); });
      const double tflops = 2.0 * double(n) * double(n) * double(n) / fs / 1e12;
      std::string variant = select_gemm(n, n, cl->caps());
      if (variant == "qgemm_mma") variant += " " + select_mma_tile(n, n, n, cl->mma_tuning(), cl->caps()).name();
      std::printf("n = %5lld: q8 QGemm (%s) %9.3f ms, %8.2f TOPS | FP32 Gemm (CLBlast) %9.3f ms, %8.2f TFLOP/s\n", static_cast<long long>(n),
                  variant.c_str(), s * 1e3, tops, fs * 1e3, tflops);
      out["gemm"].push_back({{"n", n}, {"variant", variant}, {"ms", s * 1e3}, {"tops", tops}, {"clblast_sgemm_ms", fs * 1e3}, {"clblast_sgemm_tflops", tflops}});
    }
    if (!json.empty()) write_file_atomically(json, out.dump(2) + "\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "opencl_gemm: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
