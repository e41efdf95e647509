#include "engine/ir/tensor.h"

#include <malloc.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <functional>
#include <mutex>
#include <new>

namespace q8 {

int64_t numel(const Dims& dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    if (__builtin_mul_overflow(n, d, &n)) throw Error("shape " + dims_to_string(dims) + " has more elements than 64 bits can count");
  return n;
}

size_t memory_limit_bytes() {
  static const size_t limit = [] {
    if (const char* gib = std::getenv("Q8_MAX_MEMORY_GIB")) {
      char* end = nullptr;
      const double v = std::strtod(gib, &end);
      check(end != gib && *end == 0 && v > 0 && v < 1e9, std::string("Q8_MAX_MEMORY_GIB '") + gib + "' is not a positive number");
      return size_t(v * double(1ull << 30));
    }
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
    return pages > 0 && page > 0 ? size_t(pages) * size_t(page) : SIZE_MAX;
  }();
  return limit;
}

std::string dims_to_string(const Dims& dims) {
  if (dims.empty()) return "scalar";
  std::string s;
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "x" : "") + std::to_string(dims[i]);
  return s;
}

namespace {
// Large tensors are allocated and freed once per node per run. glibc would map and unmap each
// through mmap, paying page faults every time; keeping them on the heap lets runs reuse memory.
void keep_large_blocks_on_heap() {
  static std::once_flag once;
  std::call_once(once, [] {
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
  });
}

// 64-byte aligned storage (at least one byte, so empty tensors still own a buffer), zero-filled
// unless the caller writes every byte.
std::shared_ptr<std::byte[]> allocate(size_t nbytes, bool zero) {
  keep_large_blocks_on_heap();
  const size_t size = (std::max<size_t>(nbytes, 1) + 63) / 64 * 64;
  auto* p = static_cast<std::byte*>(::operator new[](size, std::align_val_t(64)));
  if (zero) std::memset(p, 0, size);
  return std::shared_ptr<std::byte[]>(p, [](std::byte* q) { ::operator delete[](q, std::align_val_t(64)); });
}
}  // namespace

// The bytes a tensor of this shape needs, after checking the shape and the memory limit.
size_t checked_bytes(DType dtype, const Dims& dims) {
  for (int64_t d : dims) check(d >= 0, "negative dimension in shape " + dims_to_string(dims));
  const int64_t n = numel(dims);
  size_t bytes = 0;
  check(!__builtin_mul_overflow(size_t(n), dtype_size(dtype), &bytes), "shape " + dims_to_string(dims) + " needs more bytes than 64 bits can count");
  if (bytes > memory_limit_bytes()) {
    char msg[160];
    std::snprintf(msg, sizeof msg, "needs %.3g GiB, limit %.3g GiB (set with Q8_MAX_MEMORY_GIB)", double(bytes) / double(1ull << 30),
                  double(memory_limit_bytes()) / double(1ull << 30));
    throw Error("a " + std::string(dtype_name(dtype)) + " tensor of shape " + dims_to_string(dims) + " " + msg);
  }
  return bytes;
}

Tensor::Tensor(DType dtype, Dims dims) : dtype_(dtype), dims_(std::move(dims)) {
  buffer_ = allocate(checked_bytes(dtype_, dims_), true);
}

Tensor Tensor::uninitialized(DType dtype, Dims dims) {
  Tensor t;
  t.dtype_ = dtype, t.dims_ = std::move(dims);
  t.buffer_ = allocate(checked_bytes(t.dtype_, t.dims_), false);
  return t;
}

Tensor Tensor::view(const Tensor& arena, size_t offset, DType dtype, Dims dims) {
  Tensor t;
  t.dtype_ = dtype, t.dims_ = std::move(dims);
  const size_t bytes = checked_bytes(t.dtype_, t.dims_);
  check(offset <= arena.nbytes() && bytes <= arena.nbytes() - offset,
        "a view of " + std::to_string(bytes) + " bytes at " + std::to_string(offset) + " does not fit an arena of " +
            std::to_string(arena.nbytes()));
  t.buffer_ = std::shared_ptr<std::byte[]>(arena.buffer_, arena.buffer_.get() + offset);
  return t;
}

Tensor Tensor::borrowed(DType dtype, Dims dims, std::byte* data, std::shared_ptr<void> owner) {
  Tensor t;
  t.dtype_ = dtype, t.dims_ = std::move(dims);
  checked_bytes(t.dtype_, t.dims_);
  t.buffer_ = std::shared_ptr<std::byte[]>(std::move(owner), data);
  return t;
}

Tensor Tensor::on_device(DType dtype, Dims dims, std::shared_ptr<void> handle) {
  Tensor t;
  t.dtype_ = dtype, t.dims_ = std::move(dims);
  checked_bytes(t.dtype_, t.dims_);
  t.handle_ = std::move(handle);
  return t;
}

bool Tensor::lies_in(const std::byte* begin, size_t size) const {
  const std::byte* p = raw();
  return p && size && std::less_equal<>()(begin, p) && std::less<>()(p, begin + size);
}

Tensor Tensor::reshaped(const Dims& dims) const {
  check(q8::numel(dims) == numel(), "cannot view a tensor of " + dims_to_string(dims_) + " as " +
                                        dims_to_string(dims));
  Tensor view = *this;
  view.dims_ = dims;
  return view;
}

Tensor Tensor::clone() const {
  Tensor copy(dtype_, dims_);
  if (nbytes()) copy_bytes(copy.raw(), raw(), nbytes());
  return copy;
}

Tensor Tensor::widened() const {
  Tensor out = uninitialized(DType::Float32, dims_);
  const Float16* src = data<Float16>();
  float* dst = out.data<float>();
  for (int64_t i = 0; i < numel(); ++i) dst[i] = half_to_float(src[i]);
  return out;
}

Tensor Tensor::narrowed() const {
  Tensor out = uninitialized(DType::Float16, dims_);
  const float* src = data<float>();
  Float16* dst = out.data<Float16>();
  for (int64_t i = 0; i < numel(); ++i) dst[i] = float_to_half(src[i]);
  return out;
}

void Tensor::check_type(DType wanted) const {
  // On every data<T>() call: the messages are built only when a check fails.
  if (handle_) throw Error("a tensor in device memory was read on the host");
  if (dtype_ != wanted) throw Error("tensor holds " + std::string(dtype_name(dtype_)) + ", read as " + std::string(dtype_name(wanted)));
}

double Tensor::element_as_double(int64_t i) const {
  return visit_dtype(dtype_, [&]<typename T>() -> double {
    const T v = reinterpret_cast<const T*>(raw())[i];
    if constexpr (std::is_same_v<T, Float16>) return half_to_float(v);
    else return double(v);
  });
}

std::vector<int64_t> Tensor::to_int64s() const {
  check(dtype_ == DType::Int64 || dtype_ == DType::Int32,
        "expected an int64 or int32 tensor, got " + std::string(dtype_name(dtype_)));
  std::vector<int64_t> out(static_cast<size_t>(numel()));
  for (int64_t i = 0; i < numel(); ++i) out[size_t(i)] = int64_t(element_as_double(i));
  if (dtype_ == DType::Int64) copy_bytes(out.data(), raw(), nbytes());  // exact beyond 2^53
  return out;
}

std::vector<float> Tensor::to_floats() const {
  std::vector<float> out(static_cast<size_t>(numel()));
  for (int64_t i = 0; i < numel(); ++i) out[size_t(i)] = float(element_as_double(i));
  return out;
}

}  // namespace q8
