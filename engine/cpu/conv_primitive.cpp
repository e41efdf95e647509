#include "engine/cpu/conv_primitive.h"

#include <dnnl.hpp>

#include <algorithm>
#include <map>
#include <thread>
#include <unordered_map>
#include <mutex>
#include <numeric>

#include "engine/cpu/onednn_context.h"
#include "engine/cpu/parallel.h"
#include "engine/cpu/threads.h"

namespace q8 {

namespace {

using dnnl::memory;
using Tag = memory::format_tag;

const dnnl::engine& cpu_engine() { return onednn_engine(); }
dnnl::stream& thread_stream() { return onednn_stream(); }

// A float32 memory descriptor whose logical dims are stored in `order` (outermost first).
memory::desc strided_desc(const memory::dims& dims, const std::vector<int>& order) { return ordered_desc(dims, memory::data_type::f32, order); }

std::vector<int> identity_order(size_t rank) {
  std::vector<int> order(rank);
  std::iota(order.begin(), order.end(), 0);
  return order;
}

// [1, C, spatial…] stored NCHW-style (plain) or channels-last.
memory::desc activation_desc(int64_t channels, const Dims& spatial, bool channels_last) {
  memory::dims dims{1, channels};
  dims.insert(dims.end(), spatial.begin(), spatial.end());
  std::vector<int> order = identity_order(dims.size());
  if (channels_last) std::rotate(order.begin() + 1, order.begin() + 2, order.end());  // 0, 2, 3, …, 1
  return strided_desc(dims, order);
}

// Per-thread scratch for one sample's channels-last input and output and oneDNN's scratchpad.
struct SampleScratch {
  std::vector<float> src, dst;
  std::vector<uint8_t> pad;
};

// v with at least n elements, grown only: every convolution of a run shares these buffers, and a
// resize down then up again zero-filled the regrown part at every layer (a tenth of MobileNetV2's
// FP32 run on two threads went to memset).
template <typename T>
T* at_least(std::vector<T>& v, size_t n) {
  if (v.size() < n) v.resize(n);
  return v.data();
}
SampleScratch& thread_scratch() {
  static thread_local SampleScratch scratch;
  return scratch;
}

}  // namespace

struct ConvPrimitive::Impl {
  dnnl::primitive conv, to_channels_last, to_plain, z_to_channels_last;
  memory::desc plain_src, plain_dst, src, dst, weights, user_weights, bias;
  memory packed_weights, bias_memory;
  size_t scratchpad_bytes = 0;
  bool single_in = false, single_out = false;  // x / y needs no reorder: one channel, or channels-last
  bool sum = false;                             // the epilogue adds z, which dst holds beforehand

  // The memory objects and argument lists run_sample hands oneDNN, made once per thread and
  // primitive; each sample only points them at its data (making them per sample cost about a
  // tenth of fashion_cnn's time on one thread).
  struct SampleArgs {
    memory src, dst, pad, user_src, user_z, user_dst;
    std::unordered_map<int, memory> conv, to_last, z_to_last, to_plain;
  };
  mutable std::mutex args_mutex;
  mutable std::map<std::thread::id, std::unique_ptr<SampleArgs>> args_by_thread;

  SampleArgs& sample_args() const {
    std::lock_guard<std::mutex> lock(args_mutex);
    std::unique_ptr<SampleArgs>& a = args_by_thread[std::this_thread::get_id()];
    if (a) return *a;
    a = std::make_unique<SampleArgs>();
    const dnnl::engine& eng = cpu_engine();
    a->src = memory(src, eng, nullptr), a->dst = memory(dst, eng, nullptr), a->pad = memory(scratchpad, eng, nullptr);
    a->user_src = memory(plain_src, eng, nullptr), a->user_z = memory(plain_dst, eng, nullptr), a->user_dst = memory(plain_dst, eng, nullptr);
    a->conv = {{DNNL_ARG_SRC, a->src}, {DNNL_ARG_WEIGHTS, packed_weights}, {DNNL_ARG_BIAS, bias_memory}, {DNNL_ARG_DST, a->dst},
               {DNNL_ARG_SCRATCHPAD, a->pad}};
    a->to_last = {{DNNL_ARG_FROM, a->user_src}, {DNNL_ARG_TO, a->src}};
    a->z_to_last = {{DNNL_ARG_FROM, a->user_z}, {DNNL_ARG_TO, a->dst}};
    a->to_plain = {{DNNL_ARG_FROM, a->dst}, {DNNL_ARG_TO, a->user_dst}};
    return *a;
  }

