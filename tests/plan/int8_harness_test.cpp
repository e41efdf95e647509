// The cross-backend harness: one list of INT8 op cases (odd sizes, sizes around tiles, groups,
// strides, dilations, pads, requantization ties, accumulators above 2^24, residuals, FP32 output),
// run on every backend that takes the q8 ops and compared with an independent implementation of
// docs/quantization.md written here as direct index arithmetic. Integers must match exactly, and
// so must FP32 outputs (the formula is two IEEE operations, not a sum in a free order). A failure
// names the case and the first differing index.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <tuple>
#include <random>
#include <sstream>

#include "engine/cpu/cpu_backend.h"
#include "engine/plan/reference/backend.h"
#if Q8_WITH_OPENCL
#include "engine/opencl/device.h"
#include "engine/opencl/opencl_backend.h"
#endif

namespace q8 {
namespace {

// Every backend that runs the q8 domain: the reference, and each OpenCL device present (PoCL on
// the CPU in CI; NVIDIA's OpenCL on a GPU machine).
std::vector<const Backend*> int8_backends() {
  std::vector<const Backend*> backends = {&int8_reference_backend()};
#if Q8_WITH_OPENCL
  for (size_t i = 0; i < list_devices().size(); ++i) backends.push_back(&opencl_backend(int(i)));
#endif
  return backends;
}

// The view a plan gives a backend: types from the inputs, constants where marked.
NodeView view_of(const Node& node, const Inputs& in, const std::vector<bool>& constant, int64_t opset = 13) {
  NodeView view{node, opset, {}, {}, {}};
  for (size_t i = 0; i < in.size(); ++i) {
    view.input_types.push_back(in[i] ? in[i]->dtype() : DType::Undefined);
    view.input_shapes.push_back(std::nullopt);
    view.constants.push_back(i < constant.size() && constant[i] ? in[i] : nullptr);
  }
  return view;
}

// Whether backend has a kernel for the op; a backend that has one must take every case of it.
bool has_kernel(const Backend& backend, const Node& node, const Inputs& in, const std::vector<bool>& constant) {
  const Support s = backend.supports(view_of(node, in, constant));
  if (s.ok) return true;
  EXPECT_NE(s.reason.find("no OpenCL kernel for"), std::string::npos) << backend.name() << " declines " << node.describe() << ": " << s.reason;
  return false;
}

// Runs one node on backend as the executor does: supports (the types and constants given) →
// create → reshape → run into a buffer of reshape's shape, copying to and from device memory.
// constant[i] marks the inputs the plan holds as constants (weights, biases, scales, tables).
// Inputs that are not constants reach the node as the executor hands them: on the host where the
// node takes them there (PreparedNode::takes_host_input), else uploaded; with upload_all, every
// one uploaded (as when a device node made it).
Tensor run_node(const Backend& backend, const Node& node, const Inputs& in, const std::vector<bool>& constant, int64_t opset = 13,
                bool upload_all = false) {
  const NodeView view = view_of(node, in, constant, opset);
  const Support support = backend.supports(view);
  check(support.ok, std::string(backend.name()) + " does not take " + node.describe() + ": " + support.reason);
  const std::unique_ptr<PreparedNode> prepared = backend.create(view);
  std::vector<Tensor> held;  // inputs as the backend reads them
  Inputs args;
  for (size_t i = 0; i < in.size(); ++i) {
    const bool on_host = view.constants[i] || !in[i] || (!upload_all && prepared->takes_host_input(i));
    held.push_back(on_host ? (in[i] ? *in[i] : Tensor()) : backend.upload(*in[i]));
  }
  for (const Tensor& t : held) args.push_back(t.empty() ? nullptr : &t);
  const Reshaped r = prepared->reshape(describe(args));
  std::vector<Tensor> out(node.outputs.size());
  if (!r.outputs.empty() && r.outputs[0] && backend.memory() == kHostMemory) out[0] = Tensor::uninitialized(r.outputs[0]->dtype, r.outputs[0]->dims);
  std::vector<std::byte> workspace(r.workspace_bytes);
  prepared->run(args, out, workspace);
  return backend.download(out.at(0));
}

struct WeightedCase {
  std::string op = "QConv";  // QConv, QConvTranspose, QGemm
  int64_t n = 1, c = 1, m = 1, group = 1;
  std::vector<int64_t> in, kernel, strides, dilations, pads, output_padding;  // spatial (QGemm: in = {rows}, kernel = {})
  bool trans_b = false, residual = false, float_out = false, ties = false, extreme = false;
  int32_t lo = -128, hi = 127;

