// Float32 Gemm and MatMul, which a device sums in its own order (CLBlast's SGEMM): held to the dot
// product's bound instead of bits. Each side's error in α·Σ a·b + β·c is at most
// γ(K+2)·(|α|·Σ|a|·|b| + |β·c|), γ(n) = n·u / (1 − n·u), u = 2^−24; the two differ by at most twice that.
#include <algorithm>
#include <cmath>

#include "tests/cases/op_case.h"

namespace q8 {

namespace {

// The bound per element of the output, from the inputs alone.
std::vector<double> dot_bound(const Tensor& a, const Tensor& b, const Tensor* c, bool trans_a, bool trans_b, double alpha, double beta,
                              int64_t rows, int64_t k, int64_t n) {
  const double u = std::ldexp(1.0, -24), gamma = double(k + 2) * u / (1 - double(k + 2) * u);
  std::vector<double> bound(size_t(rows * n));
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double magnitude = 0;
      for (int64_t p = 0; p < k; ++p) {
        const float av = trans_a ? a.data<float>()[p * rows + i] : a.data<float>()[i * k + p];
        const float bv = trans_b ? b.data<float>()[j * k + p] : b.data<float>()[p * n + j];
        magnitude += std::fabs(double(av) * double(bv));
      }
      magnitude *= std::fabs(alpha);
      if (c) magnitude += std::fabs(beta * c->data<float>()[c->numel() == n ? j : i]);
      bound[size_t(i * n + j)] = 2 * gamma * magnitude;
    }
  return bound;
}

// The same for a MatMul of rank-4 operands whose batch axes broadcast (size 1 against the other's).
std::vector<double> batched_bound(const Tensor& a, const Tensor& b) {
  const double u = std::ldexp(1.0, -24);
  const int64_t m = a.dim(2), k = a.dim(3), n = b.dim(3), d0 = std::max(a.dim(0), b.dim(0)), d1 = std::max(a.dim(1), b.dim(1));
  const double gamma = double(k + 2) * u / (1 - double(k + 2) * u);
  std::vector<double> bound;
  for (int64_t x = 0; x < d0; ++x)
    for (int64_t y = 0; y < d1; ++y) {
      const float* pa = a.data<float>() + ((a.dim(0) == 1 ? 0 : x) * a.dim(1) + (a.dim(1) == 1 ? 0 : y)) * m * k;
      const float* pb = b.data<float>() + ((b.dim(0) == 1 ? 0 : x) * b.dim(1) + (b.dim(1) == 1 ? 0 : y)) * k * n;
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double magnitude = 0;
          for (int64_t p = 0; p < k; ++p) magnitude += std::fabs(double(pa[i * k + p]) * double(pb[p * n + j]));
          bound.push_back(2 * gamma * magnitude);
        }
    }
  return bound;
}

struct Inputs3 {
  Tensor a, at, b, bt, c, c2, a4, w;
};

const Inputs3& inputs() {
  static const Inputs3 in = [] {
    std::mt19937 rng(31);
    Inputs3 t;
    t.a = random_float({7, 33}, rng, -3, 3), t.at = random_float({33, 7}, rng, -3, 3), t.b = random_float({33, 10}, rng, -3, 3);
    t.bt = random_float({10, 33}, rng, -3, 3), t.c = random_float({10}, rng, -3, 3), t.c2 = random_float({7, 1}, rng, -3, 3);
    t.a4 = random_float({2, 3, 5, 33}, rng, -3, 3), t.w = random_float({33, 19}, rng, -3, 3);
    return t;
  }();
  return in;
}

OpCase within(OpCase c, std::vector<double> bound) {
  c.expect = Expect::Within, c.tolerance = std::move(bound);
  return c;
}

}  // namespace

std::vector<OpCase> gemm_cases_float() {
  const Inputs3& t = inputs();
  const std::map<std::string, Attribute> scaled = {{"alpha", Attribute::of_float(0.5f)}, {"beta", Attribute::of_float(2.0f)}};
  return {within(make_case("Gemm α 0.5 β 2", make_node("Gemm", {"a", "b", "c"}, scaled), {t.a, t.b, t.c}, {false, true, true}),
                 dot_bound(t.a, t.b, &t.c, false, false, 0.5, 2.0, 7, 33, 10)),
          within(make_case("Gemm transB, C [M, 1]", make_node("Gemm", {"a", "b", "c"}, {{"transB", Attribute::of_int(1)}}),
                           {t.a, t.bt, t.c2}, {false, true, true}),
                 dot_bound(t.a, t.bt, &t.c2, false, true, 1.0, 1.0, 7, 33, 10)),
          within(make_case("Gemm transA, B an activation", make_node("Gemm", {"a", "b"}, {{"transA", Attribute::of_int(1)}}), {t.at, t.b},
                           {false, false}),
                 dot_bound(t.at, t.b, nullptr, true, false, 1.0, 0.0, 7, 33, 10))};
}

std::vector<OpCase> matmul_cases_float() {
  const Inputs3& t = inputs();
  std::mt19937 rng(37);
  const Tensor keys = random_float({2, 3, 33, 7}, rng, -3, 3), shared = random_float({1, 3, 33, 7}, rng, -3, 3);
  const Tensor shared_a = random_float({1, 3, 5, 33}, rng, -3, 3);
  const Node n = make_node("MatMul", {"a", "b"});
  return {within(make_case("MatMul [2, 3, 5, 33] · [33, 19]", make_node("MatMul", {"a", "w"}), {t.a4, t.w}, {false, true}),
                 dot_bound(t.a4, t.w, nullptr, false, false, 1.0, 0.0, 30, 33, 19)),
          within(make_case("MatMul [2, 3, 5, 33] · [33, 19], B computed", n, {t.a4, t.w}, {false, false}),
                 dot_bound(t.a4, t.w, nullptr, false, false, 1.0, 0.0, 30, 33, 19)),
          within(make_case("MatMul of two activations [2, 3, 5, 33] · [2, 3, 33, 7] (attention)", n, {t.a4, keys}, {false, false}),
                 batched_bound(t.a4, keys)),
          within(make_case("MatMul [2, 3, 5, 33] · [1, 3, 33, 7], B's batch broadcast", n, {t.a4, shared}, {false, false}),
                 batched_bound(t.a4, shared)),
          within(make_case("MatMul [1, 3, 5, 33] · [2, 3, 33, 7], A's batch broadcast", n, {shared_a, keys}, {false, false}),
                 batched_bound(shared_a, keys))};
}

}  // namespace q8