  void run_sample(const float* x, const float* z, float* y) const {
    SampleScratch& s = thread_scratch();
    dnnl::stream& stream = thread_stream();
    SampleArgs& a = sample_args();
    // One channel: NCHW and channels-last hold the same bytes, so that side needs no reorder.
    // Nor does a channels-last side.
    a.src.set_data_handle(single_in ? const_cast<float*>(x) : at_least(s.src, src.get_size() / sizeof(float)));
    a.dst.set_data_handle(single_out ? y : at_least(s.dst, dst.get_size() / sizeof(float)));
    a.pad.set_data_handle(at_least(s.pad, std::max<size_t>(scratchpad_bytes, 1)));
    if (!single_in) {
      a.user_src.set_data_handle(const_cast<float*>(x));
      to_channels_last.execute(stream, a.to_last);
    }
    if (sum && single_out && z != y) std::copy(z, z + plain_dst.get_size() / sizeof(float), y);
    if (sum && !single_out) {
      a.user_z.set_data_handle(const_cast<float*>(z));
      z_to_channels_last.execute(stream, a.z_to_last);
    }
    conv.execute(stream, a.conv);
    if (!single_out) {
      a.user_dst.set_data_handle(y);
      to_plain.execute(stream, a.to_plain);
    }
    stream.wait();
  }

  memory::desc scratchpad;
  const memory::desc& conv_scratchpad_desc() const { return scratchpad; }
};

ConvPrimitive::ConvPrimitive(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ConvPrimitive::~ConvPrimitive() = default;

std::unique_ptr<ConvPrimitive> ConvPrimitive::create(const ConvShape& s) {
  const size_t rank = s.in_spatial.size();
  if (rank < 1 || rank > 3 || s.channels_in <= 0 || s.channels_out <= 0) return nullptr;
  if (numel(s.in_spatial) <= 0 || numel(s.out_spatial) <= 0) return nullptr;
  try {
    auto impl = std::make_unique<Impl>();
    const dnnl::engine& eng = cpu_engine();
    impl->plain_src = activation_desc(s.channels_in, s.in_spatial, false);
    impl->plain_dst = activation_desc(s.channels_out, s.out_spatial, false);
    impl->src = activation_desc(s.channels_in, s.in_spatial, true);
    impl->dst = activation_desc(s.channels_out, s.out_spatial, true);
    // Logical weight dims: [G,] O/g, I/g, k… ; ONNX stores Conv as O, I/g, k… and
    // ConvTranspose as I, O/g, k… (per group: I/g, O/g, k…).
    const int64_t g = s.group, og = s.channels_out / g, ig = s.channels_in / g;
    memory::dims wdims;
    if (g > 1) wdims.push_back(g);
    wdims.push_back(og);
    wdims.push_back(ig);
    wdims.insert(wdims.end(), s.kernel.begin(), s.kernel.end());
    std::vector<int> order = identity_order(wdims.size());
    const size_t o_axis = g > 1 ? 1 : 0;
    if (s.transposed) std::swap(order[o_axis], order[o_axis + 1]);
    impl->user_weights = strided_desc(wdims, order);
    const memory::desc any_weights(wdims, memory::data_type::f32, Tag::any);
    impl->bias = memory::desc({s.channels_out}, memory::data_type::f32, Tag::a);
    memory::dims strides(s.strides.begin(), s.strides.end()), dil, pl(s.pad_begin.begin(), s.pad_begin.end()),
        pr(s.pad_end.begin(), s.pad_end.end());
    for (int64_t d : s.dilations) dil.push_back(d - 1);  // oneDNN counts the gaps
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    dnnl::post_ops post;
    if (s.epilogue.sum) post.append_sum(1.0f);
    if (s.epilogue.activation == ConvEpilogue::Activation::Relu) post.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
    if (s.epilogue.activation == ConvEpilogue::Activation::Clip)
      post.append_eltwise(1.0f, dnnl::algorithm::eltwise_clip, s.epilogue.lo, s.epilogue.hi);
    attr.set_post_ops(post);
    if (s.transposed) {
      const dnnl::deconvolution_forward::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::deconvolution_direct,
                                                   impl->src, any_weights, impl->bias, impl->dst, strides, dil, pl, pr);
      const dnnl::deconvolution_forward::primitive_desc pd(desc, attr, eng);
      impl->weights = pd.weights_desc();
      impl->scratchpad = pd.scratchpad_desc();
      impl->conv = dnnl::deconvolution_forward(pd);
    } else {
      const dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                                 impl->src, any_weights, impl->bias, impl->dst, strides, dil, pl, pr);
      const dnnl::convolution_forward::primitive_desc pd(desc, attr, eng);
      impl->weights = pd.weights_desc();
      impl->scratchpad = pd.scratchpad_desc();
      impl->conv = dnnl::convolution_forward(pd);
    }
    impl->scratchpad_bytes = impl->scratchpad.get_size();
    impl->single_in = s.channels_in == 1 || s.channels_last;
    impl->single_out = s.channels_out == 1 || s.channels_last;
    impl->to_channels_last = dnnl::reorder(dnnl::reorder::primitive_desc(eng, impl->plain_src, eng, impl->src));
    impl->to_plain = dnnl::reorder(dnnl::reorder::primitive_desc(eng, impl->dst, eng, impl->plain_dst));
    impl->sum = s.epilogue.sum;
    if (impl->sum) impl->z_to_channels_last = dnnl::reorder(dnnl::reorder::primitive_desc(eng, impl->plain_dst, eng, impl->dst));
    impl->packed_weights = memory(impl->weights, eng);
    impl->bias_memory = memory(impl->bias, eng);
    return std::unique_ptr<ConvPrimitive>(new ConvPrimitive(std::move(impl)));
  } catch (const dnnl::error&) {
    return nullptr;  // no implementation for this shape
  }
}