  std::string describe() const {
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
    if (residual) s << " residual";
    if (float_out) s << " float-out";
    if (ties) s << " ties";
    if (extreme) s << " |acc|>2^24";
    s << " clamp[" << lo << "," << hi << "]";
    return s.str();
  }
};

Tensor random_int8(const Dims& dims, std::mt19937& rng, int lo = -128, int hi = 127) {
  Tensor t(DType::Int8, dims);
  std::uniform_int_distribution<int> u(lo, hi);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<int8_t>()[i] = int8_t(u(rng));
  return t;
}

// The epilogue, written from docs/quantization.md without the library's helpers.
int8_t expected_int8(int64_t acc, int32_t bias_q, float m, const int8_t* residual, float r_scale, int32_t lo, int32_t hi) {
  const int32_t t = int32_t(acc + bias_q);
  const float g = residual ? std::fma(static_cast<float>(t), m, static_cast<float>(*residual) * r_scale) : static_cast<float>(t) * m;
  const float r = std::nearbyint(g);
  return int8_t(r < float(lo) ? lo : r > float(hi) ? hi : int32_t(r));
}

float expected_float(int64_t acc, float s, float b) {
  const float product = static_cast<float>(acc) * s;
  return product + b;
}

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

void run_weighted(const WeightedCase& k, uint32_t seed) {
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
  Tensor bias = k.float_out ? Tensor(DType::Float32, {channels}) : Tensor(DType::Int32, {channels});
  Tensor mult(DType::Float32, {channels});
  for (int64_t c = 0; c < channels; ++c) {
    mult.data<float>()[c] = k.extreme ? 0x1p-18f : k.ties ? (c % 2 ? 0.5f : 0.25f) : scale(rng);
    if (k.float_out) bias.data<float>()[c] = scale(rng) * float(int(rng() % 2001) - 1000);
    else bias.data<int32_t>()[c] = k.ties ? 0 : int32_t(rng() % 20001) - 10000;
  }
  Tensor residual = random_int8(out, rng);
  const float r_scale = 0.37f;

  Node node;
  node.domain = kInt8Domain, node.op_type = k.op, node.name = "case";
  node.inputs = {"x", "w", "b", "m"};
  if (k.residual) node.inputs.push_back("r");
  node.outputs = {"y"};
  node.attributes["lo"] = Attribute::of_int(k.lo);
  node.attributes["hi"] = Attribute::of_int(k.hi);
  if (k.residual) node.attributes["residual_scale"] = Attribute::of_float(r_scale);
  if (k.op == "QGemm") {
    node.attributes["transB"] = Attribute::of_int(k.trans_b);
  } else {
    node.attributes["group"] = Attribute::of_int(k.group);
    node.attributes["strides"] = Attribute::of_ints(k.strides);
    node.attributes["dilations"] = Attribute::of_ints(k.dilations);
    node.attributes["pads"] = Attribute::of_ints(k.pads);
    if (k.op == "QConvTranspose") node.attributes["output_padding"] = Attribute::of_ints(k.output_padding);
  }
  Inputs in = {&x, &w, &bias, &mult};
  if (k.residual) in.push_back(&residual);

  for (const Backend* backend : int8_backends()) {
    if (!has_kernel(*backend, node, in, {false, true, true, true, false})) continue;
    const Tensor y = run_node(*backend, node, in, {false, true, true, true, false});
    ASSERT_EQ(y.dims(), out) << backend->name() << ": " << k.describe();
    for (int64_t i = 0; i < y.numel(); ++i) {
      const int64_t c = (i / inner) % channels;
      if (k.float_out) {
        const float want = expected_float(acc[size_t(i)], mult.data<float>()[c], bias.data<float>()[c]);
        ASSERT_EQ(y.data<float>()[i], want) << backend->name() << ": " << k.describe() << ": first difference at index " << i;
      } else {
        const int8_t want = expected_int8(acc[size_t(i)], bias.data<int32_t>()[c], mult.data<float>()[c],
                                          k.residual ? residual.data<int8_t>() + i : nullptr, r_scale, k.lo, k.hi);
        ASSERT_EQ(int(y.data<int8_t>()[i]), int(want)) << backend->name() << ": " << k.describe() << ": first difference at index " << i
                                                       << " (accumulator " << acc[size_t(i)] << ")";
      }
    }
  }
}

std::vector<WeightedCase> weighted_cases() {
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
    k.float_out = !k.residual && i % 7 == 3;
    if (i % 6 == 4) k.lo = 0;                   // Relu folded
    if (i % 9 == 5) k.lo = 0, k.hi = 60;        // Clip(0, 6) at scale 0.1
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
    cases.push_back(k);
  }
  // QGemm: K and N odd and around 16/32/64-wide tiles, transB both ways, ties, |acc| > 2^24.
  for (int64_t kk : {1, 3, 15, 16, 17, 33, 127}) {
    for (bool trans : {false, true}) {
      WeightedCase k;
      k.op = "QGemm", k.c = kk, k.m = pick({1, 7, 31, 32, 33}), k.in = {pick({1, 3, 13})}, k.trans_b = trans;
      k.ties = kk % 2 == 1, k.residual = trans && kk > 16, k.float_out = !k.residual && kk == 15;
      cases.push_back(k);
    }
  }
  for (bool trans : {false, true}) {  // several 16 × 32 tensor-core tiles each way, both partial
    WeightedCase tiles;
    tiles.op = "QGemm", tiles.c = 100, tiles.m = 70, tiles.in = {41}, tiles.trans_b = trans, tiles.residual = trans;
    cases.push_back(tiles);
  }
  WeightedCase big;  // last: AccumulatorsAbove2To24AreReallyExercised reads it
  big.op = "QGemm", big.c = 1100, big.m = 3, big.in = {2}, big.extreme = true;  // acc ≈ 1100 · 126.5² > 2^24
  cases.push_back(big);
  return cases;
}

TEST(Int8Harness, WeightedOpsMatchTheFormulaOnEveryBackend) {
  const std::vector<WeightedCase> cases = weighted_cases();
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(cases[i].describe());
    run_weighted(cases[i], uint32_t(100 + i));
    if (HasFatalFailure()) return;
  }
}

