#include "engine/cpu/int8_primitive.h"

#include <dnnl.hpp>

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <unordered_map>

#include "engine/cpu/onednn_context.h"
#include "engine/cpu/parallel.h"

namespace q8 {

namespace {

using dnnl::memory;
using Tag = memory::format_tag;
using DataType = memory::data_type;

const dnnl::engine& cpu_engine() { return onednn_engine(); }
dnnl::stream& thread_stream() { return onednn_stream(); }

// [1, C, S…] stored channels-last.
memory::desc channels_last_desc(int64_t channels, const Dims& spatial, DataType type) {
  memory::dims dims{1, channels};
  dims.insert(dims.end(), spatial.begin(), spatial.end());
  std::vector<int> order(dims.size());
  std::iota(order.begin(), order.end(), 0);
  std::rotate(order.begin() + 1, order.begin() + 2, order.end());  // 0, 2, 3, …, 1
  return ordered_desc(dims, type, order);
}

std::vector<int> identity(size_t rank) {
  std::vector<int> order(rank);
  std::iota(order.begin(), order.end(), 0);
  return order;
}

// oneDNN's scratchpad, per thread that runs a primitive.
std::vector<uint8_t>& thread_scratchpad(size_t bytes) {
  static thread_local std::vector<uint8_t> pad;
  if (pad.size() < std::max<size_t>(bytes, 1)) pad.resize(std::max<size_t>(bytes, 1));
  return pad;
}

// The source type of every primitive: s8 where oneDNN sums s8 sources exactly (VNNI, AMX), else
// u8, given non-negative bytes only (sum_by_sign).
DataType source_type() { return onednn_int8_vnni() ? DataType::s8 : DataType::u8; }

// This thread's buffers for sum_by_sign: the two halves of a source and the second sums.
struct SignHalves {
  std::vector<uint8_t> positive, negative;
  std::vector<int32_t> negative_sums;
};
SignHalves& sign_halves() {
  static thread_local SignHalves s;
  return s;
}

// Elements a task of the split and of the subtraction takes: about 64 KB, so a small layer stays
// on its thread.
constexpr int64_t kSplitChunk = 65536;

// pos = max(x, 0), neg = max(−x, 0) = pos − x in byte arithmetic (−(−128) is 128 as u8). A
// function of its own, restrict-qualified, so the loop vectorizes (inside the task's lambda every
// store could alias the captured pointers, and the loop ran a byte at a time).
void split_by_sign(const int8_t* __restrict x, uint8_t* __restrict pos, uint8_t* __restrict neg, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const uint8_t p = uint8_t(x[i] > 0 ? x[i] : 0);
    pos[i] = p;
    neg[i] = uint8_t(p - uint8_t(x[i]));
  }
}

// acc −= minus, in int32's wrapping (as s8 sums).
void subtract_sums(int32_t* __restrict acc, const int32_t* __restrict minus, int64_t n) {
  for (int64_t j = 0; j < n; ++j) acc[j] = int32_t(uint32_t(acc[j]) - uint32_t(minus[j]));
}

bool has_negative(const int8_t* x, int64_t n) {
  uint8_t bits = 0;
  for (int64_t i = 0; i < n; ++i) bits |= uint8_t(x[i]);  // the sign bits, OR-ed (vectorizes)
  return (bits & 0x80) != 0;
}

// acc = Σ x · w through run(source, sums), a primitive with a u8 source. Below VNNI oneDNN pairs
// u8 × s8 products in int16 (vpmaddubsw), exact while |u0·w0 + u1·w1| ≤ 32767: with u ≤ 128 and
// w ∈ [−128, 127] a pair lies in [−32768, 32512], so it is. An x with no negative value runs as it
// is (its bytes read the same as u8); a signed one as x⁺ = max(x, 0) ∈ [0, 127] and
// x⁻ = max(−x, 0) ∈ [0, 128], acc = Σ x⁺ · w − Σ x⁻ · w, padding zero in both
// (docs/cpu.md, "When oneDNN's sums are exact").
template <typename Run>
void sum_by_sign(const int8_t* x, int64_t n, int32_t* acc, int64_t acc_n, Run run) {
  if (!has_negative(x, n)) {
    run(x, acc);
    return;
  }
  SignHalves& s = sign_halves();
  if (s.positive.size() < size_t(n)) s.positive.resize(size_t(n)), s.negative.resize(size_t(n));
  if (s.negative_sums.size() < size_t(acc_n)) s.negative_sums.resize(size_t(acc_n));
  uint8_t* pos = s.positive.data();
  uint8_t* neg = s.negative.data();
  // Elementwise loops (they vectorize), on every thread at batch 1 (serially inside a sample
  // that a thread runs alone).
  parallel_for(n, kSplitChunk, [&](int64_t b, int64_t e) { split_by_sign(x + b, pos + b, neg + b, e - b); });
  run(pos, acc);
  int32_t* minus = s.negative_sums.data();
  run(neg, minus);
  parallel_for(acc_n, kSplitChunk, [&](int64_t b, int64_t e) { subtract_sums(acc + b, minus + b, e - b); });
}

// Runs a primitive on this thread's stream, with this thread's scratchpad.
void execute(const dnnl::primitive& primitive, const memory::desc& scratchpad, std::unordered_map<int, memory> args) {
  std::vector<uint8_t>& pad = thread_scratchpad(scratchpad.get_size());
  args.insert({DNNL_ARG_SCRATCHPAD, memory(scratchpad, cpu_engine(), pad.data())});
  dnnl::stream& stream = thread_stream();
  primitive.execute(stream, args);
  stream.wait();
}

// Packs user weights into a primitive's layout (s8 weights for an s8 source carry oneDNN's
// compensation, which the reorder computes).
memory pack_weights(const memory::desc& user, const memory::desc& packed, const int8_t* w) {
  const dnnl::engine& eng = cpu_engine();
  memory out(packed, eng);
  memory in(user, eng, const_cast<int8_t*>(w));
  dnnl::stream& stream = thread_stream();
  dnnl::reorder(in, out).execute(stream, in, out);
  stream.wait();
  return out;
}

// A requantizing primitive's s32 bias, kept with it (oneDNN reads it at every run); empty for a
// primitive that gives int32 sums.
struct RequantizationBias {
  std::vector<int32_t> values;
  memory bias;

