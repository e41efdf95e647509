// QAdd (broadcasting, exact scale ratios that make many ties) and QConcat (an identity table and a
// requantizing one), their expected outputs from docs/quantization.md by direct index arithmetic.
#include <cmath>

#include "tests/cases/op_case.h"

namespace q8 {

std::vector<OpCase> qadd_cases() {
  std::mt19937 rng(9);
  const std::vector<std::pair<Dims, Dims>> shapes = {{{1}, {1}}, {{3, 7}, {3, 7}}, {{2, 3, 5}, {1, 3, 1}}, {{13}, {1}},
                                                     {{1, 17, 1}, {4, 1, 3}}, {{2, 31, 33}, {2, 31, 33}}};
  const float sa = 0.5f, sb = 0.25f;  // exact ratios: many ties
  std::vector<OpCase> out;
  for (const auto& [da, db] : shapes) {
    const Tensor a = random_int8(da, rng), b = random_int8(db, rng);
    Dims dims(std::max(da.size(), db.size()), 1);
    for (size_t d = 0; d < dims.size(); ++d) {
      const int64_t x = d + da.size() >= dims.size() ? da[d + da.size() - dims.size()] : 1;
      const int64_t y = d + db.size() >= dims.size() ? db[d + db.size() - dims.size()] : 1;
      dims[d] = std::max(x, y);
    }
    Tensor z(DType::Int8, dims);
    for (int64_t i = 0; i < z.numel(); ++i) {
      // Broadcast index by hand.
      int64_t rest = i, ia = 0, ib = 0, stride_a = 1, stride_b = 1;
      for (size_t d = dims.size(); d-- > 0;) {
        const int64_t idx = rest % dims[d];
        rest /= dims[d];
        if (d + da.size() >= dims.size()) {
          const size_t k = d + da.size() - dims.size();
          ia += (da[k] == 1 ? 0 : idx) * stride_a;
          stride_a *= da[k];
        }
        if (d + db.size() >= dims.size()) {
          const size_t k = d + db.size() - dims.size();
          ib += (db[k] == 1 ? 0 : idx) * stride_b;
          stride_b *= db[k];
        }
      }
      const float g = std::fma(static_cast<float>(a.data<int8_t>()[ia]), sa, static_cast<float>(b.data<int8_t>()[ib]) * sb);
      const float r = std::nearbyint(g);
      z.data<int8_t>()[i] = int8_t(r < -128 ? -128 : r > 127 ? 127 : int(r));
    }
    const Node add = make_node("QAdd", {"a", "b"}, {{"a_scale", Attribute::of_float(sa)}, {"b_scale", Attribute::of_float(sb)},
                                                     {"lo", Attribute::of_int(-128)}, {"hi", Attribute::of_int(127)}}, kInt8Domain);
    OpCase c = make_case("QAdd " + dims_to_string(da) + " + " + dims_to_string(db), add, {a, b}, {false, false});
    c.expect = Expect::Bits, c.expected = {z};
    out.push_back(c);
  }
  return out;
}

std::vector<OpCase> qconcat_cases() {
  std::mt19937 rng(10);
  const Tensor p = random_int8({2, 3, 5}, rng), q = random_int8({2, 4, 5}, rng);
  Tensor tables(DType::Int8, {2, 256});
  for (int v = -128; v <= 127; ++v) {
    tables.data<int8_t>()[v + 128] = int8_t(v);
    const float r = std::nearbyint((static_cast<float>(v) * 0.031f) / 0.05f);
    tables.data<int8_t>()[256 + v + 128] = int8_t(r < -128 ? -128 : r > 127 ? 127 : int(r));
  }
  Tensor y(DType::Int8, {2, 7, 5});
  for (int64_t s = 0; s < 2; ++s)
    for (int64_t ch = 0; ch < 7; ++ch)
      for (int64_t e = 0; e < 5; ++e) {
        const int8_t v = ch < 3 ? p.data<int8_t>()[(s * 3 + ch) * 5 + e] : q.data<int8_t>()[(s * 4 + ch - 3) * 5 + e];
        y.data<int8_t>()[(s * 7 + ch) * 5 + e] = tables.data<int8_t>()[(ch < 3 ? 0 : 256) + v + 128];
      }
  OpCase c = make_case("QConcat axis 1, an identity and a requantizing table",
                       make_node("QConcat", {"p", "q", "t"}, {{"axis", Attribute::of_int(1)}}, kInt8Domain), {p, q, tables},
                       {false, false, true});
  c.expect = Expect::Bits, c.expected = {y};
  return {c};
}

}  // namespace q8