TEST(Int8Harness, AccumulatorsAbove2To24AreReallyExercised) {
  const WeightedCase big = weighted_cases().back();
  std::mt19937 rng(1);
  Tensor x = random_int8({2, 1100}, rng, 126, 127), w = random_int8({1100, 3}, rng, 126, 127);
  std::vector<int64_t> acc;
  direct_accumulators(big, x, w, acc);
  for (int64_t a : acc) EXPECT_GT(a, int64_t(1) << 24);
}

TEST(Int8Harness, AddAndConcatMatchTheFormulaOnEveryBackend) {
  std::mt19937 rng(9);
  const std::vector<std::pair<Dims, Dims>> shapes = {{{1}, {1}}, {{3, 7}, {3, 7}}, {{2, 3, 5}, {1, 3, 1}}, {{13}, {1}},
                                                     {{1, 17, 1}, {4, 1, 3}}, {{2, 31, 33}, {2, 31, 33}}};
  for (const auto& [da, db] : shapes) {
    const Tensor a = random_int8(da, rng), b = random_int8(db, rng);
    Node add;
    add.domain = kInt8Domain, add.op_type = "QAdd", add.name = "add", add.inputs = {"a", "b"}, add.outputs = {"z"};
    const float sa = 0.5f, sb = 0.25f;  // exact ratios: many ties
    add.attributes = {{"a_scale", Attribute::of_float(sa)}, {"b_scale", Attribute::of_float(sb)},
                      {"lo", Attribute::of_int(-128)}, {"hi", Attribute::of_int(127)}};
    for (const Backend* backend : int8_backends()) {
      if (!has_kernel(*backend, add, {&a, &b}, {false, false})) continue;
      const Tensor z = run_node(*backend, add, {&a, &b}, {false, false});
      const Dims out = z.dims();
      for (int64_t i = 0; i < z.numel(); ++i) {
        // Broadcast index by hand.
        int64_t rest = i, ia = 0, ib = 0, stride_a = 1, stride_b = 1;
        for (size_t d = out.size(); d-- > 0;) {
          const int64_t idx = rest % out[d];
          rest /= out[d];
          const size_t dA = d + da.size() - out.size(), dB = d + db.size() - out.size();
          if (d + da.size() >= out.size()) {
            ia += (da[dA] == 1 ? 0 : idx) * stride_a;
            stride_a *= da[dA];
          }
          if (d + db.size() >= out.size()) {
            ib += (db[dB] == 1 ? 0 : idx) * stride_b;
            stride_b *= db[dB];
          }
        }
        const float g = std::fma(static_cast<float>(a.data<int8_t>()[ia]), sa, static_cast<float>(b.data<int8_t>()[ib]) * sb);
        const float r = std::nearbyint(g);
        const int8_t want = int8_t(r < -128 ? -128 : r > 127 ? 127 : int(r));
        ASSERT_EQ(int(z.data<int8_t>()[i]), int(want)) << backend->name() << ": QAdd " << dims_to_string(da) << " + "
                                                       << dims_to_string(db) << ": first difference at index " << i;
      }
    }
  }
  // Concat: an identity table and a requantizing one, along axis 1.
  const Tensor p = random_int8({2, 3, 5}, rng), q = random_int8({2, 4, 5}, rng);
  Tensor tables(DType::Int8, {2, 256});
  for (int v = -128; v <= 127; ++v) {
    tables.data<int8_t>()[v + 128] = int8_t(v);
    const float r = std::nearbyint((static_cast<float>(v) * 0.031f) / 0.05f);
    tables.data<int8_t>()[256 + v + 128] = int8_t(r < -128 ? -128 : r > 127 ? 127 : int(r));
  }
  Node concat;
  concat.domain = kInt8Domain, concat.op_type = "QConcat", concat.name = "cat", concat.inputs = {"p", "q", "t"}, concat.outputs = {"y"};
  concat.attributes["axis"] = Attribute::of_int(1);
  for (const Backend* backend : int8_backends()) {
    if (!has_kernel(*backend, concat, {&p, &q, &tables}, {false, false, true})) continue;
    const Tensor y = run_node(*backend, concat, {&p, &q, &tables}, {false, false, true});
    ASSERT_EQ(y.dims(), (Dims{2, 7, 5}));
    for (int64_t s = 0; s < 2; ++s)
      for (int64_t c = 0; c < 7; ++c)
        for (int64_t e = 0; e < 5; ++e) {
          const int8_t v = c < 3 ? p.data<int8_t>()[(s * 3 + c) * 5 + e] : q.data<int8_t>()[(s * 4 + c - 3) * 5 + e];
          const int8_t want = tables.data<int8_t>()[(c < 3 ? 0 : 256) + v + 128];
          ASSERT_EQ(y.data<int8_t>()[(s * 7 + c) * 5 + e], want) << backend->name() << ": QConcat at " << s << "," << c << "," << e;
        }
  }
}

