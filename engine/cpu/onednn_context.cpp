#include "engine/cpu/onednn_context.h"

namespace q8 {

const dnnl::engine& onednn_engine() {
  static const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

dnnl::stream& onednn_stream() {
  static thread_local dnnl::stream stream(onednn_engine());
  return stream;
}

dnnl::memory::desc ordered_desc(const dnnl::memory::dims& dims, dnnl::memory::data_type type, const std::vector<int>& order) {
  dnnl::memory::dims strides(dims.size());
  dnnl::memory::dim stride = 1;
  for (size_t i = order.size(); i-- > 0;) {
    strides[size_t(order[i])] = stride;
    stride *= dims[size_t(order[i])];
  }
  return dnnl::memory::desc(dims, type, strides);
}

}  // namespace q8
