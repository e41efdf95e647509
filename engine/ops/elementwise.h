// Building blocks shared by the elementwise ops: unary float maps, broadcasting binary ops,
// comparisons. Each op's own file supplies its formula and registers it.
#pragma once

#include <cmath>
#include <memory>
#include <string>

#include "engine/cpu/parallel.h"
#include "engine/ops/broadcast.h"
#include "engine/ops/op.h"

namespace q8 {

// y = f(x) elementwise on a float32 (or float16, computed in float32) tensor. `wide`, when set,
// writes the same values as f for a leading part of a float32 range and returns its length.
template <typename F>
class UnaryFloatOp final : public Op {
 public:
  using WideFn = int64_t (*)(const float*, float*, int64_t);
  UnaryFloatOp(const char* name, F f, WideFn wide = nullptr) : name_(name), f_(f), wide_(wide) {}
  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = required_input(in, 0, name_, "X");
    if (x.dtype() == DType::Float16) {
      Tensor y(DType::Float16, x.dims());
      const Float16* src = x.data<Float16>();
      Float16* dst = y.data<Float16>();
      for (int64_t i = 0; i < x.numel(); ++i) dst[i] = float_to_half(f_(half_to_float(src[i])));
      return {std::move(y)};
    }
    check(x.dtype() == DType::Float32, std::string(name_) + ": input type " +
                                           std::string(dtype_name(x.dtype())) + " is not supported (float32 only)");
    Tensor y = Tensor::uninitialized(DType::Float32, x.dims());
    const float* src = x.data<float>();
    float* dst = y.data<float>();
    const int64_t n = x.numel();
    parallel_for(n, kParallelGrain, [&](int64_t b, int64_t e) {
      const int64_t wide = wide_ ? wide_(src + b, dst + b, e - b) : 0;
      for (int64_t i = b + wide; i < e; ++i) dst[i] = f_(src[i]);
    });
    return {std::move(y)};
  }

 private:
  const char* name_;
  F f_;
  WideFn wide_;
};

template <typename F>
std::unique_ptr<Op> make_unary(const char* name, F f, typename UnaryFloatOp<F>::WideFn wide = nullptr) {
  return std::make_unique<UnaryFloatOp<F>>(name, f, wide);
}

// Applies f elementwise over numpy-broadcast a and b of the same dtype, writing TOut.
template <typename TIn, typename TOut, typename F>
Tensor broadcast_binary(const Tensor& a, const Tensor& b, DType out_type, const char* op, F f) {
  Tensor y = Tensor::uninitialized(out_type, broadcast_dims(a.dims(), b.dims(), op));
  const TIn* pa = a.data<TIn>();
  const TIn* pb = b.data<TIn>();
  TOut* py = y.data<TOut>();
  if (a.dims() == b.dims()) {
    const int64_t n = y.numel();
    parallel_for(n, kParallelGrain, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) py[i] = f(pa[i], pb[i]);
    });
    return y;
  }
  if (y.numel() == 0) return y;
  const BroadcastPlan plan = plan_broadcast(y.dims(), {&a.dims(), &b.dims()});
  // A row where each operand runs along or stays put (a LayerNorm's x / σ per row, x ^ 2) gets a
  // loop the compiler vectorizes; f sees the same values either way.
  using Offsets = std::array<int64_t, 2>;
  broadcast_rows<2>(plan, [&](int64_t o, const Offsets& base, const Offsets& step, int64_t inner) {
    const TIn* ra = pa + base[0];
    const TIn* rb = pb + base[1];
    TOut* ry = py + o;
    if (step[0] == 1 && step[1] == 1) {
      for (int64_t j = 0; j < inner; ++j) ry[j] = f(ra[j], rb[j]);
    } else if (step[0] == 1 && step[1] == 0) {
      const TIn vb = *rb;
      for (int64_t j = 0; j < inner; ++j) ry[j] = f(ra[j], vb);
    } else if (step[0] == 0 && step[1] == 1) {
      const TIn va = *ra;
      for (int64_t j = 0; j < inner; ++j) ry[j] = f(va, rb[j]);
    } else {
      for (int64_t j = 0; j < inner; ++j) ry[j] = f(ra[j * step[0]], rb[j * step[1]]);
    }
  });
  return y;
}

