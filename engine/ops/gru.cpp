// GRU (opsets 7, 14): gates z, r, h (W, R and B in that order), activations f, g (Sigmoid, Tanh
// by default) per direction:
//   z = f(xW_z + hR_z + b), r = f(xW_r + hR_r + b),
//   h̃ = g(xW_h + (r⊙h)R_h + Rb_h + Wb_h), or with linear_before_reset g(xW_h + r⊙(hR_h + Rb_h) + Wb_h),
//   h = (1 − z)⊙h̃ + z⊙h.
// The walk over time, layouts and sequence lengths are recurrent.h's.
#include <algorithm>

#include "engine/ops/recurrent.h"

namespace q8 {

namespace {

class Gru final : public Op {
 public:
  Gru(RecurrentAttrs a, bool linear_before_reset, size_t outputs)
      : a_(std::move(a)), linear_before_reset_(linear_before_reset), outputs_(outputs) {}
  std::vector<Tensor> run(const Inputs& in) const override {
    return run_recurrent(in, a_, 3, false, outputs_, "GRU", [&](const Inputs&) -> RecurrentCell {
      const int64_t H = a_.hidden;
      return [this, H](const Direction& d, const float* xw, float* h, float*, int64_t) {
        // z and r: x and h projections with both biases.
        std::vector<float> zr(xw, xw + 2 * H);
        for (int64_t j = 0; j < 2 * H; ++j) zr[size_t(j)] += d.rb[size_t(j)];
        add_recurrent_product(h, d.r, 2 * H, H, zr.data());
        const RecurrentActivation* fn = a_.activations.data() + d.index * 2;
        auto clip = [&](float v) { return a_.clip > 0 ? std::clamp(v, -a_.clip, a_.clip) : v; };
        std::vector<float> z(static_cast<size_t>(H)), r(static_cast<size_t>(H)), rh(static_cast<size_t>(H), 0.0f);
        for (int64_t k = 0; k < H; ++k) z[size_t(k)] = fn[0](clip(zr[size_t(k)])), r[size_t(k)] = fn[0](clip(zr[size_t(H + k)]));
        const float* rh_weights = d.r + 2 * H * H;
        if (linear_before_reset_) {
          add_recurrent_product(h, rh_weights, H, H, rh.data());
          for (int64_t k = 0; k < H; ++k) rh[size_t(k)] = r[size_t(k)] * (rh[size_t(k)] + d.rb[size_t(2 * H + k)]);
        } else {
          std::vector<float> reset(static_cast<size_t>(H));
          for (int64_t k = 0; k < H; ++k) reset[size_t(k)] = r[size_t(k)] * h[k];
          add_recurrent_product(reset.data(), rh_weights, H, H, rh.data());
          for (int64_t k = 0; k < H; ++k) rh[size_t(k)] += d.rb[size_t(2 * H + k)];
        }
        for (int64_t k = 0; k < H; ++k) {
          const float cand = fn[1](clip(xw[2 * H + k] + rh[size_t(k)]));
          h[k] = (1.0f - z[size_t(k)]) * cand + z[size_t(k)] * h[k];
        }
      };
    });
  }

 private:
  RecurrentAttrs a_;
  bool linear_before_reset_;
  size_t outputs_;
};

}  // namespace

std::unique_ptr<Op> create_gru(const Node& node, const OpContext&) {
  return std::make_unique<Gru>(read_recurrent_attrs(node, {"Sigmoid", "Tanh"}), node.attr_int("linear_before_reset", 0) != 0,
                               node.outputs.size());
}

}  // namespace q8
