// The cross-backend case registry (STYLE.md 4, in the manner of ggml's test-backend-ops): per op
// type, the cases every backend that has a kernel for it is checked on, and what each must give.
// cases.inc lists the families, one line per op type; the harness
// (tests/exec/backend_harness_test.cpp) runs every case on every backend and asserts coverage:
// each op a backend registers has cases, and each case either runs or is declined for a
// capability the backend lacks (Backend::missing_capabilities). bench/ times the same cases.
#pragma once

#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/exec/backend.h"

namespace q8 {

// What a backend's outputs are held to.
enum class Expect {
  Bits,     // the case's `expected` outputs, bit for bit (an independent implementation of the formula)
  CpuBits,  // the CPU backend's outputs, bit for bit; a NaN matches any NaN (IEEE leaves its sign and payload free)
  Within,   // the CPU backend's outputs, each element within `tolerance` (a sum in a free order)
};

struct OpCase {
  std::string name;              // what a failure prints
  Node node;
  std::vector<Tensor> inputs;    // an empty tensor marks an absent input
  std::vector<bool> constant;    // the inputs a plan holds as constants (weights, biases, tables, parameters)
  int64_t opset = 13;
  Expect expect = Expect::CpuBits;
  std::vector<Tensor> expected;  // Bits
  std::vector<double> tolerance; // Within: per element of the first output

  Inputs args() const;  // the inputs as a node reads them (nullptr where absent)
};

struct CaseFamily {
  std::string_view domain, op_type;
  std::vector<OpCase> (*make)();
};

// Every family, as cases.inc lists them.
std::span<const CaseFamily> case_families();
// The cases of one op type (empty when it has none).
std::vector<OpCase> cases_for(const OpKey& op);

// Helpers for writing cases.
Node make_node(const std::string& op, std::vector<std::string> inputs, std::map<std::string, Attribute> attrs = {},
               const std::string& domain = "");
OpCase make_case(const std::string& name, Node node, std::vector<Tensor> inputs, std::vector<bool> constant, int64_t opset = 13);
Tensor random_int8(const Dims& dims, std::mt19937& rng, int lo = -128, int hi = 127);
Tensor random_float(const Dims& dims, std::mt19937& rng, float lo, float hi);
Tensor floats(std::vector<float> v);
Tensor longs(std::vector<int64_t> v);

// The float inputs the float-op families share: values across a wide range with the awkward
// ones planted (±0, ±inf, NaN, values at activation kinks, ties, the int8 range's edges, a
// subnormal result's neighbourhood), and a second operand.
struct FloatInputs {
  Tensor x, x2, finite, tails, per_channel, thin, q;
};
const FloatInputs& float_inputs();

}  // namespace q8