// f(a, b) broadcast over two same-typed numeric tensors (float32, int8, uint8, int32, int64),
// in their type. F is a generic callable.
template <typename F>
Tensor arithmetic(const Tensor& a, const Tensor& b, const char* name, const F& f) {
  check(a.dtype() == b.dtype(), std::string(name) + ": inputs have different types (" + std::string(dtype_name(a.dtype())) +
                                    ", " + std::string(dtype_name(b.dtype())) + ")");
  check(a.dtype() != DType::Float16 && a.dtype() != DType::Bool,
        std::string(name) + ": input type " + std::string(dtype_name(a.dtype())) + " is not supported");
  return visit_numeric(a.dtype(), [&]<typename T>() {
    return broadcast_binary<T, T>(a, b, a.dtype(), name, [&](T x, T y) { return T(f(x, y)); });
  });
}

// An arithmetic op on two tensors (Add, Sub, Mul, Div).
template <typename F>
class BinaryArithmeticOp final : public Op {
 public:
  BinaryArithmeticOp(const char* name, F f) : name_(name), f_(f) {}
  std::vector<Tensor> run(const Inputs& in) const override {
    return {arithmetic(required_input(in, 0, name_, "A"), required_input(in, 1, name_, "B"), name_, f_)};
  }

 private:
  const char* name_;
  F f_;
};

template <typename F>
std::unique_ptr<Op> make_binary(const char* name, F f) {
  return std::make_unique<BinaryArithmeticOp<F>>(name, f);
}

// A comparison of two same-typed tensors, producing bool.
template <typename F>
class CompareOp final : public Op {
 public:
  CompareOp(const char* name, F f) : name_(name), f_(f) {}
  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& a = required_input(in, 0, name_, "A");
    const Tensor& b = required_input(in, 1, name_, "B");
    check(a.dtype() == b.dtype(), std::string(name_) + ": inputs have different types");
    if (a.dtype() == DType::Bool)
      return {broadcast_binary<bool, bool>(a, b, DType::Bool, name_, [&](bool x, bool y) { return f_(x, y); })};
    if (a.dtype() == DType::Float16)
      return {broadcast_binary<Float16, bool>(a, b, DType::Bool, name_, [&](Float16 x, Float16 y) { return f_(half_to_float(x), half_to_float(y)); })};
    return {visit_numeric(a.dtype(), [&]<typename T>() {
      return broadcast_binary<T, bool>(a, b, DType::Bool, name_, [&](T x, T y) { return f_(x, y); });
    })};
  }

 private:
  const char* name_;
  F f_;
};

template <typename F>
std::unique_ptr<Op> make_compare(const char* name, F f) {
  return std::make_unique<CompareOp<F>>(name, f);
}

// An op over any number of inputs folded pairwise with broadcasting (Min, Max, Sum).
template <typename F>
class VariadicOp final : public Op {
 public:
  VariadicOp(const char* name, F f) : name_(name), f_(f) {}
  std::vector<Tensor> run(const Inputs& in) const override {
    check(!in.empty() && in[0], std::string(name_) + ": needs at least one input");
    if (in[0]->dtype() == DType::Float16) return {run_as_float(in)};
    Tensor acc = in[0]->clone();
    check(acc.dtype() != DType::Bool, std::string(name_) + ": input type bool is not supported");
    for (size_t i = 1; i < in.size(); ++i) acc = arithmetic(acc, required_input(in, i, name_, "data"), name_, f_);
    return {std::move(acc)};
  }

 private:
  // float16 inputs: computed in float32, rounded back to float16.
  Tensor run_as_float(const Inputs& in) const {
    std::vector<Tensor> widened;
    Inputs args;
    for (const Tensor* t : in) {
      check(t && t->dtype() == DType::Float16, std::string(name_) + ": inputs have different types");
      Tensor f(DType::Float32, t->dims());
      for (int64_t i = 0; i < t->numel(); ++i) f.data<float>()[i] = half_to_float(t->data<Float16>()[i]);
      widened.push_back(std::move(f));
    }
    for (const Tensor& t : widened) args.push_back(&t);
    const Tensor r = run(args)[0];
    Tensor out(DType::Float16, r.dims());
    for (int64_t i = 0; i < r.numel(); ++i) out.data<Float16>()[i] = float_to_half(r.data<float>()[i]);
    return out;
  }

