// A dense, row-major tensor whose buffer may be shared by views (Reshape, Identity, Squeeze).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "engine/ir/dtype.h"
#include "engine/ir/error.h"

namespace q8 {

// memcpy for n bytes that may be 0, where the pointers of empty tensors may be null.
inline void copy_bytes(void* dst, const void* src, size_t n) {
  if (n) std::memcpy(dst, src, n);
}

// A concrete shape. Every dimension is known (>= 0).
using Dims = std::vector<int64_t>;

// The element count; an Error when it overflows 64 bits.
int64_t numel(const Dims& dims);
// The most bytes one tensor may take: Q8_MAX_MEMORY_GIB, else the machine's physical memory.
// A larger tensor is an Error saying what it needs, not std::bad_alloc.
size_t memory_limit_bytes();
// The bytes of a tensor of dtype and dims, after checking dims (non-negative, no overflow) and the limit.
size_t checked_bytes(DType dtype, const Dims& dims);
std::string dims_to_string(const Dims& dims);  // "1x3x224x224"; "scalar" for rank 0

// A tensor's type and shape without its data: what shapes are worked out from before a run.
struct TensorDesc {
  DType dtype = DType::Undefined;  // Undefined: an absent input
  Dims dims;

  bool operator==(const TensorDesc&) const = default;
};

class Tensor {
 public:
  Tensor() = default;
  // Allocates dtype × dims, zero-filled.
  Tensor(DType dtype, Dims dims);
  // Allocates without filling: for outputs whose every element the caller writes (saves a pass
  // over memory in memory-bound ops).
  static Tensor uninitialized(DType dtype, Dims dims);

  template <typename T>
  static Tensor from_vector(const Dims& dims, const std::vector<T>& values);
  template <typename T>
  static Tensor scalar(T value) { return from_vector<T>({}, {value}); }

  bool empty() const { return dtype_ == DType::Undefined; }
  DType dtype() const { return dtype_; }
  const Dims& dims() const { return dims_; }
  int64_t dim(size_t i) const { return dims_[i]; }
  size_t rank() const { return dims_.size(); }
  int64_t numel() const { return q8::numel(dims_); }
  size_t nbytes() const { return size_t(numel()) * dtype_size(dtype_); }
  TensorDesc desc() const { return {dtype_, dims_}; }

  std::byte* raw() { return buffer_.get(); }
  const std::byte* raw() const { return buffer_.get(); }

  template <typename T> T* data() { check_type(dtype_of<T>()); return reinterpret_cast<T*>(raw()); }
  template <typename T> const T* data() const {
    check_type(dtype_of<T>());
    return reinterpret_cast<const T*>(raw());
  }
  template <typename T> std::span<const T> values() const { return {data<T>(), size_t(numel())}; }
  template <typename T> std::span<T> values() { return {data<T>(), size_t(numel())}; }

  // A tensor of dtype × dims on arena's bytes from offset (which must hold it); it keeps the
  // arena's buffer alive.
  static Tensor view(const Tensor& arena, size_t offset, DType dtype, Dims dims);
  // A tensor on bytes another owner holds (a numpy array's), which `owner` keeps alive for as long
  // as the tensor or a view of it lives: no copy. The bytes must hold dtype × dims.
  static Tensor borrowed(DType dtype, Dims dims, std::byte* data, std::shared_ptr<void> owner);
  // A tensor held in a device's memory through handle (an OpenCL buffer), which it keeps alive;
  // its bytes are not on the host, and data() refuses it.
  static Tensor on_device(DType dtype, Dims dims, std::shared_ptr<void> handle);
  bool on_device() const { return handle_ != nullptr; }
  void* device_handle() const { return handle_.get(); }

  // Whether this tensor's bytes lie inside [begin, begin + size).
  bool lies_in(const std::byte* begin, size_t size) const;

  // A view with other dims and the same buffer; numel must match.
  Tensor reshaped(const Dims& dims) const;
  // A deep copy.
  Tensor clone() const;
  // A float16 tensor's values as float32, or a float32 tensor's as float16 (rounded to nearest
  // even); any other pair is an Error.
  Tensor widened() const;
  Tensor narrowed() const;

  // Integer contents (int32 or int64 tensors), as used by shape-carrying inputs.
  std::vector<int64_t> to_int64s() const;
  // Contents converted to float (any numeric dtype).
  std::vector<float> to_floats() const;
  // Element i converted to double (any dtype).
  double element_as_double(int64_t i) const;

 private:
  void check_type(DType wanted) const;

  DType dtype_ = DType::Undefined;
  Dims dims_;
  std::shared_ptr<std::byte[]> buffer_;
  std::shared_ptr<void> handle_;  // a device tensor's buffer
};

template <typename T>
Tensor Tensor::from_vector(const Dims& dims, const std::vector<T>& values) {
  Tensor t(dtype_of<T>(), dims);
  check(int64_t(values.size()) == t.numel(), "tensor of " + dims_to_string(dims) + " given " +
                                                 std::to_string(values.size()) + " values");
  std::copy(values.begin(), values.end(), t.data<T>());
  return t;
}

}  // namespace q8