// The int8 carriers a plan leaves between fused ops (MaxPool, and the view ops) give the CPU
// op's bits on every device backend, each of which must take them all.
TEST(Int8Harness, CarriersOnInt8MatchTheCpuOps) {
  std::mt19937 rng(5);
  struct PoolCase {
    Dims x;
    std::vector<int64_t> kernel, strides, pads, dilations;
    int64_t ceil = 0;
  };
  const std::vector<PoolCase> pools = {{{1, 3, 7, 9}, {2, 2}, {2, 2}, {0, 0, 0, 0}, {1, 1}},
                                       {{2, 5, 13, 13}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}},
                                       {{1, 4, 17, 31}, {3, 2}, {1, 3}, {1, 0, 2, 1}, {2, 1}},
                                       {{1, 2, 8, 8}, {3, 3}, {2, 2}, {0, 0, 0, 0}, {1, 1}, 1}};
  int ran = 0;
  for (const PoolCase& c : pools) {
    const Tensor x = random_int8(c.x, rng);
    Node pool;
    pool.op_type = "MaxPool", pool.name = "pool", pool.inputs = {"x"}, pool.outputs = {"y"};
    pool.attributes = {{"kernel_shape", Attribute::of_ints(c.kernel)}, {"strides", Attribute::of_ints(c.strides)},
                       {"pads", Attribute::of_ints(c.pads)}, {"dilations", Attribute::of_ints(c.dilations)},
                       {"ceil_mode", Attribute::of_int(c.ceil)}};
    const Tensor want = run_node(cpu_backend(), pool, {&x}, {false});
    for (const Backend* backend : int8_backends()) {
      if (backend == &int8_reference_backend()) continue;  // the reference runs q8 ops only
      const Tensor got = run_node(*backend, pool, {&x}, {false});
      ASSERT_EQ(got.dims(), want.dims()) << backend->name() << ": MaxPool " << dims_to_string(c.x);
      ASSERT_EQ(std::memcmp(got.raw(), want.raw(), want.nbytes()), 0) << backend->name() << ": MaxPool " << dims_to_string(c.x);
      ++ran;
    }
  }
  const Tensor x = random_int8({2, 3, 4, 5}, rng);
  const Tensor shape = Tensor::from_vector<int64_t>({2}, {0, -1});
  Node reshape;
  reshape.op_type = "Reshape", reshape.name = "reshape", reshape.inputs = {"x", "shape"}, reshape.outputs = {"y"};
  Node flatten;
  flatten.op_type = "Flatten", flatten.name = "flatten", flatten.inputs = {"x"}, flatten.outputs = {"y"};
  flatten.attributes["axis"] = Attribute::of_int(2);
  for (const auto& [node, in, constant] : {std::tuple{reshape, Inputs{&x, &shape}, std::vector<bool>{false, true}},
                                           std::tuple{flatten, Inputs{&x}, std::vector<bool>{false}}}) {
    const Tensor want = run_node(cpu_backend(), node, in, constant);
    for (const Backend* backend : int8_backends()) {
      if (backend == &int8_reference_backend()) continue;
      const Tensor got = run_node(*backend, node, in, constant);
      ASSERT_EQ(got.dims(), want.dims()) << backend->name() << ": " << node.op_type;
      ASSERT_EQ(std::memcmp(got.raw(), want.raw(), want.nbytes()), 0) << backend->name() << ": " << node.op_type;
      ++ran;
    }
  }
  EXPECT_EQ(ran, 6 * int(int8_backends().size() - 1));
}