  // With r: the attributes (M as per-channel output scales, channels on axis 1 of the destination,
  // and a clip where [lo, hi] is narrower than the s8 destination's own saturation) and the bias
  // as `desc` says; gives the bias's descriptor, or an empty one without r.
  memory::desc attach(dnnl::primitive_attr& attr, const Int8Requantization* r, const memory::desc& desc) {
    if (!r) return {};
    attr.set_output_scales(1 << 1, r->scale);
    if (r->lo > -128 || r->hi < 127) {
      dnnl::post_ops ops;
      ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_clip, float(r->lo), float(r->hi));
      attr.set_post_ops(ops);
    }
    values = r->bias;
    bias = memory(desc, cpu_engine(), values.data());
    return desc;
  }
  bool present() const { return !values.empty(); }
};

}  // namespace

bool onednn_int8_vnni() {
  const unsigned isa = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
  constexpr unsigned kAvx512Vnni = static_cast<unsigned>(dnnl::cpu_isa::avx512_core_vnni);
  constexpr unsigned kAvx2Vnni = static_cast<unsigned>(dnnl::cpu_isa::avx2_vnni);
  return (isa & kAvx512Vnni) == kAvx512Vnni || (isa & kAvx2Vnni) == kAvx2Vnni;
}

std::string onednn_isa_name() {
  switch (dnnl::get_effective_cpu_isa()) {
    case dnnl::cpu_isa::sse41: return "sse41";
    case dnnl::cpu_isa::avx: return "avx";
    case dnnl::cpu_isa::avx2: return "avx2";
    case dnnl::cpu_isa::avx2_vnni: return "avx2_vnni";
    case dnnl::cpu_isa::avx512_mic: return "avx512_mic";
    case dnnl::cpu_isa::avx512_mic_4ops: return "avx512_mic_4ops";
    case dnnl::cpu_isa::avx512_core: return "avx512_core";
    case dnnl::cpu_isa::avx512_core_vnni: return "avx512_core_vnni";
    case dnnl::cpu_isa::avx512_core_bf16: return "avx512_core_bf16";
    case dnnl::cpu_isa::avx512_core_amx: return "avx512_core_amx";
    default: return "other";
  }
}

