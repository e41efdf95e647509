// Runs ONNX's own backend test data (Debian's libonnx-testdata) through q8's CPU executor.
//
//   onnx_backend_tests DATA_DIR SKIPS_FILE COVERED_ELSEWHERE_FILE
//
// Every test whose ops all have a q8 implementation runs, unless SKIPS_FILE lists it with a
// reason; tests with other ops are counted as skipped (unsupported). Each output is compared
// with its expected .pb: integers and bools exactly, floats within |got − want| <= kAbsTol +
// kRelTol·|want| (NaN must match NaN), close to ONNX's own backend runner. Exits non-zero on
// any failure, when a test of a required op did not run, or when an op of q8's registry passed
// no test here and COVERED_ELSEWHERE_FILE does not name the test that covers it.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <onnx/onnx_pb.h>

#include "engine/exec/executor.h"
#include "engine/io/atomic_write.h"
#include "engine/onnx/import.h"
#include "engine/onnx/tensor_proto.h"

namespace fs = std::filesystem;
using namespace q8;

namespace {

constexpr double kRelTol = 1e-3;
constexpr double kAbsTol = 1e-5;
const char* const kSuites[] = {"node", "pytorch-converted", "pytorch-operator", "simple"};
const char* const kRequiredOps[] = {"Conv", "ConvTranspose", "Gemm", "MatMul", "BatchNormalization"};

std::map<std::string, std::string> read_skips(const std::string& path) {
  std::map<std::string, std::string> skips;
  std::ifstream in(path);
  check(bool(in), path + ": cannot read the skip list");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string name, reason;
    fields >> name;
    std::getline(fields, reason);
    reason.erase(0, reason.find_first_not_of(" \t"));
    check(!reason.empty(), path + ": skip of " + name + " gives no reason");
    skips[name] = reason;
  }
  return skips;
}

// The op types of a model, read from its protobuf without importing it.
std::set<std::string> op_types(const std::string& model_path, bool& all_supported) {
  onnx::ModelProto model;
  const std::string bytes = read_file(model_path);
  check(model.ParseFromString(bytes), model_path + ": not an ONNX model");
  std::set<std::string> ops;
  all_supported = true;
  for (const auto& n : model.graph().node()) {
    ops.insert(n.op_type());
    const bool default_domain = n.domain().empty() || n.domain() == "ai.onnx";
    if (!default_domain || !find_op(n.op_type())) all_supported = false;
  }
  return ops;
}

// The first data type of the model's inputs, outputs and initializers that q8 does not support
// (DOUBLE, INT16, UINT32, BFLOAT16…), or "": such a test is skipped by this one rule, and says so.
std::string unsupported_data_type(const std::string& model_path) {
  onnx::ModelProto model;
  check(model.ParseFromString(read_file(model_path)), model_path + ": not an ONNX model");
  std::vector<int> types;
  for (const auto* list : {&model.graph().input(), &model.graph().output()})
    for (const auto& v : *list) types.push_back(v.type().tensor_type().elem_type());
  for (const auto& t : model.graph().initializer()) types.push_back(t.data_type());
  for (int t : types) {
    try {
      dtype_from_onnx(t, "");
    } catch (const Error&) {
      return onnx_type_name(t);
    }
  }
  return "";
}

// "" when got matches want, else a description of the first mismatch.
std::string compare(const Tensor& got, const Tensor& want) {
  if (got.dtype() != want.dtype())
    return std::string("dtype ") + std::string(dtype_name(got.dtype())) + ", expected " + std::string(dtype_name(want.dtype()));
  if (got.dims() != want.dims()) return "shape " + dims_to_string(got.dims()) + ", expected " + dims_to_string(want.dims());
  const bool floating = is_floating(want.dtype());
  for (int64_t i = 0; i < want.numel(); ++i) {
    const double g = got.element_as_double(i), w = want.element_as_double(i);
    bool ok;
    if (floating) ok = (std::isnan(g) && std::isnan(w)) || (g == w) || std::fabs(g - w) <= kAbsTol + kRelTol * std::fabs(w);
    else ok = g == w;
    if (!ok) {
      std::ostringstream s;
      s << "element " << i << ": got " << g << ", expected " << w;
      return s.str();
    }
  }
  return "";
}

