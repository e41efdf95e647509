// QConv, QConvTranspose and QGemm: odd sizes and sizes around tiles, groups (depthwise included),
// strides, dilations, pads, requantization ties, accumulators above 2^24, residuals, FP32 output,
// clamps. The expected outputs come from an independent implementation of docs/quantization.md
// written here as direct index arithmetic: integers must match exactly, and so must FP32 outputs
// (the formula is two IEEE operations, not a sum in a free order).
#include <cmath>
#include <sstream>

#include "engine/ops/channels_last.h"
#include "engine/ops/exp_float.h"
#include "engine/ops/gelu_float.h"
#include "tests/cases/qweighted_cases.h"

namespace q8 {

std::string WeightedCase::describe() const {
  std::ostringstream s;
  s << op << " n" << n << " c" << c << " m" << m << " g" << group << " in";
  for (auto v : in) s << "x" << v;
  s << " k";
  for (auto v : kernel) s << "x" << v;
  s << " s";
  for (auto v : strides) s << "x" << v;
  s << " d";
  for (auto v : dilations) s << "x" << v;
  s << " p";
  for (auto v : pads) s << "x" << v;
  if (trans_b) s << " transB";
  if (residual) s << (rounded == 0 ? " residual" : rounded == 1 ? " rounded-residual" : " rounded-residual-first");
  if (float_out) s << " float-out";
  if (!activation.empty()) s << " " << activation;
  if (channels_last) s << " channels-last";
  if (ties) s << " ties";
  if (extreme) s << " |acc|>2^24";
  s << " clamp[" << lo << "," << hi << "]";
  return s.str();
}

namespace {

int8_t clamped(float r, int32_t lo, int32_t hi) { return int8_t(r < float(lo) ? lo : r > float(hi) ? hi : int32_t(r)); }

// The epilogue, written from docs/quantization.md without the library's helpers: a residual added
// to the accumulator, or (rounded 1, 2) to the op's own int8 output y_q with ratio a_scale.
int8_t expected_int8(int64_t acc, int32_t bias_q, float m, const int8_t* residual, float r_scale, int rounded, float a_scale, int32_t lo,
                     int32_t hi) {
  const int32_t t = int32_t(acc + bias_q);
  if (residual && rounded) {
    const float y = static_cast<float>(clamped(std::nearbyint(static_cast<float>(t) * m), -128, 127));
    const float r = static_cast<float>(*residual);
    return clamped(std::nearbyint(rounded == 1 ? std::fma(y, a_scale, r * r_scale) : std::fma(r, r_scale, y * a_scale)), lo, hi);
  }
  const float g = residual ? std::fma(static_cast<float>(t), m, static_cast<float>(*residual) * r_scale) : static_cast<float>(t) * m;
  return clamped(std::nearbyint(g), lo, hi);
}

float expected_float(int64_t acc, float s, float b) {
  const float product = static_cast<float>(acc) * s;
  return product + b;
}

// The activation's f(v) as the table of docs/quantization.md writes it (q8's erf, tanh and e^x,
// which the doc names).
float expected_activation(const std::string& activation, float v) {
  if (activation == "Gelu") return q8_gelu(v);
  if (activation == "GeluTanh") return q8_gelu_tanh(v);
  if (activation == "Swish") return v * (1.0f / (1.0f + q8_exp(-v)));
  if (activation == "HardSwish") return v * std::max(0.0f, std::min(1.0f, v / 6.0f + 0.5f));
  return 1.0f / (1.0f + q8_exp(-v));  // Sigmoid
}

OpCase weighted_case(const WeightedCase& k, uint32_t seed) {
  std::mt19937 rng(seed);
  Tensor x, w;
  if (k.op == "QGemm") {
    x = k.extreme ? random_int8({k.in[0], k.c}, rng, 126, 127) : random_int8({k.in[0], k.c}, rng);
    w = k.extreme ? random_int8(k.trans_b ? Dims{k.m, k.c} : Dims{k.c, k.m}, rng, 126, 127)
                  : random_int8(k.trans_b ? Dims{k.m, k.c} : Dims{k.c, k.m}, rng, -127, 127);
  } else {
    x = random_int8({k.n, k.c, k.in[0], k.in[1]}, rng);
    w = random_int8(k.op == "QConv" ? Dims{k.m, k.c / k.group, k.kernel[0], k.kernel[1]}
                                    : Dims{k.c, k.m / k.group, k.kernel[0], k.kernel[1]},
                    rng, -127, 127);
  }
  std::vector<int64_t> acc;
  const Dims out = direct_accumulators(k, x, w, acc);
  const int64_t channels = k.m, inner = numel(out) / (out[0] * channels);
  // Multipliers: exact powers of two give ties (t odd, M = 0.5); otherwise scales as calibration makes them.
  std::uniform_real_distribution<float> scale(0.0004f, 0.004f);
  // Activation cases: S so that the float values span the activations' bends (|v| up to about 6),
  // float biases.
  const bool float_bias = k.float_out || !k.activation.empty();
  std::uniform_real_distribution<float> bend(0.5f, 1.5f);
  Tensor bias = float_bias ? Tensor(DType::Float32, {channels}) : Tensor(DType::Int32, {channels});
  Tensor mult(DType::Float32, {channels});
  for (int64_t c = 0; c < channels; ++c) {
    mult.data<float>()[c] = !k.activation.empty() ? bend(rng) / (std::sqrt(float(k.c)) * 2000.0f)
                            : k.extreme     ? 0x1p-18f
                            : k.ties        ? (c % 2 ? 0.5f : 0.25f)
                                            : scale(rng);
    if (!k.activation.empty()) bias.data<float>()[c] = 0.5f * (bend(rng) - 1.0f);
    else if (k.float_out) bias.data<float>()[c] = scale(rng) * float(int(rng() % 2001) - 1000);
    else bias.data<int32_t>()[c] = k.ties ? 0 : int32_t(rng() % 20001) - 10000;
  }
  Tensor residual = random_int8(out, rng);
  const float r_scale = 0.37f, a_scale = 0.61f;

  Node node = make_node(k.op, {"x", "w", "b", "m"}, {{"lo", Attribute::of_int(k.lo)}, {"hi", Attribute::of_int(k.hi)}}, kInt8Domain);
  if (k.residual) node.inputs.push_back("r"), node.attributes["residual_scale"] = Attribute::of_float(r_scale);
  if (k.residual && k.rounded) {
    node.attributes["sum_scale"] = Attribute::of_float(a_scale);
    if (k.rounded == 2) node.attributes["residual_first"] = Attribute::of_int(1);
  }
  const float y_scale = 0.03f;  // an activation's int8 output: ±3.8, so the largest values saturate
  if (!k.activation.empty()) {
    node.attributes["activation"] = Attribute::of_string(k.activation == "GeluTanh" ? "Gelu" : k.activation);
    if (k.activation == "GeluTanh") node.attributes["approximate"] = Attribute::of_string("tanh");
    if (!k.float_out) node.attributes["y_scale"] = Attribute::of_float(y_scale);
  }
  if (k.op == "QGemm") {
    node.attributes["transB"] = Attribute::of_int(k.trans_b);
  } else {
    node.attributes["group"] = Attribute::of_int(k.group);
    node.attributes["strides"] = Attribute::of_ints(k.strides);
    node.attributes["dilations"] = Attribute::of_ints(k.dilations);
    node.attributes["pads"] = Attribute::of_ints(k.pads);
    if (k.op == "QConvTranspose") node.attributes["output_padding"] = Attribute::of_ints(k.output_padding);
  }
  // Channels-last: the same values in another order, the layout pass's form of the node.
  if (k.channels_last) node.attributes["channels_last"] = Attribute::of_int(1);
  std::vector<Tensor> inputs = {k.channels_last ? to_channels_last(x) : x, w, bias, mult};
  if (k.residual) inputs.push_back(k.channels_last ? to_channels_last(residual) : residual);
  OpCase c = make_case(k.describe(), node, inputs, {false, true, true, true, false});
  c.expect = Expect::Bits;
  Tensor y(k.float_out ? DType::Float32 : DType::Int8, out);
  for (int64_t i = 0; i < y.numel(); ++i) {
    const int64_t ch = (i / inner) % channels;
    if (!k.activation.empty()) {  // f of the float value, then QuantizeLinear's rne(g / s_y) saturated
      const float v = expected_float(acc[size_t(i)], mult.data<float>()[ch], bias.data<float>()[ch]);
      const float g = expected_activation(k.activation, v);
      const float q = std::nearbyint(g / y_scale);
      if (k.float_out) y.data<float>()[i] = g;
      else y.data<int8_t>()[i] = int8_t(q < -128.0f ? -128 : q > 127.0f ? 127 : int(q));
    } else if (k.float_out) {
      y.data<float>()[i] = expected_float(acc[size_t(i)], mult.data<float>()[ch], bias.data<float>()[ch]);
    } else {
      y.data<int8_t>()[i] = expected_int8(acc[size_t(i)], bias.data<int32_t>()[ch], mult.data<float>()[ch],
                                          k.residual ? residual.data<int8_t>() + i : nullptr, r_scale, k.rounded, a_scale, k.lo, k.hi);
    }
  }
  c.expected = {k.channels_last ? to_channels_last(y) : y};
  return c;
}

std::vector<WeightedCase> conv_cases() {
  std::vector<WeightedCase> cases;
  const int64_t sizes[] = {1, 3, 7, 13, 17, 31, 33};
  std::mt19937 rng(2026);
  const auto pick = [&](std::initializer_list<int64_t> v) { return *(v.begin() + rng() % v.size()); };
  for (int i = 0; i < 48; ++i) {
    WeightedCase k;
    k.op = i % 3 == 0 ? "QConvTranspose" : "QConv";
    k.group = pick({1, 1, 2, 3});
    k.c = k.group * pick({1, 3, 7});
    k.m = k.group * pick({1, 3, 7, 17});
    if (i % 8 == 7) k.group = k.c = k.m = pick({3, 7, 13});  // depthwise
    k.n = pick({1, 2, 3});
    k.in = {sizes[rng() % 7], sizes[rng() % 5]};
    k.kernel = {pick({1, 2, 3, 5}), pick({1, 3})};
    k.strides = {pick({1, 1, 2, 3}), pick({1, 2})};
    k.dilations = {pick({1, 1, 2}), pick({1, 2})};
    k.pads = {pick({0, 1, 2}), pick({0, 1}), pick({0, 1, 2}), pick({0, 1})};
    k.output_padding = {k.strides[0] > 1 ? pick({0, 1}) : 0, 0};
    // A forward window must fit the padded input.
    if (k.op == "QConv")
      for (int d = 0; d < 2; ++d)
        while (k.dilations[size_t(d)] * (k.kernel[size_t(d)] - 1) + 1 > k.in[size_t(d)] + k.pads[size_t(d)] + k.pads[size_t(d) + 2])
          k.pads[size_t(d) + 2] += 1;
    if (k.op == "QConvTranspose")  // a positive output: (in − 1)·s + (k − 1)·d + 1 + output_padding − pads > 0
      for (int d = 0; d < 2; ++d)
        if ((k.in[size_t(d)] - 1) * k.strides[size_t(d)] + (k.kernel[size_t(d)] - 1) * k.dilations[size_t(d)] + 1 +
                k.output_padding[size_t(d)] - k.pads[size_t(d)] - k.pads[size_t(d) + 2] <= 0)
          k.pads[size_t(d)] = k.pads[size_t(d) + 2] = 0;
    k.ties = i % 4 == 1;
    k.residual = i % 5 == 2;
    k.rounded = k.residual ? (i / 5) % 3 : 0;
    k.float_out = !k.residual && i % 7 == 3;
    if (i % 6 == 4) k.lo = 0;              // Relu folded
    if (i % 9 == 5) k.lo = 0, k.hi = 60;   // Clip(0, 6) at scale 0.1
    cases.push_back(k);
  }
  // Depthwise and grouped convs over rows several strips wide (qconv.cl's 8 outputs a work-item),
  // strides and dilations reaching past both edges, as MobileNets and dilated detectors use them.
  for (int i = 0; i < 4; ++i) {
    WeightedCase k;
    k.group = k.c = k.m = i < 2 ? 12 : 4;
    if (i >= 2) k.c = k.m = 32;  // 8 channels in, 8 out per group
    k.n = 2, k.in = {i % 2 ? 12 : 9, i % 2 ? 41 : 37}, k.kernel = {3, 3};
    k.strides = {1 + i % 2, 1 + i % 2}, k.dilations = {1 + i / 2, 1 + i / 2};
    k.pads = {k.dilations[0], k.dilations[1], k.dilations[0], k.dilations[1]};
    k.residual = i == 1, k.float_out = i == 2, k.ties = i == 3, k.lo = i == 0 ? 0 : -128;
    k.rounded = k.residual ? 1 : 0;
    cases.push_back(k);
  }
  // Depthwise convolutions as q8's own kernel on VNNI runs them (engine/cpu/depthwise_int8.h):
  // channels past a 64-channel chunk with a partial 16-channel vector, 5 × 5 and 7 × 7 (two quads
  // of kernel rows), strided and dilated, channels-last and not, a residual, a Relu and float out.
  const struct {
    int64_t c, kernel, stride, dilation;
    bool channels_last, residual, float_out;
  } own_dw[] = {{70, 3, 1, 1, true, true, false}, {144, 3, 2, 1, false, false, false}, {40, 5, 2, 1, true, false, true}, {24, 7, 1, 2, false, false, false}};
  for (const auto& v : own_dw) {
    WeightedCase k;
    k.group = k.c = k.m = v.c;
    k.n = 2, k.in = {11, 13}, k.kernel = {v.kernel, v.kernel}, k.strides = {v.stride, v.stride}, k.dilations = {v.dilation, v.dilation};
    const int64_t pad = v.kernel / 2 * v.dilation;
    k.pads = {pad, pad, pad, pad}, k.output_padding = {0, 0};
    k.channels_last = v.channels_last, k.residual = v.residual, k.rounded = v.residual ? 2 : 0, k.float_out = v.float_out;
    if (v.c == 144) k.lo = 0;  // Relu folded
    k.extreme = v.c == 24;
    cases.push_back(k);
  }
  // Transposed convolutions whose kernel is their stride (an FPN's or a segmentation head's
  // 2 × 2 / 2 upsampling), which the CPU INT8 backend runs as a 1 × 1 product a kernel row
  // (engine/plan/cpu_int8/non_overlapping_transpose.h): one output channel and many, a kernel
  // unequal in its axes, a residual, float out, channels-last and not, sums past one band.
  const struct {
    int64_t n, c, m, h, w, kh, kw;
    bool channels_last, residual, float_out;
  } upsample[] = {{2, 16, 1, 9, 13, 2, 2, false, false, true},
                  {1, 24, 32, 40, 70, 2, 2, true, true, false},
                  {3, 7, 17, 5, 6, 3, 2, true, false, false},
                  {1, 32, 16, 60, 90, 2, 2, false, false, false}};
  for (const auto& v : upsample) {
    WeightedCase k;
    k.op = "QConvTranspose";
    k.n = v.n, k.c = v.c, k.m = v.m, k.in = {v.h, v.w}, k.kernel = {v.kh, v.kw}, k.strides = {v.kh, v.kw}, k.dilations = {1, 1};
    k.pads = {0, 0, 0, 0}, k.output_padding = {0, 0};
    k.channels_last = v.channels_last, k.residual = v.residual, k.rounded = v.residual ? 2 : 0, k.float_out = v.float_out;
    k.lo = v.m == 16 ? 0 : -128;  // Relu folded
    cases.push_back(k);
  }
  // Squeeze-excitation convs: 1 × 1 over [N, C, 1, 1] (C whole 16-byte chunks, read as the rows
  // themselves on the tensor cores), Swish int8 out, then Sigmoid float out.
  for (int i = 0; i < 2; ++i) {
    WeightedCase k;
    k.n = 5, k.c = i ? 48 : 32, k.m = i ? 32 : 48, k.in = {1, 1}, k.kernel = {1, 1}, k.strides = {1, 1}, k.dilations = {1, 1};
    k.pads = {0, 0, 0, 0}, k.output_padding = {0, 0};
    k.activation = i ? "Sigmoid" : "Swish", k.float_out = i == 1;
    cases.push_back(k);
  }
  // Activations in the epilogue: each one, int8 and float out, dense, grouped and depthwise (16
  // channels: the channels-last depthwise kernel's chunk), strided and padded.
  const struct {
    const char* activation;
    int64_t c, m, group, kernel, stride;
    bool float_out;
  } act[] = {{"Swish", 16, 16, 16, 3, 1, false},   {"Swish", 6, 10, 2, 3, 2, true},  {"HardSwish", 7, 17, 1, 1, 1, false},
             {"HardSwish", 32, 32, 32, 5, 2, false}, {"Sigmoid", 9, 5, 1, 3, 1, true}, {"Sigmoid", 4, 8, 1, 2, 1, false},
             {"Gelu", 8, 8, 8, 3, 1, false}};
  for (const auto& v : act) {
    WeightedCase k;
    k.activation = v.activation, k.c = v.c, k.m = v.m, k.group = v.group, k.float_out = v.float_out;
    k.n = 2, k.in = {9, 13}, k.kernel = {v.kernel, v.kernel}, k.strides = {v.stride, v.stride}, k.dilations = {1, 1};
    k.output_padding = {0, 0};
    k.pads = {v.kernel / 2, v.kernel / 2, v.kernel / 2, v.kernel / 2};
    cases.push_back(k);
  }
  // Convolutions whose int32 sums pass 128 KB a sample, which the CPU INT8 backend runs in bands
  // of output rows, each band its own primitive with the padding that falls in it
  // (conv_samples.h): padding at the top and the bottom, strides and dilations across band
  // edges, depthwise, 1 × 1, a residual, float out, one sample and several.
  const struct {
    int64_t n, c, m, group, h, w, kernel, stride, dilation, pad;
    bool residual, float_out;
    const char* activation;
  } banded[] = {{1, 16, 48, 1, 26, 160, 3, 1, 1, 1, true, false, ""},      {3, 8, 40, 1, 37, 150, 3, 2, 2, 2, false, true, ""},
                {1, 48, 48, 48, 30, 170, 3, 1, 1, 1, false, false, "HardSwish"}, {2, 24, 40, 1, 33, 200, 1, 1, 1, 0, false, false, ""},
                {1, 4, 32, 1, 45, 120, 5, 1, 1, 2, false, false, ""}};
  for (const auto& v : banded) {
    WeightedCase k;
    k.n = v.n, k.c = v.c, k.m = v.m, k.group = v.group, k.in = {v.h, v.w}, k.kernel = {v.kernel, v.kernel};
    k.strides = {v.stride, v.stride}, k.dilations = {v.dilation, v.dilation}, k.pads = {v.pad, v.pad, v.kernel > 1 ? v.pad + 1 : 0, v.pad};  // a 1 × 1 row wholly in padding is not banded
    k.output_padding = {0, 0};
    k.residual = v.residual, k.rounded = v.residual ? 1 : 0, k.float_out = v.float_out, k.activation = v.activation;
    k.ties = v.n == 2;
    cases.push_back(k);
  }
  // 3 × 3 convs of few output positions from many channels, whose K the tensor cores split among
  // work-groups on a large device (mma_split_k): channels-last (the CPU INT8 backend's layout)
  // with a residual, and NCHW (im2col's rows on OpenCL) with float out.
  for (int i = 0; i < 2; ++i) {
    WeightedCase k;
    k.c = i ? 96 : 128, k.m = i ? 40 : 48, k.in = {i ? 6 : 7, i ? 6 : 9}, k.kernel = {3, 3}, k.strides = {1, 1}, k.dilations = {1, 1};
    k.pads = {1, 1, 1, 1}, k.output_padding = {0, 0};
    k.channels_last = i == 0, k.residual = i == 0, k.rounded = i == 0 ? 1 : 0, k.float_out = i == 1;
    cases.push_back(k);
  }
  // Channels-last QConvs and QConvTransposes: every other one of the above again, on
  // [N, H, W, C] tensors (the residual included), as the CPU's layout pass makes them.
  const size_t first_layout = cases.size();
  for (size_t i = 0; i < first_layout; i += 2) {
    WeightedCase k = cases[i];
    k.channels_last = true;
    cases.push_back(k);
  }
  return cases;
}

}  // namespace

// Accumulators of a weighted case by direct index arithmetic; returns the output dims.
Dims direct_accumulators(const WeightedCase& k, const Tensor& x, const Tensor& w, std::vector<int64_t>& acc) {
  const int8_t* px = x.data<int8_t>();
  const int8_t* pw = w.data<int8_t>();
  if (k.op == "QGemm") {
    const int64_t rows = k.in[0], kk = k.c, nn = k.m;
    acc.assign(size_t(rows * nn), 0);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < nn; ++j)
        for (int64_t i = 0; i < kk; ++i) acc[size_t(r * nn + j)] += int64_t(px[r * kk + i]) * (k.trans_b ? pw[j * kk + i] : pw[i * nn + j]);
    return {rows, nn};
  }
  const int64_t h = k.in[0], wd = k.in[1], kh = k.kernel[0], kw = k.kernel[1];
  const int64_t sh = k.strides[0], sw = k.strides[1], dh = k.dilations[0], dw = k.dilations[1];
  const int64_t pt = k.pads[0], pl = k.pads[1], pb = k.pads[2], pr = k.pads[3];
  const int64_t cg = k.c / k.group, mg = k.m / k.group;
  if (k.op == "QConv") {
    const int64_t oh = (h + pt + pb - dh * (kh - 1) - 1) / sh + 1, ow = (wd + pl + pr - dw * (kw - 1) - 1) / sw + 1;
    acc.assign(size_t(k.n * k.m * oh * ow), 0);
    for (int64_t s = 0; s < k.n; ++s)
      for (int64_t oc = 0; oc < k.m; ++oc)
        for (int64_t oy = 0; oy < oh; ++oy)
          for (int64_t ox = 0; ox < ow; ++ox) {
            int64_t sum = 0;
            for (int64_t ci = 0; ci < cg; ++ci)
              for (int64_t ky = 0; ky < kh; ++ky)
                for (int64_t kx = 0; kx < kw; ++kx) {
                  const int64_t iy = oy * sh - pt + ky * dh, ix = ox * sw - pl + kx * dw;
                  if (iy < 0 || iy >= h || ix < 0 || ix >= wd) continue;
                  const int64_t ic = (oc / mg) * cg + ci;
                  sum += int64_t(px[((s * k.c + ic) * h + iy) * wd + ix]) * pw[((oc * cg + ci) * kh + ky) * kw + kx];
                }
            acc[size_t(((s * k.m + oc) * oh + oy) * ow + ox)] = sum;
          }
    return {k.n, k.m, oh, ow};
  }
  // QConvTranspose: W[C, M/g, kh, kw]; input (iy, ix) through tap (ky, kx) reaches
  // (iy·sh − pt + ky·dh, ix·sw − pl + kx·dw).
  const int64_t oh = (h - 1) * sh - pt - pb + dh * (kh - 1) + 1 + k.output_padding[0];
  const int64_t ow = (wd - 1) * sw - pl - pr + dw * (kw - 1) + 1 + k.output_padding[1];
  acc.assign(size_t(k.n * k.m * oh * ow), 0);
  for (int64_t s = 0; s < k.n; ++s)
    for (int64_t ic = 0; ic < k.c; ++ic)
      for (int64_t j = 0; j < mg; ++j)
        for (int64_t iy = 0; iy < h; ++iy)
          for (int64_t ix = 0; ix < wd; ++ix)
            for (int64_t ky = 0; ky < kh; ++ky)
              for (int64_t kx = 0; kx < kw; ++kx) {
                const int64_t oy = iy * sh - pt + ky * dh, ox = ix * sw - pl + kx * dw;
                if (oy < 0 || oy >= oh || ox < 0 || ox >= ow) continue;
                const int64_t oc = (ic / cg) * mg + j;
                acc[size_t(((s * k.m + oc) * oh + oy) * ow + ox)] +=
                    int64_t(px[((s * k.c + ic) * h + iy) * wd + ix]) * pw[((ic * mg + j) * kh + ky) * kw + kx];
              }
  return {k.n, k.m, oh, ow};
}

