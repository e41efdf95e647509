#include <algorithm>
#include <limits>

#include "tests/cases/op_case.h"

namespace q8 {

#define Q8_CASES(domain, op, family) std::vector<OpCase> family();
#include "tests/cases/cases.inc"
#undef Q8_CASES

namespace {
const CaseFamily kFamilies[] = {
#define Q8_CASES(domain, op, family) {domain, #op, family},
#include "tests/cases/cases.inc"
#undef Q8_CASES
};
}  // namespace

std::span<const CaseFamily> case_families() { return kFamilies; }

std::vector<OpCase> cases_for(const OpKey& op) {
  for (const CaseFamily& f : kFamilies)
    if (f.domain == op.domain && f.op_type == op.op_type) return f.make();
  return {};
}

Inputs OpCase::args() const {
  Inputs in;
  for (const Tensor& t : inputs) in.push_back(t.empty() ? nullptr : &t);
  return in;
}

Node make_node(const std::string& op, std::vector<std::string> inputs, std::map<std::string, Attribute> attrs, const std::string& domain) {
  Node n;
  n.domain = domain, n.op_type = op, n.name = op, n.inputs = std::move(inputs), n.outputs = {"y"}, n.attributes = std::move(attrs);
  return n;
}

OpCase make_case(const std::string& name, Node node, std::vector<Tensor> inputs, std::vector<bool> constant, int64_t opset) {
  OpCase c;
  c.name = name, c.node = std::move(node), c.inputs = std::move(inputs), c.constant = std::move(constant), c.opset = opset;
  return c;
}

Tensor random_int8(const Dims& dims, std::mt19937& rng, int lo, int hi) {
  Tensor t(DType::Int8, dims);
  std::uniform_int_distribution<int> u(lo, hi);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<int8_t>()[i] = int8_t(u(rng));
  return t;
}

Tensor random_float(const Dims& dims, std::mt19937& rng, float lo, float hi) {
  Tensor t(DType::Float32, dims);
  std::uniform_real_distribution<float> u(lo, hi);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = u(rng);
  return t;
}

Tensor floats(std::vector<float> v) { return Tensor::from_vector<float>({int64_t(v.size())}, v); }
Tensor longs(std::vector<int64_t> v) { return Tensor::from_vector<int64_t>({int64_t(v.size())}, v); }

const FloatInputs& float_inputs() {
  static const FloatInputs inputs = [] {
    FloatInputs f;
    std::mt19937 rng(9);
    std::uniform_real_distribution<float> wide(-40.0f, 40.0f);
    f.x = Tensor(DType::Float32, {2, 3, 5, 7});
    float* px = f.x.data<float>();
    for (int64_t i = 0; i < f.x.numel(); ++i) px[i] = wide(rng);
    const float special[] = {0.0f, -0.0f, 3.0f, -3.0f, 6.0f, 0.5f, -0.5f, 2.5f, 1e30f, -1e30f,
                             std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                             std::numeric_limits<float>::quiet_NaN(), 1e-30f, 127.5f, -128.5f};
    for (size_t i = 0; i < std::size(special); ++i) px[i * 7] = special[i];
    f.q = random_int8({2, 3, 5, 7}, rng);
    f.x2 = Tensor(DType::Float32, {2, 3, 5, 7});
    f.per_channel = Tensor(DType::Float32, {3, 1, 1});
    for (int64_t i = 0; i < f.x2.numel(); ++i) f.x2.data<float>()[i] = wide(rng);
    for (int64_t i = 0; i < 3; ++i) f.per_channel.data<float>()[i] = wide(rng);
    f.thin = Tensor(DType::Float32, {2, 1, 5, 7});
    for (int64_t i = 0; i < f.thin.numel(); ++i) f.thin.data<float>()[i] = wide(rng);
    f.x2.data<float>()[0] = -std::numeric_limits<float>::infinity();  // with x's +inf at 70 below: NaN
    f.x2.data<float>()[70] = -std::numeric_limits<float>::infinity();
    // Exp's whole range: from below the smallest subnormal result to past the largest float.
    f.tails = Tensor(DType::Float32, {2, 3, 5, 7});
    for (int64_t i = 0; i < f.tails.numel(); ++i)
      f.tails.data<float>()[i] = -110.0f + 200.0f * float(i) / float(f.tails.numel() - 1) + 0.01f * wide(rng);
    f.finite = f.x.clone();  // QuantizeLinear of NaN has no defined int8 (the host's conversion is undefined)
    f.finite.data<float>()[12 * 7] = 1.0f;
    return f;
  }();
  return inputs;
}

}  // namespace q8