void ConvPrimitive::set_weights(const float* w, const float* bias) {
  const dnnl::engine& eng = cpu_engine();
  dnnl::stream& stream = thread_stream();
  memory user(impl_->user_weights, eng, const_cast<float*>(w));
  dnnl::reorder(user, impl_->packed_weights).execute(stream, user, impl_->packed_weights);
  stream.wait();
  float* dst = static_cast<float*>(impl_->bias_memory.get_data_handle());
  const size_t channels = impl_->bias.get_size() / sizeof(float);
  if (bias) std::copy(bias, bias + channels, dst);
  else std::fill(dst, dst + channels, 0.0f);  // no bias: add zeros
}

void ConvPrimitive::run(const float* x, const float* z, float* y, int64_t samples) const {
  const int64_t in_floats = int64_t(impl_->plain_src.get_size() / sizeof(float));
  const int64_t out_floats = int64_t(impl_->plain_dst.get_size() / sizeof(float));
  // Enough samples for every thread: one sample per thread at a time, each single-threaded.
  // Fewer: one sample at a time on every thread. Either way the same kernel computes every
  // output element the same way (docs/cpu.md).
  if (samples >= compute_threads() && samples > 1) {
    parallel_for(samples, 1, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) impl_->run_sample(x + i * in_floats, z ? z + i * out_floats : nullptr, y + i * out_floats);
    });
    return;
  }
  for (int64_t i = 0; i < samples; ++i) impl_->run_sample(x + i * in_floats, z ? z + i * out_floats : nullptr, y + i * out_floats);
}

struct ConvPrimitiveCache::Entry {
  ConvShape shape;
  int threads = 0;
  std::unique_ptr<ConvPrimitive> primitive;  // null: oneDNN cannot
  const float* weights = nullptr;            // what was packed (constant weights only)
  const float* bias = nullptr;
};

ConvPrimitiveCache::ConvPrimitiveCache(bool constant_weights) : constant_weights_(constant_weights) {}
ConvPrimitiveCache::~ConvPrimitiveCache() = default;

namespace {
bool same_shape(const ConvShape& a, const ConvShape& b) {
  return a.transposed == b.transposed && a.channels_last == b.channels_last && a.epilogue == b.epilogue && a.channels_in == b.channels_in && a.channels_out == b.channels_out &&
         a.group == b.group && a.in_spatial == b.in_spatial && a.out_spatial == b.out_spatial && a.kernel == b.kernel &&
         a.strides == b.strides && a.dilations == b.dilations && a.pad_begin == b.pad_begin && a.pad_end == b.pad_end;
}
}  // namespace

bool ConvPrimitiveCache::run(const ConvShape& shape, const float* x, const float* w, const float* bias, const float* z,
                             float* y, int64_t samples) {
  const int threads = compute_threads();
  Entry* entry = nullptr;
  for (auto& e : entries_)
    if (e->threads == threads && same_shape(e->shape, shape)) entry = e.get();
  if (!entry) {
    entries_.push_back(std::make_unique<Entry>());
    entry = entries_.back().get();
    entry->shape = shape;
    entry->threads = threads;
    entry->primitive = ConvPrimitive::create(shape);
  }
  if (!entry->primitive) return false;
  if (!constant_weights_ || entry->weights != w || entry->bias != bias) {
    entry->primitive->set_weights(w, bias);
    entry->weights = w;
    entry->bias = bias;
  }
  entry->primitive->run(x, z, y, samples);
  return true;
}

}  // namespace q8
