#include "engine/ops/recurrent.h"

#include <algorithm>
#include <cmath>

#include "engine/cpu/gemm.h"
#include "engine/ops/elementwise.h"

namespace q8 {

float RecurrentActivation::operator()(float x) const {
  if (name == "Sigmoid") return 1.0f / (1.0f + std::exp(-x));
  if (name == "Tanh") return std::tanh(x);
  if (name == "Relu") return std::max(x, 0.0f);
  if (name == "Affine") return alpha * x + beta;
  if (name == "LeakyRelu") return x >= 0 ? x : alpha * x;
  if (name == "ThresholdedRelu") return x > alpha ? x : 0.0f;
  if (name == "ScaledTanh") return alpha * std::tanh(beta * x);
  if (name == "HardSigmoid") return std::clamp(alpha * x + beta, 0.0f, 1.0f);
  if (name == "Elu") return x >= 0 ? x : alpha * std::expm1(x);
  if (name == "Softsign") return x / (1.0f + std::fabs(x));
  return std::log1p(std::exp(x));  // Softplus (the names are checked when read)
}

namespace {
// ONNX's default alpha and beta for the activations that take them.
void set_defaults(RecurrentActivation& f) {
  if (f.name == "LeakyRelu") f.alpha = 0.01f;
  if (f.name == "ThresholdedRelu" || f.name == "Elu") f.alpha = 1.0f;
  if (f.name == "ScaledTanh") f.alpha = 1.0f, f.beta = 1.0f;
  if (f.name == "HardSigmoid") f.alpha = 0.2f, f.beta = 0.5f;
  if (f.name == "Affine") f.alpha = 1.0f;
}
}  // namespace

RecurrentAttrs read_recurrent_attrs(const Node& node, const std::vector<std::string>& per_direction) {
  RecurrentAttrs a;
  check(node.has("hidden_size") && node.attr_int("hidden_size", 0) > 0, node.describe() + ": attribute 'hidden_size' must be positive");
  a.hidden = node.attr_int("hidden_size", 0);
  const std::string dir = node.attr_string("direction", "forward");
  check(dir == "forward" || dir == "reverse" || dir == "bidirectional",
        node.describe() + ": direction '" + dir + "' is not forward, reverse or bidirectional");
  a.directions = dir == "bidirectional" ? 2 : 1;
  a.reverse = dir == "reverse";
  a.batch_first = node.attr_int("layout", 0) == 1;
  a.clip = node.attr_float("clip", 0.0f);
  std::vector<std::string> names;
  if (node.has("activations")) {
    const Attribute& at = node.attributes.at("activations");
    names = at.strings;
  } else {
    for (int d = 0; d < a.directions; ++d) names.insert(names.end(), per_direction.begin(), per_direction.end());
  }
  check(names.size() == per_direction.size() * size_t(a.directions),
        node.describe() + ": activations names " + std::to_string(names.size()) + " functions, " +
            std::to_string(per_direction.size() * size_t(a.directions)) + " wanted");
  const std::vector<float> alphas = node.attr_floats("activation_alpha"), betas = node.attr_floats("activation_beta");
  size_t next_alpha = 0, next_beta = 0;
  for (const std::string& n : names) {
    RecurrentActivation f{n};
    static const char* const known[] = {"Sigmoid", "Tanh", "Relu", "Affine", "LeakyRelu", "ThresholdedRelu", "ScaledTanh",
                                        "HardSigmoid", "Elu", "Softsign", "Softplus"};
    check(std::find_if(std::begin(known), std::end(known), [&](const char* k) { return n == k; }) != std::end(known),
          node.describe() + ": activation '" + n + "' is not one ONNX defines");
    set_defaults(f);
    const bool takes_alpha = n == "Affine" || n == "LeakyRelu" || n == "ThresholdedRelu" || n == "ScaledTanh" || n == "HardSigmoid" || n == "Elu";
    const bool takes_beta = n == "Affine" || n == "ScaledTanh" || n == "HardSigmoid";
    if (takes_alpha && next_alpha < alphas.size()) f.alpha = alphas[next_alpha++];
    if (takes_beta && next_beta < betas.size()) f.beta = betas[next_beta++];
    a.activations.push_back(f);
  }
  return a;
}

void add_recurrent_product(const float* h, const float* r, int64_t rows, int64_t hidden, float* out) {
  for (int64_t j = 0; j < rows; ++j) {
    float acc = 0;
    const float* rj = r + j * hidden;
    for (int64_t k = 0; k < hidden; ++k) acc += h[k] * rj[k];
    out[j] += acc;
  }
}

std::vector<Tensor> run_recurrent(const Inputs& in, const RecurrentAttrs& a, int gates, bool cell_state, size_t outputs,
                                  const char* op, const std::function<RecurrentCell(const Inputs&)>& make_cell) {
  const Tensor& x = float_input(in, 0, op, "X");
  const Tensor& w = float_input(in, 1, op, "W");
  const Tensor& r = float_input(in, 2, op, "R");
  check(x.rank() == 3, std::string(op) + ": X must be 3-D, got " + dims_to_string(x.dims()));
  const int64_t seq = a.batch_first ? x.dim(1) : x.dim(0), batch = a.batch_first ? x.dim(0) : x.dim(1), input = x.dim(2);
  const int64_t H = a.hidden, G = gates * H, D = a.directions;
  check(w.dims() == Dims{D, G, input}, std::string(op) + ": W is " + dims_to_string(w.dims()) + ", want " + dims_to_string({D, G, input}));
  check(r.dims() == Dims{D, G, H}, std::string(op) + ": R is " + dims_to_string(r.dims()) + ", want " + dims_to_string({D, G, H}));
  const Tensor* bias = optional_input(in, 3);
  if (bias) check(bias->dtype() == DType::Float32 && bias->dims() == Dims{D, 2 * G}, std::string(op) + ": B is " + dims_to_string(bias->dims()) +
                                                                                   ", want " + dims_to_string({D, 2 * G}));
  std::vector<int64_t> lens(size_t(batch), seq);
  if (const Tensor* s = optional_input(in, 4)) {
    lens = s->to_int64s();
    check(int64_t(lens.size()) == batch, std::string(op) + ": sequence_lens has " + std::to_string(lens.size()) + " values for batch " +
                                             std::to_string(batch));
    for (int64_t l : lens) check(l >= 0 && l <= seq, std::string(op) + ": sequence length " + std::to_string(l) + " is outside [0, " + std::to_string(seq) + "]");
  }
  // Initial states, [D, batch, H] (layout 1: [batch, D, H]).
  auto initial = [&](size_t slot, const char* what) {
    std::vector<float> s(size_t(D * batch * H), 0.0f);
    if (const Tensor* t = optional_input(in, slot)) {
      check(t->dtype() == DType::Float32 && t->numel() == D * batch * H, std::string(op) + ": " + what + " is " + dims_to_string(t->dims()));
      for (int64_t d = 0; d < D; ++d)
        for (int64_t b = 0; b < batch; ++b)
          for (int64_t k = 0; k < H; ++k)
            s[size_t((d * batch + b) * H + k)] = t->data<float>()[a.batch_first ? (b * D + d) * H + k : (d * batch + b) * H + k];
    }
    return s;
  };
  std::vector<float> h = initial(5, "initial_h"), c = cell_state ? initial(6, "initial_c") : std::vector<float>{};
  const RecurrentCell cell = make_cell(in);
  // X as [seq, batch, input].
  std::vector<float> xs(size_t(x.numel()));
  for (int64_t t = 0; t < seq; ++t)
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t i = 0; i < input; ++i)
        xs[size_t((t * batch + b) * input + i)] = x.data<float>()[a.batch_first ? (b * seq + t) * input + i : (t * batch + b) * input + i];
  std::vector<float> y(size_t(seq * D * batch * H), 0.0f);  // [seq, D, batch, H]
  for (int64_t d = 0; d < D; ++d) {
    Direction dir;
    dir.index = int(d);
    dir.r = r.data<float>() + d * G * H;
    dir.rb.assign(size_t(G), 0.0f);
    dir.xw.assign(size_t(seq * batch * G), 0.0f);
    if (seq * batch > 0)
      sgemm(false, true, seq * batch, G, input, 1.0f, xs.data(), input, w.data<float>() + d * G * input, input, 0.0f, dir.xw.data(), G);
    if (bias) {
      const float* wb = bias->data<float>() + d * 2 * G;
      for (int64_t g = 0; g < G; ++g) dir.rb[size_t(g)] = wb[G + g];
      for (int64_t row = 0; row < seq * batch; ++row)
        for (int64_t g = 0; g < G; ++g) dir.xw[size_t(row * G + g)] += wb[g];
    }
    const bool backward = a.reverse || d == 1;
    for (int64_t b = 0; b < batch; ++b) {
      float* hb = h.data() + (d * batch + b) * H;
      float* cb = cell_state ? c.data() + (d * batch + b) * H : nullptr;
      for (int64_t step = 0; step < lens[size_t(b)]; ++step) {
        const int64_t t = backward ? lens[size_t(b)] - 1 - step : step;
        cell(dir, dir.xw.data() + (t * batch + b) * G, hb, cb, b);
        std::copy(hb, hb + H, y.data() + ((t * D + d) * batch + b) * H);
      }
    }
  }
  std::vector<Tensor> out;
  Tensor ty(DType::Float32, a.batch_first ? Dims{batch, seq, D, H} : Dims{seq, D, batch, H});
  for (int64_t t = 0; t < seq; ++t)
    for (int64_t d = 0; d < D; ++d)
      for (int64_t b = 0; b < batch; ++b)
        std::copy_n(y.data() + ((t * D + d) * batch + b) * H, H,
                    ty.data<float>() + (a.batch_first ? ((b * seq + t) * D + d) * H : ((t * D + d) * batch + b) * H));
  out.push_back(std::move(ty));
  auto state = [&](const std::vector<float>& s) {
    Tensor t(DType::Float32, a.batch_first ? Dims{batch, D, H} : Dims{D, batch, H});
    for (int64_t d = 0; d < D; ++d)
      for (int64_t b = 0; b < batch; ++b)
        std::copy_n(s.data() + (d * batch + b) * H, H, t.data<float>() + (a.batch_first ? (b * D + d) * H : (d * batch + b) * H));
    return t;
  };
  // A sequence of length 0 ends in zero states (as ONNX Runtime gives them), not its initial ones.
  for (int64_t b = 0; b < batch; ++b)
    if (lens[size_t(b)] == 0)
      for (int64_t d = 0; d < D; ++d) {
        std::fill_n(h.data() + (d * batch + b) * H, H, 0.0f);
        if (cell_state) std::fill_n(c.data() + (d * batch + b) * H, H, 0.0f);
      }
  if (outputs > 1) out.push_back(state(h));
  if (outputs > 2 && cell_state) out.push_back(state(c));
  return out;
}

}  // namespace q8