  const char* name_;
  F f_;
};

template <typename F>
std::unique_ptr<Op> make_variadic(const char* name, F f) {
  return std::make_unique<VariadicOp<F>>(name, f);
}

// y = f(x) elementwise in x's own type: float32, float16 (computed in float32) or an integer type
// (Abs, Neg, Sign). F is a generic callable.
template <typename F>
class UnaryNumericOp final : public Op {
 public:
  UnaryNumericOp(const char* name, F f) : name_(name), f_(f) {}
  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = required_input(in, 0, name_, "X");
    check(x.dtype() != DType::Bool, std::string(name_) + ": input type bool is not supported");
    Tensor y = Tensor::uninitialized(x.dtype(), x.dims());
    if (x.dtype() == DType::Float16) {
      for (int64_t i = 0; i < x.numel(); ++i) y.data<Float16>()[i] = float_to_half(float(f_(half_to_float(x.data<Float16>()[i]))));
      return {std::move(y)};
    }
    visit_numeric(x.dtype(), [&]<typename T>() {
      const T* src = x.data<T>();
      T* dst = y.data<T>();
      parallel_for(x.numel(), kParallelGrain, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) dst[i] = T(f_(src[i]));
      });
    });
    return {std::move(y)};
  }

 private:
  const char* name_;
  F f_;
};

template <typename F>
std::unique_ptr<Op> make_unary_numeric(const char* name, F f) {
  return std::make_unique<UnaryNumericOp<F>>(name, f);
}

// A bool predicate of each element of a float32 or float16 tensor (IsNaN, IsInf).
template <typename F>
class FloatPredicateOp final : public Op {
 public:
  FloatPredicateOp(const char* name, F f) : name_(name), f_(f) {}
  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = required_input(in, 0, name_, "X");
    check(x.dtype() == DType::Float32 || x.dtype() == DType::Float16,
          std::string(name_) + ": input type " + std::string(dtype_name(x.dtype())) + " is not supported (float32, float16)");
    Tensor y = Tensor::uninitialized(DType::Bool, x.dims());
    bool* dst = y.data<bool>();
    for (int64_t i = 0; i < x.numel(); ++i)
      dst[i] = f_(x.dtype() == DType::Float16 ? half_to_float(x.data<Float16>()[i]) : x.data<float>()[i]);
    return {std::move(y)};
  }

 private:
  const char* name_;
  F f_;
};

template <typename F>
std::unique_ptr<Op> make_float_predicate(const char* name, F f) {
  return std::make_unique<FloatPredicateOp<F>>(name, f);
}

// A logical op of two bool tensors with numpy broadcasting (And, Or, Xor).
template <typename F>
class LogicalOp final : public Op {
 public:
  LogicalOp(const char* name, F f) : name_(name), f_(f) {}
  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& a = required_input(in, 0, name_, "A");
    const Tensor& b = required_input(in, 1, name_, "B");
    check(a.dtype() == DType::Bool && b.dtype() == DType::Bool, std::string(name_) + ": inputs must be bool, got " +
                                                                   std::string(dtype_name(a.dtype())) + " and " + std::string(dtype_name(b.dtype())));
    return {broadcast_binary<bool, bool>(a, b, DType::Bool, name_, [&](bool x, bool y) { return f_(x, y); })};
  }

 private:
  const char* name_;
  F f_;
};

template <typename F>
std::unique_ptr<Op> make_logical(const char* name, F f) {
  return std::make_unique<LogicalOp<F>>(name, f);
}

// Input i as a float32 tensor of a op, or an Error naming the op.
const Tensor& float_input(const Inputs& in, size_t i, const char* op, const char* what);

}  // namespace q8