bool requantization_is_exact(const int8_t* w, int64_t channels, int64_t channel_stride, int64_t k_count, int64_t k_stride,
                             const int32_t* bias) {
  if (!onednn_int8_vnni()) return false;  // a signed source is summed in two halves there
  constexpr int64_t kExact = int64_t(1) << 24;  // float holds every integer up to 2^24
  for (int64_t c = 0; c < channels; ++c) {
    int64_t sum = 0;
    for (int64_t k = 0; k < k_count; ++k) sum += std::abs(int64_t(w[c * channel_stride + k * k_stride]));
    if (128 * sum + std::abs(int64_t(bias[c])) > kExact) return false;
  }
  return true;
}

struct Int8ConvPrimitive::Impl {
  dnnl::primitive conv;
  memory::desc src, dst, user_weights, weights, scratchpad;
  memory packed;
  RequantizationBias requantization;
  std::string implementation;
  int64_t src_values = 0, acc_values = 0;
};

Int8ConvPrimitive::Int8ConvPrimitive(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Int8ConvPrimitive::~Int8ConvPrimitive() = default;

std::unique_ptr<Int8ConvPrimitive> Int8ConvPrimitive::create(const Int8ConvShape& s, const Int8Requantization* requantization) {
  const size_t rank = s.in_spatial.size();
  if (rank < 1 || rank > 3 || s.channels_in <= 0 || s.channels_out <= 0 || s.group < 1) return nullptr;
  if (numel(s.in_spatial) <= 0 || numel(s.out_spatial) <= 0) return nullptr;
  try {
    auto impl = std::make_unique<Impl>();
    const dnnl::engine& eng = cpu_engine();
    impl->src = channels_last_desc(s.channels_in, s.in_spatial, source_type());
    impl->dst = channels_last_desc(s.channels_out, s.out_spatial, requantization ? DataType::s8 : DataType::s32);
    impl->src_values = s.channels_in * numel(s.in_spatial);
    impl->acc_values = s.channels_out * numel(s.out_spatial);
    const int64_t g = s.group;
    memory::dims wdims;
    if (g > 1) wdims.push_back(g);
    wdims.push_back(s.channels_out / g);
    wdims.push_back(s.channels_in / g);
    wdims.insert(wdims.end(), s.kernel.begin(), s.kernel.end());
    // ONNX stores Conv as O, I/g, k… and ConvTranspose as I, O/g, k… (per group I/g, O/g, k…).
    std::vector<int> order = identity(wdims.size());
    const size_t o_axis = g > 1 ? 1 : 0;
    if (s.transposed) std::swap(order[o_axis], order[o_axis + 1]);
    impl->user_weights = ordered_desc(wdims, DataType::s8, order);
    const memory::desc any_weights(wdims, DataType::s8, Tag::any);
    memory::dims strides(s.strides.begin(), s.strides.end()), dil, pl(s.pad_begin.begin(), s.pad_begin.end()),
        pr(s.pad_end.begin(), s.pad_end.end());
    for (int64_t d : s.dilations) dil.push_back(d - 1);  // oneDNN counts the gaps
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    const memory::desc bias = impl->requantization.attach(attr, requantization, memory::desc({s.channels_out}, DataType::s32, Tag::x));
    if (s.transposed) {
      const dnnl::deconvolution_forward::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::deconvolution_direct, impl->src,
                                                   any_weights, bias, impl->dst, strides, dil, pl, pr);
      const dnnl::deconvolution_forward::primitive_desc pd(desc, attr, eng);
      impl->weights = pd.weights_desc();
      impl->scratchpad = pd.scratchpad_desc();
      impl->implementation = pd.impl_info_str();
      impl->conv = dnnl::deconvolution_forward(pd);
    } else {
      const dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, impl->src,
                                                 any_weights, bias, impl->dst, strides, dil, pl, pr);
      const dnnl::convolution_forward::primitive_desc pd(desc, attr, eng);
      impl->weights = pd.weights_desc();
      impl->scratchpad = pd.scratchpad_desc();
      impl->implementation = pd.impl_info_str();
      impl->conv = dnnl::convolution_forward(pd);
    }
    return std::unique_ptr<Int8ConvPrimitive>(new Int8ConvPrimitive(std::move(impl)));
  } catch (const dnnl::error&) {
    return nullptr;  // no implementation for this shape
  }
}

