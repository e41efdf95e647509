// Times every case of the cross-backend case registry (tests/cases/) on every backend that runs its
// op, as the harness runs them (engine/exec/node_runner.h): the INT8 reference, the CPU for the
// default domain, each OpenCL device. Prints a line per case and backend and writes JSON.
//
//     backend_ops [--repeat N] [--filter OP] [--json FILE]
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "engine/exec/cpu_backend.h"
#include "engine/exec/node_runner.h"
#include "engine/io/atomic_write.h"
#include "engine/plan/reference/backend.h"
#include "tests/cases/op_case.h"
#if Q8_WITH_OPENCL
#include "engine/opencl/device.h"
#include "engine/runtime/devices.h"
#endif

int main(int argc, char** argv) {
  CLI::App app{"Times the cross-backend case registry on every backend"};
  int repeat = 5;
  std::string filter, json;
  app.add_option("--repeat", repeat, "timed runs per case")->capture_default_str();
  app.add_option("--filter", filter, "only this op type");
  app.add_option("--json", json, "write the figures here");
  CLI11_PARSE(app, argc, argv);
  try {
    std::vector<const q8::Backend*> backends = {&q8::int8_reference_backend(), &q8::cpu_backend()};
#if Q8_WITH_OPENCL
    for (size_t i = 0; i < q8::list_devices().size(); ++i) backends.push_back(&q8::opencl_backend(int(i)));
#endif
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const q8::CaseFamily& family : q8::case_families()) {
      if (!filter.empty() && family.op_type != filter) continue;
      for (const q8::OpCase& c : family.make()) {
        const q8::Inputs in = c.args();
        for (const q8::Backend* b : backends) {
          if (!b->supports(q8::node_view(c.node, in, c.constant, c.opset)).ok) continue;
          q8::run_node(*b, c.node, in, c.constant, c.opset);  // warm-up: programs built, buffers pooled
          const auto start = std::chrono::steady_clock::now();
          for (int r = 0; r < repeat; ++r) q8::run_node(*b, c.node, in, c.constant, c.opset);
          const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() / repeat;
          std::printf("%-16s %-60.60s %10.3f ms\n", std::string(b->name()).c_str(), c.name.c_str(), ms);
          out.push_back({{"backend", b->name()}, {"op", family.op_type}, {"case", c.name}, {"ms", ms}});
        }
      }
    }
    if (!json.empty()) q8::write_file_atomically(json, out.dump(2) + "\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "backend_ops: %s\n", e.what());
    return 1;
  }
  return 0;
}