std::vector<WeightedCase> gemm_cases() {
  std::vector<WeightedCase> cases;
  std::mt19937 rng(2027);
  const auto pick = [&](std::initializer_list<int64_t> v) { return *(v.begin() + rng() % v.size()); };
  // K and N odd and around 16/32/64-wide tiles, transB both ways, ties, |acc| > 2^24.
  for (int64_t kk : {1, 3, 15, 16, 17, 33, 127}) {
    for (bool trans : {false, true}) {
      WeightedCase k;
      k.op = "QGemm", k.c = kk, k.m = pick({1, 7, 31, 32, 33}), k.in = {pick({1, 3, 13})}, k.trans_b = trans;
      k.ties = kk % 2 == 1, k.residual = trans && kk > 16, k.float_out = !k.residual && kk == 15;
      k.rounded = k.residual ? int(kk % 3) : 0;
      cases.push_back(k);
    }
  }
  for (bool trans : {false, true}) {  // several 16 × 32 tensor-core tiles each way, both partial
    WeightedCase tiles;
    tiles.op = "QGemm", tiles.c = 100, tiles.m = 70, tiles.in = {41}, tiles.trans_b = trans, tiles.residual = true;
    tiles.rounded = trans ? 0 : 2;
    cases.push_back(tiles);
  }
  // Activations in the epilogue: int8 and float out, both forms, tiles and odd sizes, transB both ways.
  const struct {
    int64_t k, n, rows;
    bool trans, float_out;
    const char* form;
  } act[] = {{33, 31, 13, false, false, "Gelu"},      {64, 70, 41, true, false, "GeluTanh"}, {17, 7, 3, false, true, "Gelu"},
             {100, 33, 5, true, true, "GeluTanh"},   {48, 40, 17, false, false, "Swish"},   {20, 9, 4, true, true, "HardSwish"},
             {64, 64, 33, true, false, "HardSwish"}, {31, 12, 6, false, false, "Sigmoid"}};
  for (const auto& v : act) {
    WeightedCase k;
    k.op = "QGemm", k.c = v.k, k.m = v.n, k.in = {v.rows}, k.trans_b = v.trans, k.float_out = v.float_out, k.activation = v.form;
    cases.push_back(k);
  }
  // Enough tiles to fill a large device (a device with few tiles runs one work-item an output):
  // the tensor cores' tiles, with a residual after the op's own rounding and with Swish.
  for (bool trans : {false, true}) {
    WeightedCase k;
    k.op = "QGemm", k.c = trans ? 64 : 100, k.m = trans ? 256 : 448, k.in = {trans ? 576 : 640}, k.trans_b = trans;
    if (trans) k.activation = "Swish";
    else k.residual = true, k.rounded = 1;
    cases.push_back(k);
  }
  // Few tiles over a long K, split among work-groups on a large device (mma_split_k): a residual
  // after the op's own rounding, float out with K not a multiple of 16, GELU int8 out.
  const struct {
    int64_t k, n, rows;
    bool trans, residual, float_out;
    const char* form;
  } split[] = {{1152, 96, 49, true, true, false, ""}, {1000, 200, 7, false, false, true, ""}, {768, 130, 3, true, false, false, "Gelu"}};
  for (const auto& v : split) {
    WeightedCase k;
    k.op = "QGemm", k.c = v.k, k.m = v.n, k.in = {v.rows}, k.trans_b = v.trans, k.residual = v.residual, k.rounded = v.residual ? 1 : 0;
    k.float_out = v.float_out, k.activation = v.form;
    cases.push_back(k);
  }
  WeightedCase big;  // last: the harness checks that its accumulators pass 2^24
  big.op = "QGemm", big.c = 1100, big.m = 3, big.in = {2}, big.extreme = true;  // acc ≈ 1100 · 126.5² > 2^24
  cases.push_back(big);
  return cases;
}

std::vector<OpCase> qconv_cases() {
  std::vector<OpCase> out;
  const std::vector<WeightedCase> k = conv_cases();
  for (size_t i = 0; i < k.size(); ++i)
    if (k[i].op == "QConv") out.push_back(weighted_case(k[i], uint32_t(100 + i)));
  return out;
}

std::vector<OpCase> qconv_transpose_cases() {
  std::vector<OpCase> out;
  const std::vector<WeightedCase> k = conv_cases();
  for (size_t i = 0; i < k.size(); ++i)
    if (k[i].op == "QConvTranspose") out.push_back(weighted_case(k[i], uint32_t(100 + i)));
  return out;
}

std::vector<OpCase> qgemm_cases() {
  std::vector<OpCase> out;
  const std::vector<WeightedCase> k = gemm_cases();
  for (size_t i = 0; i < k.size(); ++i) out.push_back(weighted_case(k[i], uint32_t(200 + i)));
  return out;
}

}  // namespace q8
