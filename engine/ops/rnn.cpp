// RNN (opsets 7, 14): h = f(xWᵀ + hRᵀ + Wb + Rb), f Tanh by default, per direction. The walk over
// time, layouts and sequence lengths are recurrent.h's.
#include <algorithm>

#include "engine/ops/recurrent.h"

namespace q8 {

namespace {

class Rnn final : public Op {
 public:
  Rnn(RecurrentAttrs a, size_t outputs) : a_(std::move(a)), outputs_(outputs) {}
  std::vector<Tensor> run(const Inputs& in) const override {
    return run_recurrent(in, a_, 1, false, outputs_, "RNN", [&](const Inputs&) -> RecurrentCell {
      const int64_t H = a_.hidden;
      return [this, H](const Direction& d, const float* xw, float* h, float*, int64_t) {
        std::vector<float> g(xw, xw + H);
        for (int64_t j = 0; j < H; ++j) g[size_t(j)] += d.rb[size_t(j)];
        add_recurrent_product(h, d.r, H, H, g.data());
        const RecurrentActivation& f = a_.activations[size_t(d.index)];
        for (int64_t k = 0; k < H; ++k) h[k] = f(a_.clip > 0 ? std::clamp(g[size_t(k)], -a_.clip, a_.clip) : g[size_t(k)]);
      };
    });
  }

 private:
  RecurrentAttrs a_;
  size_t outputs_;
};

}  // namespace

std::unique_ptr<Op> create_rnn(const Node& node, const OpContext&) {
  return std::make_unique<Rnn>(read_recurrent_attrs(node, {"Tanh"}), node.outputs.size());
}

}  // namespace q8