void Int8ConvPrimitive::set_weights(const int8_t* w) { impl_->packed = pack_weights(impl_->user_weights, impl_->weights, w); }

void Int8ConvPrimitive::run(const int8_t* x, int32_t* acc) const {
  const auto sum = [&](const void* source, int32_t* sums) {
    execute(impl_->conv, impl_->scratchpad,
            {{DNNL_ARG_SRC, memory(impl_->src, cpu_engine(), const_cast<void*>(source))}, {DNNL_ARG_WEIGHTS, impl_->packed},
             {DNNL_ARG_DST, memory(impl_->dst, cpu_engine(), sums)}});
  };
  if (impl_->src.data_type() == DataType::s8) sum(x, acc);
  else sum_by_sign(x, impl_->src_values, acc, impl_->acc_values, sum);
}

void Int8ConvPrimitive::run_requantized(const int8_t* x, int8_t* y) const {
  execute(impl_->conv, impl_->scratchpad,
          {{DNNL_ARG_SRC, memory(impl_->src, cpu_engine(), const_cast<int8_t*>(x))}, {DNNL_ARG_WEIGHTS, impl_->packed},
           {DNNL_ARG_BIAS, impl_->requantization.bias}, {DNNL_ARG_DST, memory(impl_->dst, cpu_engine(), y)}});
}

bool Int8ConvPrimitive::requantizes() const { return impl_->requantization.present(); }

std::string Int8ConvPrimitive::implementation() const { return impl_->implementation; }

struct Int8MatmulPrimitive::Impl {
  dnnl::matmul matmul;
  memory::desc src, dst, user_weights, weights, scratchpad;
  memory packed;
  RequantizationBias requantization;
  std::string implementation;
  int64_t src_values = 0, acc_values = 0;
};

