// LSTM (opsets 7, 14): gates i, o, f, c (W, R and B in that order), peepholes P (i, o, f),
// activations f, g, h (Sigmoid, Tanh, Tanh by default) per direction:
//   i = f(xWᵢ + hRᵢ + Pᵢ⊙c + b), f' = f(xW_f + hR_f + P_f⊙c + b), c̃ = g(xW_c + hR_c + b),
//   c = f'⊙c + i⊙c̃, o = f(xW_o + hR_o + P_o⊙c + b), h = o⊙h(c);
// input_forget = 1 couples the forget gate to the input gate (f' = 1 − i). The walk over time,
// layouts and sequence lengths are recurrent.h's.
#include <algorithm>

#include "engine/ops/recurrent.h"

namespace q8 {

namespace {

class Lstm final : public Op {
 public:
  Lstm(RecurrentAttrs a, bool input_forget, size_t outputs) : a_(std::move(a)), input_forget_(input_forget), outputs_(outputs) {}
  std::vector<Tensor> run(const Inputs& in) const override {
    return run_recurrent(in, a_, 4, true, outputs_, "LSTM", [&](const Inputs& args) -> RecurrentCell {
      const int64_t H = a_.hidden;
      const Tensor* p = optional_input(args, 7);
      if (p) check(p->dtype() == DType::Float32 && p->numel() == a_.directions * 3 * H, "LSTM: P is " + dims_to_string(p->dims()));
      return [this, H, p](const Direction& d, const float* xw, float* h, float* c, int64_t) {
        std::vector<float> g(xw, xw + 4 * H);
        for (int64_t j = 0; j < 4 * H; ++j) g[size_t(j)] += d.rb[size_t(j)];
        add_recurrent_product(h, d.r, 4 * H, H, g.data());
        const float* peep = p ? p->data<float>() + d.index * 3 * H : nullptr;
        const RecurrentActivation* fn = a_.activations.data() + d.index * 3;
        auto clip = [&](float v) { return a_.clip > 0 ? std::clamp(v, -a_.clip, a_.clip) : v; };
        for (int64_t k = 0; k < H; ++k) {
          const float in_gate = fn[0](clip(g[size_t(k)] + (peep ? peep[k] * c[k] : 0.0f)));
          const float forget = input_forget_ ? 1.0f - in_gate : fn[0](clip(g[size_t(2 * H + k)] + (peep ? peep[2 * H + k] * c[k] : 0.0f)));
          const float cand = fn[1](clip(g[size_t(3 * H + k)]));
          c[k] = forget * c[k] + in_gate * cand;
          const float out_gate = fn[0](clip(g[size_t(H + k)] + (peep ? peep[H + k] * c[k] : 0.0f)));
          h[k] = out_gate * fn[2](c[k]);
        }
      };
    });
  }

 private:
  RecurrentAttrs a_;
  bool input_forget_;
  size_t outputs_;
};

}  // namespace

std::unique_ptr<Op> create_lstm(const Node& node, const OpContext&) {
  return std::make_unique<Lstm>(read_recurrent_attrs(node, {"Sigmoid", "Tanh", "Tanh"}), node.attr_int("input_forget", 0) != 0,
                                node.outputs.size());
}

}  // namespace q8
