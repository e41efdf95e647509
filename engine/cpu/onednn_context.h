// What every oneDNN door of the CPU kernels shares: the one CPU engine, a stream per thread, and
// memory descriptors of dims stored in a given order.
#pragma once

#include <dnnl.hpp>

#include <vector>

namespace q8 {

const dnnl::engine& onednn_engine();
// The calling thread's stream on onednn_engine().
dnnl::stream& onednn_stream();
// A descriptor whose logical dims are stored in `order` (outermost first).
dnnl::memory::desc ordered_desc(const dnnl::memory::dims& dims, dnnl::memory::data_type type, const std::vector<int>& order);

}  // namespace q8