// Runs one test directory; "" on success, else why it failed.
std::string run_test(const fs::path& dir) {
  try {
    Executor exec(load_model((dir / "model.onnx").string()));
    const Graph& g = exec.graph();
    std::vector<fs::path> sets;
    for (const auto& e : fs::directory_iterator(dir))
      if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0) sets.push_back(e.path());
    std::sort(sets.begin(), sets.end());
    check(!sets.empty(), "no test_data_set_* directory");
    for (const auto& set : sets) {
      TensorMap inputs;
      for (size_t i = 0;; ++i) {
        const fs::path p = set / ("input_" + std::to_string(i) + ".pb");
        if (!fs::exists(p)) break;
        std::string name;
        Tensor t = read_tensor_pb(p.string(), &name);
        if (name.empty() || !g.find_input(name)) {
          check(i < g.inputs.size(), "more input files than model inputs");
          name = g.inputs[i].name;
        }
        inputs[name] = t;
      }
      const TensorMap outputs = exec.run(inputs);
      for (size_t i = 0; i < g.outputs.size(); ++i) {
        const fs::path p = set / ("output_" + std::to_string(i) + ".pb");
        if (!fs::exists(p)) continue;
        const Tensor want = read_tensor_pb(p.string());
        const std::string diff = compare(outputs.at(g.outputs[i].name), want);
        if (!diff.empty()) return set.filename().string() + " output '" + g.outputs[i].name + "': " + diff;
      }
    }
    return "";
  } catch (const std::exception& e) {
    return e.what();
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s DATA_DIR SKIPS_FILE COVERED_ELSEWHERE_FILE\n", argv[0]);
    return 2;
  }
  const fs::path root = argv[1];
  const auto skips = read_skips(argv[2]);
  const auto covered_elsewhere = read_skips(argv[3]);
  int ran = 0, passed = 0, failed = 0, unsupported = 0, listed = 0, typed = 0;
  std::map<std::string, int> ran_per_op;
  std::set<std::string> seen;
  for (const char* suite : kSuites) {
    if (!fs::is_directory(root / suite)) {
      std::fprintf(stderr, "missing suite directory %s\n", (root / suite).c_str());
      return 1;
    }
    std::vector<fs::path> tests;
    for (const auto& e : fs::directory_iterator(root / suite))
      if (fs::exists(e.path() / "model.onnx")) tests.push_back(e.path());
    std::sort(tests.begin(), tests.end());
    for (const auto& dir : tests) {
      const std::string name = std::string(suite) + "/" + dir.filename().string();
      seen.insert(name);
      bool supported = false;
      const auto ops = op_types((dir / "model.onnx").string(), supported);
      if (!supported) {
        ++unsupported;
        continue;
      }
      if (skips.count(name)) {
        ++listed;
        continue;
      }
      if (const std::string type = unsupported_data_type((dir / "model.onnx").string()); !type.empty()) {
        ++typed;
        continue;
      }
      ++ran;
      const std::string error = run_test(dir);
      if (error.empty()) {
        ++passed;
        for (const auto& op : ops) ++ran_per_op[op];
      } else {
        ++failed;
        std::printf("FAIL %s: %s\n", name.c_str(), error.c_str());
      }
    }
  }
  for (const auto& [name, reason] : skips)
    if (!seen.count(name)) std::printf("note: skip list names %s, which is not in the test data\n", name.c_str());
  int missing_required = 0;
  for (const char* op : kRequiredOps) {
    std::printf("%-20s %3d tests passed\n", op, ran_per_op[op]);
    if (ran_per_op[op] == 0) ++missing_required;
  }
  int uncovered = 0;
  for (const OpInfo& op : registered_ops()) {
    const std::string type(op.type);
    if (ran_per_op[type] > 0 || covered_elsewhere.count(type)) continue;
    std::printf("op %s passed no ONNX backend test and %s names no other test for it\n", type.c_str(), argv[3]);
    ++uncovered;
  }
  std::printf("ONNX backend tests: %d ran, %d passed, %d failed; skipped %d with unsupported ops, %d with data types q8 does not "
              "support (DOUBLE, INT16, …), %d listed in %s\n", ran, passed, failed, unsupported, typed, listed, argv[2]);
  return failed == 0 && missing_required == 0 && uncovered == 0 ? 0 : 1;
}