Int8MatmulPrimitive::Int8MatmulPrimitive(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Int8MatmulPrimitive::~Int8MatmulPrimitive() = default;

std::unique_ptr<Int8MatmulPrimitive> Int8MatmulPrimitive::create(int64_t rows, int64_t k, int64_t n, bool trans_b,
                                                                const Int8Requantization* requantization) {
  if (rows <= 0 || k <= 0 || n <= 0) return nullptr;
  try {
    auto impl = std::make_unique<Impl>();
    const dnnl::engine& eng = cpu_engine();
    impl->src = memory::desc({rows, k}, source_type(), Tag::ab);
    impl->dst = memory::desc({rows, n}, requantization ? DataType::s8 : DataType::s32, Tag::ab);
    impl->src_values = rows * k;
    impl->acc_values = rows * n;
    impl->user_weights = memory::desc({k, n}, DataType::s8, trans_b ? Tag::ba : Tag::ab);
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    const memory::desc bias = impl->requantization.attach(attr, requantization, memory::desc({1, n}, DataType::s32, Tag::ab));
    std::unique_ptr<dnnl::matmul::primitive_desc> pd;
    try {
      pd = std::make_unique<dnnl::matmul::primitive_desc>(
          dnnl::matmul::desc(impl->src, memory::desc({k, n}, DataType::s8, Tag::any), bias, impl->dst), attr, eng);
    } catch (const dnnl::error&) {  // no packed layout for this shape: the user's
      pd = std::make_unique<dnnl::matmul::primitive_desc>(dnnl::matmul::desc(impl->src, impl->user_weights, bias, impl->dst), attr, eng);
    }
    impl->weights = pd->weights_desc();
    impl->scratchpad = pd->scratchpad_desc();
    impl->implementation = pd->impl_info_str();
    impl->matmul = dnnl::matmul(*pd);
    return std::unique_ptr<Int8MatmulPrimitive>(new Int8MatmulPrimitive(std::move(impl)));
  } catch (const dnnl::error&) {
    return nullptr;
  }
}

void Int8MatmulPrimitive::set_weights(const int8_t* w) { impl_->packed = pack_weights(impl_->user_weights, impl_->weights, w); }

void Int8MatmulPrimitive::run(const int8_t* x, int32_t* acc) const {
  const auto sum = [&](const void* source, int32_t* sums) {
    execute(impl_->matmul, impl_->scratchpad,
            {{DNNL_ARG_SRC, memory(impl_->src, cpu_engine(), const_cast<void*>(source))}, {DNNL_ARG_WEIGHTS, impl_->packed},
             {DNNL_ARG_DST, memory(impl_->dst, cpu_engine(), sums)}});
  };
  if (impl_->src.data_type() == DataType::s8) sum(x, acc);
  else sum_by_sign(x, impl_->src_values, acc, impl_->acc_values, sum);
}

void Int8MatmulPrimitive::run_requantized(const int8_t* x, int8_t* y) const {
  execute(impl_->matmul, impl_->scratchpad,
          {{DNNL_ARG_SRC, memory(impl_->src, cpu_engine(), const_cast<int8_t*>(x))}, {DNNL_ARG_WEIGHTS, impl_->packed},
           {DNNL_ARG_BIAS, impl_->requantization.bias}, {DNNL_ARG_DST, memory(impl_->dst, cpu_engine(), y)}});
}

bool Int8MatmulPrimitive::requantizes() const { return impl_->requantization.present(); }

std::string Int8MatmulPrimitive::implementation() const { return impl_->implementation; }

struct Int8BatchedMatmulPrimitive::Impl {
  dnnl::matmul matmul;
  memory::desc a, b, dst, scratchpad;
};

Int8BatchedMatmulPrimitive::Int8BatchedMatmulPrimitive(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Int8BatchedMatmulPrimitive::~Int8BatchedMatmulPrimitive() = default;

std::unique_ptr<Int8BatchedMatmulPrimitive> Int8BatchedMatmulPrimitive::create(int64_t batch, int64_t m, int64_t k, int64_t n) {
  if (batch <= 0 || m <= 0 || k <= 0 || n <= 0) return nullptr;
  try {
    auto impl = std::make_unique<Impl>();
    impl->a = memory::desc({batch, m, k}, source_type(), Tag::abc);
    impl->b = memory::desc({batch, k, n}, DataType::s8, Tag::abc);
    impl->dst = memory::desc({batch, m, n}, DataType::s32, Tag::abc);
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(impl->a, impl->b, impl->dst), attr, cpu_engine());
    impl->scratchpad = pd.scratchpad_desc();
    impl->matmul = dnnl::matmul(pd);
    return std::unique_ptr<Int8BatchedMatmulPrimitive>(new Int8BatchedMatmulPrimitive(std::move(impl)));
  } catch (const dnnl::error&) {
    return nullptr;
  }
}

void Int8BatchedMatmulPrimitive::run(const int8_t* a, const int8_t* b, int32_t* acc) const {
  const auto sum = [&](const void* source, int32_t* sums) {
    execute(impl_->matmul, impl_->scratchpad,
            {{DNNL_ARG_SRC, memory(impl_->a, cpu_engine(), const_cast<void*>(source))},
             {DNNL_ARG_WEIGHTS, memory(impl_->b, cpu_engine(), const_cast<int8_t*>(b))}, {DNNL_ARG_DST, memory(impl_->dst, cpu_engine(), sums)}});
  };
  if (impl_->a.data_type() == DataType::s8) sum(a, acc);
  else sum_by_sign(a, int64_t(impl_->a.get_size()), acc, int64_t(impl_->dst.get_size() / sizeof(int32_t)), sum);
}

}  // namespace q8
