// Conv and ConvTranspose against naive loops written straight from the formulas in
// docs/ops.md, over odd sizes, groups (depthwise too), strides, dilations, pads, 1-D/2-D/3-D.
#include <gtest/gtest.h>

#include <random>

#include "engine/ops/op.h"
#include "tests/ops/op_harness.h"

namespace q8 {
namespace {

struct ConvCase {
  int64_t n, c, m, group;
  Dims spatial, kernel, strides, dilations, pads;  // pads: [begin…, end…]
  std::vector<int64_t> output_padding = {};
};

std::string describe(const ConvCase& k) {
  return "N=" + std::to_string(k.n) + " C=" + std::to_string(k.c) + " M=" + std::to_string(k.m) + " g=" +
         std::to_string(k.group) + " in=" + dims_to_string(k.spatial) + " k=" + dims_to_string(k.kernel) + " s=" +
         dims_to_string(k.strides) + " d=" + dims_to_string(k.dilations) + " pads=" + dims_to_string(k.pads);
}

// Y[n, m, o…] = B[m] + Σ_{c<C/g, k…} W[m, c, k…] · X[n, g(m)·C/g + c, o·s − pb + k·d]
Tensor naive_conv(const Tensor& x, const Tensor& w, const Tensor& b, const ConvCase& k) {
  const size_t r = k.spatial.size();
  Dims out{k.n, k.m};
  for (size_t d = 0; d < r; ++d)
    out.push_back((k.spatial[d] + k.pads[d] + k.pads[d + r] - (k.kernel[d] - 1) * k.dilations[d] - 1) / k.strides[d] + 1);
  Tensor y(DType::Float32, out);
  const int64_t cg = k.c / k.group, mg = k.m / k.group;
  const Dims out_sp(out.begin() + 2, out.end());
  const int64_t osize = numel(out_sp), ksize = numel(k.kernel), isize = numel(k.spatial);
  for (int64_t n = 0; n < k.n; ++n)
    for (int64_t m = 0; m < k.m; ++m)
      for (int64_t o = 0; o < osize; ++o) {
        double acc = b.data<float>()[m];
        for (int64_t c = 0; c < cg; ++c)
          for (int64_t ki = 0; ki < ksize; ++ki) {
            int64_t orest = o, krest = ki, offset = 0;
            bool inside = true;
            std::vector<int64_t> oi(r), kk(r);
            for (size_t d = r; d-- > 0;) oi[d] = orest % out_sp[d], orest /= out_sp[d], kk[d] = krest % k.kernel[d], krest /= k.kernel[d];
            for (size_t d = 0; d < r; ++d) {
              const int64_t pos = oi[d] * k.strides[d] - k.pads[d] + kk[d] * k.dilations[d];
              inside = inside && pos >= 0 && pos < k.spatial[d];
              offset = offset * k.spatial[d] + pos;
            }
            if (!inside) continue;
            const int64_t ch = (m / mg) * cg + c;
            acc += double(w.data<float>()[(m * cg + c) * ksize + ki]) * x.data<float>()[(n * k.c + ch) * isize + offset];
          }
        y.data<float>()[(n * k.m + m) * osize + o] = float(acc);
      }
  return y;
}

// ConvTranspose, W [C, M/g, k…]: Y[n, g·Mg + j, i·s − pb + k·d] += X[n, g·Cg + c, i] · W[g·Cg + c, j, k…]
Tensor naive_conv_transpose(const Tensor& x, const Tensor& w, const Tensor& b, const ConvCase& k) {
  const size_t r = k.spatial.size();
  const int64_t cg = k.c / k.group, mg = k.m / k.group;
  Dims out{k.n, k.m};
  for (size_t d = 0; d < r; ++d) {
    const int64_t op = k.output_padding.empty() ? 0 : k.output_padding[d];
    out.push_back(k.strides[d] * (k.spatial[d] - 1) + op + (k.kernel[d] - 1) * k.dilations[d] + 1 - k.pads[d] - k.pads[d + r]);
  }
  const Dims out_sp(out.begin() + 2, out.end());
  std::vector<double> acc(size_t(numel(out)), 0.0);
  const int64_t osize = numel(out_sp), ksize = numel(k.kernel), isize = numel(k.spatial);
  for (int64_t n = 0; n < k.n; ++n)
    for (int64_t c = 0; c < k.c; ++c)
      for (int64_t i = 0; i < isize; ++i)
        for (int64_t j = 0; j < mg; ++j)
          for (int64_t ki = 0; ki < ksize; ++ki) {
            int64_t irest = i, krest = ki, offset = 0;
            bool inside = true;
            std::vector<int64_t> ii(r), kk(r);
            for (size_t d = r; d-- > 0;) ii[d] = irest % k.spatial[d], irest /= k.spatial[d], kk[d] = krest % k.kernel[d], krest /= k.kernel[d];
            for (size_t d = 0; d < r; ++d) {
              const int64_t pos = ii[d] * k.strides[d] - k.pads[d] + kk[d] * k.dilations[d];
              inside = inside && pos >= 0 && pos < out_sp[d];
              offset = offset * out_sp[d] + pos;
            }
            if (!inside) continue;
            const int64_t o = (c / cg) * mg + j;
            acc[size_t((n * k.m + o) * osize + offset)] +=
                double(x.data<float>()[(n * k.c + c) * isize + i]) * w.data<float>()[(c * mg + j) * ksize + ki];
          }
  Tensor y(DType::Float32, out);
  for (int64_t i = 0; i < y.numel(); ++i) y.data<float>()[i] = float(acc[size_t(i)] + b.data<float>()[(i / osize) % k.m]);
  return y;
}

Node window_node(const char* op, const ConvCase& k) {
  Node node;
  node.op_type = op;
  node.name = "case";
  node.attributes["group"] = Attribute::of_int(k.group);
  node.attributes["strides"] = Attribute::of_ints(k.strides);
  node.attributes["dilations"] = Attribute::of_ints(k.dilations);
  node.attributes["pads"] = Attribute::of_ints(k.pads);
  if (!k.output_padding.empty()) node.attributes["output_padding"] = Attribute::of_ints(k.output_padding);
  return node;
}

std::vector<ConvCase> cases() {
  return {
      {1, 3, 8, 1, {7, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}},
      {2, 4, 6, 2, {13, 17}, {3, 2}, {2, 1}, {1, 2}, {0, 1, 1, 0}},
      {3, 6, 6, 6, {31, 33}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}},  // depthwise
      {1, 4, 8, 4, {9, 9}, {5, 5}, {1, 1}, {2, 2}, {4, 4, 4, 4}},    // depthwise ×2 multiplier, dilated
      {2, 5, 7, 1, {1, 1}, {1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}},    // 1×1 on 1×1
      {1, 64, 10, 1, {5, 5}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}},  // C_in != C_out
      {2, 3, 4, 1, {17}, {3}, {2}, {1}, {1, 0}},                     // 1-D
      {1, 2, 4, 2, {5, 6, 7}, {2, 3, 3}, {1, 2, 1}, {1, 1, 2}, {0, 1, 1, 1, 0, 1}},  // 3-D grouped
      {8, 3, 5, 1, {13, 13}, {1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}},  // pointwise, batch parallel
      {4, 16, 32, 1, {127, 3}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}},
      // Degenerate windows: kernel larger than the input, pads larger than the kernel, stride
      // larger than the input, dilation reaching past it.
      {1, 8, 8, 1, {1, 1}, {5, 5}, {1, 1}, {1, 1}, {2, 2, 2, 2}},
      {2, 8, 16, 8, {1, 1}, {5, 5}, {1, 1}, {1, 1}, {2, 2, 2, 2}},
      {1, 3, 4, 1, {2, 3}, {3, 3}, {1, 1}, {1, 1}, {4, 5, 4, 3}},
      {1, 2, 2, 1, {3, 3}, {2, 2}, {5, 7}, {1, 1}, {1, 1, 1, 1}},
      {1, 2, 3, 1, {2, 2}, {3, 3}, {1, 1}, {3, 3}, {3, 3, 3, 3}},
      {3, 4, 4, 4, {1, 8}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}},
  };
}