// The plan's boundaries and the float32 ops between its fused ops: QuantizeLinear (ties, values
// past the int8 range, ±inf; the host's own x / s), DequantizeLinear, the activations (NaN, ±inf,
// ±0, values at the kinks), GlobalAveragePool, Add (broadcast, a constant operand, inf − inf),
// float views, Concat and Pad (every mode, both forms): the CPU ops' bits on every device
// that takes them, a NaN matching any NaN (a device that cannot be exact says why and is skipped,
// which the count shows).
TEST(Int8Harness, BoundaryAndFloatOpsMatchTheCpuOps) {
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> wide(-40.0f, 40.0f);
  Tensor x(DType::Float32, {2, 3, 5, 7});
  float* px = x.data<float>();
  for (int64_t i = 0; i < x.numel(); ++i) px[i] = wide(rng);
  const float special[] = {0.0f, -0.0f, 3.0f, -3.0f, 6.0f, 0.5f, -0.5f, 2.5f, 1e30f, -1e30f,
                           std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                           std::numeric_limits<float>::quiet_NaN(), 1e-30f, 127.5f, -128.5f};
  for (size_t i = 0; i < std::size(special); ++i) px[i * 7] = special[i];
  const Tensor scale = Tensor::scalar<float>(0.3f), zero = Tensor::scalar<int8_t>(0), shifted = Tensor::scalar<int8_t>(-3);
  const Tensor lo = Tensor::scalar<float>(-1.5f), hi = Tensor::scalar<float>(6.0f);
  const Tensor q = random_int8({2, 3, 5, 7}, rng);
  Tensor x2(DType::Float32, {2, 3, 5, 7}), per_channel(DType::Float32, {3, 1, 1});
  for (int64_t i = 0; i < x2.numel(); ++i) x2.data<float>()[i] = wide(rng);
  for (int64_t i = 0; i < 3; ++i) per_channel.data<float>()[i] = wide(rng);
  Tensor thin(DType::Float32, {2, 1, 5, 7});
  for (int64_t i = 0; i < thin.numel(); ++i) thin.data<float>()[i] = wide(rng);
  x2.data<float>()[0] = -std::numeric_limits<float>::infinity();  // with x's +inf at 70 below: NaN
  x2.data<float>()[70] = -std::numeric_limits<float>::infinity();
  auto node = [](const std::string& op, std::vector<std::string> in, std::map<std::string, Attribute> attrs = {}) {
    Node n;
    n.op_type = op, n.name = op, n.inputs = std::move(in), n.outputs = {"y"}, n.attributes = std::move(attrs);
    return n;
  };
  struct Case {
    Node node;
    Inputs in;
    std::vector<bool> constant;
    int64_t opset = 13;
  };
  // Exp's whole range: from below the smallest subnormal result to past the largest float.
  Tensor tails(DType::Float32, {2, 3, 5, 7});
  for (int64_t i = 0; i < tails.numel(); ++i) tails.data<float>()[i] = -110.0f + 200.0f * float(i) / float(tails.numel() - 1) + 0.01f * wide(rng);
  auto floats = [](std::vector<float> v) { return Tensor::from_vector<float>({int64_t(v.size())}, v); };
  auto longs = [](std::vector<int64_t> v) { return Tensor::from_vector<int64_t>({int64_t(v.size())}, v); };
  const Tensor up = floats({1, 1, 2, 2}), mixed = floats({1, 1, 0.5f, 1.5f}), leading = floats({1, 2, 1, 1}), none = floats({});
  const Tensor odd_sizes = longs({2, 3, 9, 4}), one_row = longs({2, 3, 1, 13}), roi = floats({0, 0, 0.2f, -0.1f, 1, 1, 0.9f, 1.3f});
  const Tensor starts = longs({4, 1}), ends = longs({-9, 7}), axes = longs({2, 3}), steps = longs({-2, 3});
  const Tensor pads = longs({0, 0, 1, 2, 1, 0, 2, 1}), crop_pads = longs({0, -1, 2, -2, 1, 0, 3, 1}), pad_value = Tensor::scalar<int8_t>(-7);
  auto resize = [&](std::string mode, std::string coordinates) {
    return node("Resize", {"x", "roi", "scales", "sizes"},
                {{"mode", Attribute::of_string(mode)}, {"coordinate_transformation_mode", Attribute::of_string(coordinates)},
                 {"extrapolation_value", Attribute::of_float(-7.5f)}});
  };
  Tensor finite = x;  // QuantizeLinear of NaN has no defined int8 (the host's conversion is undefined)
  finite.data<float>()[12 * 7] = 1.0f;
  const std::vector<Case> cases = {
      {node("QuantizeLinear", {"x", "s", "z"}), {&finite, &scale, &zero}, {false, true, true}},
      {node("QuantizeLinear", {"x", "s", "z"}), {&finite, &scale, &shifted}, {false, true, true}},
      {node("DequantizeLinear", {"q", "s"}), {&q, &scale}, {false, true}},
      {node("DequantizeLinear", {"q", "s", "z"}), {&q, &scale, &shifted}, {false, true, true}},
      {node("Relu", {"x"}), {&x}, {false}},
      {node("Clip", {"x", "lo", "hi"}), {&x, &lo, &hi}, {false, true, true}},
      {node("Clip", {"x", "", "hi"}), {&x, nullptr, &hi}, {false, false, true}},
      {node("LeakyRelu", {"x"}, {{"alpha", Attribute::of_float(0.1f)}}), {&x}, {false}},
      {node("HardSigmoid", {"x"}), {&x}, {false}},
      {node("HardSwish", {"x"}), {&x}, {false}},
      {node("GlobalAveragePool", {"x"}), {&x}, {false}},
      {node("Flatten", {"x"}, {{"axis", Attribute::of_int(1)}}), {&x}, {false}},
      {node("Add", {"x", "x2"}), {&x, &x2}, {false, false}},
      {node("Add", {"x", "c"}), {&x, &per_channel}, {false, true}},
      {node("Sub", {"x", "x2"}), {&x, &x2}, {false, false}},
      {node("Mul", {"c", "x"}), {&per_channel, &x}, {true, false}},
      {node("Div", {"x", "x2"}), {&x, &x2}, {false, false}},
      {node("Div", {"x", "c"}), {&x, &per_channel}, {false, true}},
      {node("Sigmoid", {"x"}), {&x}, {false}},
      {node("Sigmoid", {"x"}), {&tails}, {false}},
      {node("Exp", {"x"}), {&x}, {false}},
      {node("Exp", {"x"}), {&tails}, {false}},
      {node("Softmax", {"x"}), {&x2}, {false}},
      {node("Softmax", {"x"}, {{"axis", Attribute::of_int(1)}}), {&x}, {false}},
      {node("Softmax", {"x"}, {{"axis", Attribute::of_int(1)}}), {&tails}, {false}, 11},  // coerced to 2-D
      {resize("linear", "half_pixel"), {&x2, &none, &up, &none}, {false, true, true, true}},
      {resize("linear", "align_corners"), {&x, &none, &none, &odd_sizes}, {false, true, true, true}},
      {resize("linear", "asymmetric"), {&x2, &none, &mixed, &none}, {false, true, true, true}},
      {resize("linear", "pytorch_half_pixel"), {&x2, &none, &none, &one_row}, {false, true, true, true}},
      {resize("linear", "tf_crop_and_resize"), {&x2, &roi, &none, &odd_sizes}, {false, true, true, true}},
      {resize("linear", "half_pixel"), {&x2, &none, &leading, &none}, {false, true, true, true}},
      {resize("nearest", "half_pixel"), {&x, &none, &up, &none}, {false, true, true, true}},
      {resize("nearest", "asymmetric"), {&q, &none, &mixed, &none}, {false, true, true, true}},
      {resize("nearest", "align_corners"), {&q, &none, &none, &odd_sizes}, {false, true, true, true}},
      // Parameters computed as the graph runs (a detector's sizes from a Shape): read on the host.
      {resize("nearest", "asymmetric"), {&x, &none, &none, &odd_sizes}, {false, true, true, false}},
      {resize("nearest", "half_pixel"), {&q, &none, &up, &none}, {false, true, false, true}},
      {node("Transpose", {"x"}, {{"perm", Attribute::of_ints({0, 2, 3, 1})}}), {&x}, {false}},
      {node("Transpose", {"x"}, {{"perm", Attribute::of_ints({3, 1, 0, 2})}}), {&q}, {false}},
      {node("Slice", {"x", "s", "e", "a", "t"}), {&x, &starts, &ends, &axes, &steps}, {false, true, true, true, true}},
      {node("Slice", {"x", "s", "e", "a", "t"}), {&q, &starts, &ends, &axes, &steps}, {false, true, true, true, true}},
      {node("Slice", {"x", "s", "e", "a", "t"}), {&x, &starts, &ends, &axes, &steps}, {false, false, false, true, false}},
      {node("Concat", {"x", "t", "x2"}, {{"axis", Attribute::of_int(1)}}), {&x, &thin, &x2}, {false, false, false}},
      {node("Concat", {"x2", "x"}, {{"axis", Attribute::of_int(-1)}}), {&x2, &x}, {false, false}},
      {node("Concat", {"q", "q"}, {{"axis", Attribute::of_int(0)}}), {&q, &q}, {false, false}},
      {node("Pad", {"x", "p", "v"}), {&q, &pads, &pad_value}, {false, true, true}},
      {node("Pad", {"x", "p"}, {{"mode", Attribute::of_string("reflect")}}), {&x, &pads}, {false, true}},
      {node("Pad", {"x", "p"}), {&x, &pads}, {false, true}},  // no constant_value: zeros
      {node("Pad", {"x", "p"}, {{"mode", Attribute::of_string("edge")}}), {&x2, &crop_pads}, {false, true}},
      {node("Pad", {"x"}, {{"pads", Attribute::of_ints({0, 1, 2, 0, 1, 0, 1, 3})}, {"value", Attribute::of_float(2.5f)}}), {&x}, {false}, 2},
  };
  int ran = 0, devices = 0;
  for (const Backend* backend : int8_backends()) {
    if (backend == &int8_reference_backend()) continue;
    ++devices;
    for (const Case& c : cases) {
      const NodeView view = view_of(c.node, c.in, c.constant, c.opset);
      const Support support = backend->supports(view);
      if (!support.ok) {
        std::printf("%s: %s runs on the CPU: %s\n", std::string(backend->name()).c_str(), c.node.op_type.c_str(), support.reason.c_str());
        continue;
      }
      const Tensor want = run_node(cpu_backend(), c.node, c.in, c.constant, c.opset);
      // Inputs where the executor hands them (a plan's entry quantized on the host), then all on
      // the device (the kernels that path leaves out).
      for (bool upload_all : {false, true}) {
        const Tensor got = run_node(*backend, c.node, c.in, c.constant, c.opset, upload_all);
        const std::string what = std::string(backend->name()) + ": " + c.node.op_type + (upload_all ? ", inputs on the device" : "");
        ASSERT_EQ(got.dims(), want.dims()) << what;
        ASSERT_EQ(got.dtype(), want.dtype()) << what;
        if (got.dtype() == DType::Float32) {
          // Bits, except that a NaN matches any NaN: IEEE leaves the sign and payload of a NaN made
          // by an invalid operation (−inf · 0 in HardSwish) to the hardware (x86 sets the sign, NVIDIA not).
          for (int64_t i = 0; i < got.numel(); ++i) {
            const float g = got.data<float>()[i], w = want.data<float>()[i];
            const bool same = (std::isnan(g) && std::isnan(w)) || std::memcmp(&g, &w, sizeof g) == 0;
            ASSERT_TRUE(same) << what << " element " << i << " is " << g << ", the CPU's " << w;
          }
        } else {
          ASSERT_EQ(std::memcmp(got.raw(), want.raw(), want.nbytes()), 0) << what;
        }
      }
      ++ran;
    }
  }
  std::printf("%d op cases bit-identical on %d devices\n", ran, devices);
  EXPECT_GE(ran, devices * 35);  // all but the 11 cases that need IEEE division or doubles
}

}  // namespace
}  // namespace q8

