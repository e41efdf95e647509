// Elementwise ops whose formulas the ONNX test data does not cover (Gelu, opset-dependent forms).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "tests/ops/op_harness.h"

namespace q8 {
namespace {

Node node(const char* op) {
  Node n;
  n.op_type = op;
  n.name = "t";
  return n;
}

TEST(Gelu, ExactAndTanhForms) {
  const Tensor x = Tensor::from_vector<float>({5}, {-3.0f, -0.5f, 0.0f, 0.7f, 2.5f});
  const Tensor exact = run_op(node("Gelu"), {&x}, 17)[0];
  Node tanh_node = node("Gelu");
  tanh_node.attributes["approximate"] = Attribute::of_string("tanh");
  const Tensor approx = run_op(tanh_node, {&x}, 17)[0];
  for (int i = 0; i < 5; ++i) {
    const double v = x.data<float>()[i];
    EXPECT_NEAR(exact.data<float>()[i], 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))), 1e-6);
    EXPECT_NEAR(approx.data<float>()[i], 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v))), 1e-6);
  }
  Node bad = node("Gelu");
  bad.attributes["approximate"] = Attribute::of_string("erf");
  EXPECT_THROW(run_op(bad, {&x}), Error);
}

TEST(Clip, AttributeFormBeforeOpset11) {
  Node clip = node("Clip");
  clip.attributes["min"] = Attribute::of_float(-0.5f);
  clip.attributes["max"] = Attribute::of_float(0.25f);
  const Tensor x = Tensor::from_vector<float>({4}, {-1.0f, -0.25f, 0.2f, 3.0f});
  const Tensor y = run_op(clip, {&x}, 6)[0];
  EXPECT_EQ(std::vector<float>(y.values<float>().begin(), y.values<float>().end()), (std::vector<float>{-0.5f, -0.25f, 0.2f, 0.25f}));
}

TEST(Softmax, CoercesTo2dBeforeOpset13) {
  const Tensor x = random_tensor({2, 3, 4}, 9);
  const Tensor y11 = run_op(node("Softmax"), {&x}, 11)[0];  // axis 1: over 3×4 = 12 values per row
  double sum = 0;
  for (int i = 0; i < 12; ++i) sum += y11.data<float>()[i];
  EXPECT_NEAR(sum, 1.0, 1e-5);
  const Tensor y13 = run_op(node("Softmax"), {&x}, 13)[0];  // axis -1: over 4 values
  sum = 0;
  for (int i = 0; i < 4; ++i) sum += y13.data<float>()[i];
  EXPECT_NEAR(sum, 1.0, 1e-5);
}

TEST(QuantizeLinear, RoundsHalfToEvenAndSaturates) {
  const Tensor x = Tensor::from_vector<float>({7}, {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 1000.0f, -1000.0f});
  const Tensor s = Tensor::scalar<float>(1.0f);
  const Tensor zp = Tensor::scalar<int8_t>(0);
  const Tensor y = run_op(node("QuantizeLinear"), {&x, &s, &zp}, 13)[0];
  const std::vector<int8_t> want{0, 2, 2, 0, -2, 127, -128};
  for (int i = 0; i < 7; ++i) EXPECT_EQ(y.data<int8_t>()[i], want[size_t(i)]) << i;
}

TEST(DequantizeLinear, PerAxis) {
  const Tensor x = Tensor::from_vector<int8_t>({2, 3}, {1, 2, 3, -4, -5, -6});
  const Tensor s = Tensor::from_vector<float>({3}, {0.5f, 1.0f, 2.0f});
  const Tensor zp = Tensor::from_vector<int8_t>({3}, {0, 1, -1});
  const Tensor y = run_op(node("DequantizeLinear"), {&x, &s, &zp}, 13)[0];
  const std::vector<float> want{0.5f, 1.0f, 8.0f, -2.0f, -6.0f, -10.0f};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(y.data<float>()[i], want[size_t(i)]) << i;
}

// Large enough that the spans split between threads (per tensor: one row of every value; per
// axis: rows of 70001 values, so spans end mid-row), int8 and uint8, against the formulas
// y = clamp(rne(x / s) + z) and x' = (y − z) · s written here.
TEST(QuantizeLinear, SpansBetweenThreadsGiveTheFormulaEverywhere) {
  for (const bool per_axis : {false, true}) {
    const Dims dims = per_axis ? Dims{2, 3, 70001} : Dims{5, 90001};
    const Tensor x = random_tensor(dims, 31, -40.0f, 40.0f);
    const Tensor s = per_axis ? Tensor::from_vector<float>({3}, {0.25f, 0.1f, 0.3f}) : Tensor::scalar<float>(0.2f);
    const Tensor z8 = per_axis ? Tensor::from_vector<int8_t>({3}, {0, 5, -7}) : Tensor::scalar<int8_t>(3);
    const Tensor zu = per_axis ? Tensor::from_vector<uint8_t>({3}, {128, 0, 200}) : Tensor::scalar<uint8_t>(128);
    Node q = node("QuantizeLinear"), d = node("DequantizeLinear");
    const int64_t inner = per_axis ? 70001 : x.numel(), channels = per_axis ? 3 : 1;
    for (const Tensor* zp : {&z8, &zu}) {
      const Tensor y = run_op(q, {&x, &s, zp}, 13)[0];
      const Tensor back = run_op(d, {&y, &s, zp}, 13)[0];
      const bool is_int8 = zp->dtype() == DType::Int8;
      for (int64_t i = 0; i < x.numel(); ++i) {
        const int64_t c = (i / inner) % channels;
        const float scale = s.data<float>()[c];
        const int32_t z = is_int8 ? zp->data<int8_t>()[c] : zp->data<uint8_t>()[c];
        const float lo = is_int8 ? -128.0f : 0.0f, hi = is_int8 ? 127.0f : 255.0f;
        const int32_t want = int32_t(std::clamp(std::nearbyint(x.data<float>()[i] / scale) + float(z), lo, hi));
        const int32_t got = is_int8 ? y.data<int8_t>()[i] : y.data<uint8_t>()[i];
        ASSERT_EQ(got, want) << (per_axis ? "per axis" : "per tensor") << ", element " << i;
        ASSERT_EQ(back.data<float>()[i], float(got - z) * scale) << "element " << i;
      }
    }
  }
}

}  // namespace
}  // namespace q8