TEST(ConvReference, MatchesNaiveLoops) {
  for (const ConvCase& k : cases()) {
    SCOPED_TRACE(describe(k));
    Dims wd{k.m, k.c / k.group};
    wd.insert(wd.end(), k.kernel.begin(), k.kernel.end());
    Dims xd{k.n, k.c};
    xd.insert(xd.end(), k.spatial.begin(), k.spatial.end());
    const Tensor x = random_tensor(xd, 1), w = random_tensor(wd, 2), b = random_tensor({k.m}, 3);
    const Tensor got = run_op(window_node("Conv", k), {&x, &w, &b})[0];
    expect_close(got, naive_conv(x, w, b, k), 1e-4);
  }
}

TEST(ConvTransposeReference, MatchesNaiveLoops) {
  auto all = cases();
  all.push_back({1, 6, 4, 2, {4, 5}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, {1, 0}});  // output_padding, groups
  all.push_back({2, 9, 6, 3, {3, 3}, {2, 2}, {3, 3}, {2, 1}, {0, 0, 0, 0}});       // grouped, stride 3, dilated
  for (const ConvCase& k : all) {
    SCOPED_TRACE(describe(k));
    bool positive = true;  // pads wider than the full output leave nothing: an error, as in ONNX Runtime
    for (size_t d = 0; d < k.spatial.size(); ++d)
      positive = positive && k.strides[d] * (k.spatial[d] - 1) + (k.kernel[d] - 1) * k.dilations[d] + 1 >
                                 k.pads[d] + k.pads[d + k.spatial.size()];
    Dims wd{k.c, k.m / k.group};
    wd.insert(wd.end(), k.kernel.begin(), k.kernel.end());
    Dims xd{k.n, k.c};
    xd.insert(xd.end(), k.spatial.begin(), k.spatial.end());
    const Tensor x = random_tensor(xd, 4), w = random_tensor(wd, 5), b = random_tensor({k.m}, 6);
    if (!positive) {
      EXPECT_THROW(run_op(window_node("ConvTranspose", k), {&x, &w, &b}), Error);
      continue;
    }
    const Tensor got = run_op(window_node("ConvTranspose", k), {&x, &w, &b})[0];
    expect_close(got, naive_conv_transpose(x, w, b, k), 1e-4);
  }
}

TEST(ConvErrors, NameTheMismatch) {
  ConvCase k{1, 64, 10, 1, {5, 5}, {3, 3}, {1, 1}, {1, 1}, {0, 0, 0, 0}};
  const Tensor x = random_tensor({1, 64, 5, 5}, 1), w = random_tensor({64, 10, 3, 3}, 2), b = random_tensor({64}, 3);
  try {
    run_op(window_node("ConvTranspose", k), {&x, &w, &b});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("weight has 10 output channels but bias has 64"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace q8