namespace q8 {
namespace {

// Float32 Gemm and MatMul on a device (CLBlast's SGEMM) sum in their own order, so they are held
// to the dot product's bound instead of bits: each side's error in α·Σ a·b + β·c is at most
// γ(K+2)·(|α|·Σ|a|·|b| + |β·c|), γ(n) = n·u / (1 − n·u), u = 2^−24; the two differ by at most twice that.
TEST(Int8Harness, FloatGemmIsWithinTheDotProductBound) {
  std::mt19937 rng(31);
  std::uniform_real_distribution<float> dist(-3.0f, 3.0f);
  auto random = [&](Dims dims) {
    Tensor t(DType::Float32, std::move(dims));
    for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = dist(rng);
    return t;
  };
  const Tensor a = random({7, 33}), at = random({33, 7}), b = random({33, 10}), bt = random({10, 33}), c = random({10}), c2 = random({7, 1});
  const Tensor a4 = random({2, 3, 5, 33}), w = random({33, 19});
  auto node = [](const std::string& op, std::vector<std::string> in, std::map<std::string, Attribute> attrs = {}) {
    Node n;
    n.op_type = op, n.name = op, n.inputs = std::move(in), n.outputs = {"y"}, n.attributes = std::move(attrs);
    return n;
  };
  const std::map<std::string, Attribute> scaled = {{"alpha", Attribute::of_float(0.5f)}, {"beta", Attribute::of_float(2.0f)}};
  struct Case {
    Node node;
    Inputs in;
    std::vector<bool> constant;
    bool trans_a = false, trans_b = false;
  };
  const std::vector<Case> cases = {
      {node("Gemm", {"a", "b", "c"}, scaled), {&a, &b, &c}, {false, true, true}},
      {node("Gemm", {"a", "b", "c"}, {{"transB", Attribute::of_int(1)}}), {&a, &bt, &c2}, {false, true, true}, false, true},
      {node("Gemm", {"a", "b"}, {{"transA", Attribute::of_int(1)}}), {&at, &b}, {false, false}, true, false},
      {node("MatMul", {"a", "w"}), {&a4, &w}, {false, true}},
  };
  const double u = std::ldexp(1.0, -24);
  int ran = 0;
  for (const Backend* backend : int8_backends()) {
    if (backend == &int8_reference_backend()) continue;
    for (const Case& cs : cases) {
      ASSERT_TRUE(backend->supports(view_of(cs.node, cs.in, cs.constant)).ok) << backend->name() << ": " << cs.node.op_type;
      const Tensor want = run_node(cpu_backend(), cs.node, cs.in, cs.constant);
      const Tensor got = run_node(*backend, cs.node, cs.in, cs.constant);
      ASSERT_EQ(got.dims(), want.dims()) << cs.node.op_type;
      const bool gemm = cs.node.op_type == "Gemm";
      const Tensor& x = *cs.in[0];
      const Tensor& y = *cs.in[1];
      const int64_t k = gemm ? (cs.trans_a ? x.dim(0) : x.dim(1)) : x.dims().back(), n = got.dims().back(), m = got.numel() / n;
      const double alpha = gemm ? cs.node.attr_float("alpha", 1.0f) : 1.0, beta = gemm ? cs.node.attr_float("beta", 1.0f) : 0.0;
      const double gamma = double(k + 2) * u / (1 - double(k + 2) * u);
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double magnitude = 0;
          for (int64_t p = 0; p < k; ++p) {
            const float av = cs.trans_a ? x.data<float>()[p * m + i] : x.data<float>()[i * k + p];
            const float bv = cs.trans_b ? y.data<float>()[j * k + p] : y.data<float>()[p * n + j];
            magnitude += std::fabs(double(av) * double(bv));
          }
          magnitude *= std::fabs(alpha);
          if (gemm && cs.in.size() > 2) {
            const Tensor& cv = *cs.in[2];
            magnitude += std::fabs(beta * cv.data<float>()[cv.numel() == n ? j : i]);
          }
          const double g = got.data<float>()[i * n + j], wv = want.data<float>()[i * n + j];
          ASSERT_LE(std::fabs(g - wv), 2 * gamma * magnitude) << backend->name() << ": " << cs.node.op_type << " (" << i << ", " << j << ")";
        }
      ++ran;
    }
  }
  std::printf("%d float GEMM cases within the bound\n", ran);
}

}  // namespace
}  // namespace q8
