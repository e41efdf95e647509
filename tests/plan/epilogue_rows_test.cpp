// The epilogue's run forms (store_channels, store_positions: what the CPU INT8 backend calls, with
// the vector paths of engine/cpu/requantize_row.h and float_epilogue_row.h) give the bytes of
// store(), the reference's element-by-element form, for channel counts below, at and above a
// vector and the 256-value run, int8 outputs with Relu/Clip bounds, every residual mode, float
// outputs with and without an activation, and activations quantized to int8 (y_scale). Under
// Q8_MAX_CPU_ISA=avx2 or scalar (ctest runs it so) the other paths.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "engine/plan/reference/epilogue.h"
#include "tests/plan/node_builder.h"

namespace q8 {
namespace {

struct Form {
  bool float_out = false;
  const char* activation = nullptr;
  float sum_scale = 0.0f;  // with a residual: 0 the plain sum, else the rounded forms
  int residual_first = 0;
  bool residual = false;
  float y_scale = 0.0f;  // with an activation: int8 out
};

TEST(EpilogueRows, RunFormsGiveTheElementFormsBytes) {
  std::mt19937 rng(11);
  const Form forms[] = {{}, {false, nullptr, 0.0f, 0, true}, {false, nullptr, 0.73f, 0, true}, {false, nullptr, 0.73f, 1, true},
                        {true}, {true, "Swish"}, {true, "Gelu"}, {true, "HardSwish"}, {true, "Sigmoid"},
                        {true, "HardSwish", 0.0f, 0, false, 0.37f}, {true, "Swish", 0.0f, 0, false, 0.05f}};
  int checked = 0;
  for (const Form& f : forms)
    for (int64_t channels : {1, 3, 8, 16, 17, 40, 64, 70, 130, 300}) {
      const int64_t positions = 37, total = positions * channels;
      std::map<std::string, Attribute> attrs{{"lo", Attribute::of_int(f.float_out ? -128 : -20)}, {"hi", Attribute::of_int(127)}};
      if (f.residual) attrs["residual_scale"] = Attribute::of_float(0.41f);
      if (f.sum_scale > 0) attrs["sum_scale"] = Attribute::of_float(f.sum_scale), attrs["residual_first"] = Attribute::of_int(f.residual_first);
      if (f.activation) attrs["activation"] = Attribute::of_string(f.activation);
      if (f.y_scale > 0) attrs["y_scale"] = Attribute::of_float(f.y_scale);
      const Node node = test::node("QConv", "conv", {"x", "w", "b", "s", f.residual ? "r" : ""}, {"y"}, attrs);
      Epilogue epilogue(node);
      Tensor bias = f.float_out ? Tensor(DType::Float32, {channels}) : Tensor(DType::Int32, {channels});
      Tensor scale(DType::Float32, {channels}), residual(DType::Int8, {positions * channels});
      for (int64_t c = 0; c < channels; ++c) {
        scale.data<float>()[c] = std::ldexp(float(rng() % 1000 + 1), -int(rng() % 14) - 4);
        if (f.float_out) bias.data<float>()[c] = float(int(rng() % 2001) - 1000) / 64.0f;
        else bias.data<int32_t>()[c] = int32_t(rng() % 20001) - 10000;
      }
      for (int8_t& v : residual.values<int8_t>()) v = int8_t(rng());
      std::vector<int32_t> acc(static_cast<size_t>(total));
      for (int32_t& a : acc) a = int32_t(rng() % 200001) - 100000;
      const Tensor* none = nullptr;
      epilogue.bind({none, none, &bias, &scale, f.residual ? &residual : nullptr});
      const DType out = epilogue.int8_out() ? DType::Int8 : DType::Float32;
      Tensor want(out, {total}), rows(out, {total}), runs(out, {total});
      for (int64_t i = 0; i < total; ++i) epilogue.store(want, i, i % channels, acc[size_t(i)]);
      const int bytes = out == DType::Int8 ? 1 : 4;
      for (int64_t p = 0; p < positions; ++p)
        epilogue.store_channels(rows.raw() + p * channels * bytes, acc.data() + p * channels,
                                f.residual ? residual.data<int8_t>() + p * channels : nullptr, 0, channels);
      epilogue.store_positions(runs.raw(), acc.data(), f.residual ? residual.data<int8_t>() : nullptr, positions, channels);
      EXPECT_EQ(std::memcmp(rows.raw(), want.raw(), want.nbytes()), 0) << "store_channels, " << channels << " channels, form " << &f - forms;
      EXPECT_EQ(std::memcmp(runs.raw(), want.raw(), want.nbytes()), 0) << "store_positions, " << channels << " channels, form " << &f - forms;
      ++checked;
    }
  EXPECT_EQ(checked, 110);
}

}  // namespace
}  // namespace q8
