#include "tools/q8/tensor_args.h"

#include <filesystem>
#include <map>
#include <random>

#include "engine/plan/build_plan.h"
#include "engine/io/npy.h"
#include "engine/io/numbers.h"
#include "engine/onnx/tensor_proto.h"
#include "tools/q8/validators.h"

namespace q8::cli {

std::pair<std::string, std::string> split_assignment(const std::string& arg, const char* flag, const char* form) {
  const size_t eq = arg.rfind('=');
  check_argument(eq != std::string::npos && eq > 0 && eq + 1 < arg.size(), std::string(flag) + " '" + arg + "' is not " + form);
  return {arg.substr(0, eq), arg.substr(eq + 1)};
}

std::vector<std::pair<std::string, std::string>> parse_assignments(const std::vector<std::string>& args, const char* flag,
                                                                   const char* form) {
  std::vector<std::pair<std::string, std::string>> out;
  std::map<std::string, std::string> seen;
  for (const std::string& arg : args) {
    auto [name, value] = split_assignment(arg, flag, form);
    const auto [it, fresh] = seen.emplace(name, value);
    check_argument(fresh, std::string(flag) + " " + name + " is given twice (" + it->second + " and " + value + "): give it once");
    out.emplace_back(std::move(name), std::move(value));
  }
  return out;
}

Dims parse_dims(const std::string& text, const std::string& what) {
  Dims dims;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t x = text.find('x', start);
    const std::string part = text.substr(start, x == std::string::npos ? std::string::npos : x - start);
    check_argument(!part.empty() && part.find_first_not_of("0123456789") == std::string::npos,
          what + ": shape '" + text + "' is not of the form 1x3x224x224");
    dims.push_back(parse_int(part, what + ": shape '" + text + "'"));
    if (x == std::string::npos) break;
    start = x + 1;
  }
  return dims;
}

Tensor read_tensor_file(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".npy") return read_npy(path);
  if (ext == ".pb") return read_tensor_pb(path);
  throw Error(path + ": unknown tensor file type '" + ext + "' (expected .npy or .pb)");
}

namespace {
Tensor random_tensor(const ValueInfo& v, const Dims& dims, uint64_t seed) {
  Tensor t(v.dtype, dims);
  std::mt19937_64 rng(seed);
  visit_dtype(v.dtype, [&]<typename T>() {
    T* p = t.data<T>();
    for (int64_t i = 0; i < t.numel(); ++i) {
      if constexpr (std::is_same_v<T, float>) p[i] = std::uniform_real_distribution<float>(-1.0f, 1.0f)(rng);
      else if constexpr (std::is_same_v<T, Float16>) p[i] = float_to_half(std::uniform_real_distribution<float>(-1.0f, 1.0f)(rng));
      else if constexpr (std::is_same_v<T, bool>) p[i] = rng() & 1;
      else p[i] = T(rng() % 10);
    }
  });
  return t;
}
}  // namespace

std::map<std::string, TensorDesc> input_descs(const Graph& graph, const std::vector<std::string>& shapes,
                                              const std::set<std::string>& given) {
  std::map<std::string, Dims> fixed;
  for (const auto& [name, text] : parse_assignments(shapes, "--shape", "NAME=DIMS")) {
    check_argument(!given.count(name), "--shape " + name + ": the input is given by --input, whose file fixes its shape");
    fixed[name] = parse_dims(text, "--shape " + name);
  }
  return plan_input_descs(graph, fixed, "--shape", given);
}

TensorMap gather_inputs(const Graph& graph, const std::vector<std::string>& files, const std::vector<std::string>& shapes,
                        uint64_t seed) {
  TensorMap inputs;
  std::string names;
  for (const auto& v : graph.inputs) names += (names.empty() ? "" : ", ") + v.name;
  std::set<std::string> given;
  for (const auto& [name, path] : parse_assignments(files, "--input")) {
    check_argument(graph.find_input(name), "--input " + name + ": matches no model input (model inputs: " + names + ")");
    inputs[name] = read_tensor_file(path);
    given.insert(name);
  }
  const auto descs = input_descs(graph, shapes, given);
  uint64_t index = 0;
  for (const auto& v : graph.inputs) {
    ++index;
    if (!inputs.count(v.name)) inputs[v.name] = random_tensor(v, descs.at(v.name).dims, seed * 1000003 + index);
  }
  return inputs;
}

std::string file_safe_name(const std::string& name) {
  std::string out = name;
  for (char& c : out)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-')) c = '_';
  if (out.empty() || out[0] == '.') out = "_" + out;
  return out;
}

}  // namespace q8::cli
