// DQ(x), DQ(w) → Conv | ConvTranspose | Gemm | MatMul (+ bias, or a MatMul's bias Add) [→
// Relu/Clip… | Add(DQ(r)) [→ Relu/Clip…] | GELU, Swish, HardSwish or Sigmoid] → Q  becomes one
// QConv, QConvTranspose or QGemm with int8 output; with no Q after it, one with FP32 output
// (docs/quantization.md, "Requantization" and "Activations in the epilogue").
#include <cmath>

#include "engine/ir/weight_axis.h"
#include "engine/plan/reference/backend.h"
#include "engine/plan/rules/rule.h"

namespace q8 {

namespace {

// The int8 weight and its C_out per-output-channel scales (ConvTranspose: expanded from the
// C_out/g scales of axis 1, docs/quantization.md "ConvTranspose").
struct Weight {
  std::string name;
  Tensor q;                     // int8 (storage shared with the graph's constant)
  bool quantized_here = false;  // from an FP32 weight behind QuantizeLinear: a new constant
  std::vector<float> scales;  // C_out
  int64_t k = 0;              // taps per output element (the accumulator's K)
};

// A constant FP32 weight behind a QuantizeLinear (q8 quantize --fp32-weights), quantized here by
// the QuantizeLinear op itself, so the int8 values are exactly those the QDQ model computes.
std::optional<Tensor> quantize_constant(const QdqGraph& g, const std::string& value) {
  const int p = g.producer(value);
  if (p < 0 || g.node(p).op_type != "QuantizeLinear" || !g.node(p).domain.empty()) return std::nullopt;
  const Node& q = g.node(p);
  Inputs in;
  for (const std::string& name : q.inputs) {
    const Tensor* t = name.empty() ? nullptr : g.graph().constant(name);
    if (!name.empty() && !t) return std::nullopt;
    in.push_back(t);
  }
  OpContext ctx{g.graph().opset(), in};
  return find_op("QuantizeLinear")->create(q, ctx)->run(in).at(0);
}

// The shape the model declares for value, or for the value a chain of QuantizeLinear and
// DequantizeLinear (which keep shapes) reads it from; nullptr when none is declared.
const std::vector<Dim>* declared_shape(const QdqGraph& g, std::string value) {
  for (int hops = 0; hops < 8; ++hops) {
    if (const ValueInfo* v = g.graph().declared(value); v && v->shape) return &*v->shape;
    const int p = g.producer(value);
    if (p < 0 || (g.node(p).op_type != "QuantizeLinear" && g.node(p).op_type != "DequantizeLinear")) return nullptr;
    value = g.node(p).inputs[0];
  }
  return nullptr;
}

// Whether the model declares both shapes and they differ (a broadcasting Add, which the
// epilogue's element-by-element residual cannot take). Shapes not declared are checked when the
// fused op is reshaped, whose error names the node.
bool shapes_differ(const QdqGraph& g, const std::string& a, const std::string& b) {
  const std::vector<Dim>* da = declared_shape(g, a);
  const std::vector<Dim>* db = declared_shape(g, b);
  if (!da || !db) return false;
  if (da->size() != db->size()) return true;
  for (size_t i = 0; i < da->size(); ++i)
    if ((*da)[i].known() && (*db)[i].known() && (*da)[i].value != (*db)[i].value) return true;
  return false;
}

std::optional<Weight> read_weight(const QdqGraph& g, const Node& op, std::string& why) {
  const int d = g.producer(op.inputs[1]);
  if (d < 0 || g.node(d).op_type != "DequantizeLinear") {
    why = "its weight does not come from a DequantizeLinear";
    return std::nullopt;
  }
  const Node& dq = g.node(d);
  Weight w{dq.inputs[0], {}, false, {}, 0};
  if (const Tensor* t = g.graph().constant(dq.inputs[0])) {
    w.q = *t;
  } else if (std::optional<Tensor> t = quantize_constant(g, dq.inputs[0])) {
    w.q = *t;
    w.quantized_here = true;
    w.name = derived_name(g, op.name + ".weight_q");
  }
  if (w.q.dtype() != DType::Int8) {
    why = "its weight is not a constant int8 tensor behind " + dq.describe();
    return std::nullopt;
  }
  const std::optional<QuantParams> p = g.params(dq, why);
  if (!p) return std::nullopt;
  const std::optional<int64_t> axis = per_channel_axis(op, w.q.rank());
  if (!axis || (op.op_type == "MatMul" && w.q.rank() != 2)) {
    why = "its weight has rank " + std::to_string(w.q.rank()) + ", which has no INT8 kernel";
    return std::nullopt;
  }
  const int64_t rank = int64_t(w.q.rank()), group = op.attr_int("group", 1);
  const int64_t along = w.q.dim(size_t(*axis));
  const int64_t c_out = op.op_type == "ConvTranspose" ? along * group : along;
  if (!p->per_tensor() && ((p->axis < 0 ? p->axis + rank : p->axis) != *axis || int64_t(p->scales.size()) != along)) {
    why = "its weight scales are not per output channel along axis " + std::to_string(*axis);
    return std::nullopt;
  }
  for (int64_t o = 0; o < c_out; ++o) w.scales.push_back(p->per_tensor() ? p->scale() : p->scales[size_t(o % along)]);
  const int64_t elements = w.q.numel();
  if (op.op_type == "Conv") w.k = elements / std::max<int64_t>(c_out, 1);
  else if (op.op_type == "ConvTranspose") w.k = elements / std::max<int64_t>(along * group, 1);  // (C/g) · taps ≥ any output's terms
  else w.k = op.attr_int("transB", 0) ? w.q.dim(1) : w.q.dim(0);
  return w;
}

// The float bias of output channel c (Gemm: beta · C), or nullopt with why.
std::optional<std::vector<float>> read_bias(const QdqGraph& g, const Node& op, int64_t c_out, std::string& why) {
  std::vector<float> b(size_t(c_out), 0.0f);
  if (op.op_type == "MatMul" || op.inputs.size() < 3 || op.inputs[2].empty()) return b;
  const Tensor* t = g.graph().constant(op.inputs[2]);
  if (!t || t->dtype() != DType::Float32) {
    why = "its bias is not a constant float32 tensor";
    return std::nullopt;
  }
  const bool scalar = t->numel() == 1, row = t->numel() == c_out && (t->rank() == 1 || (t->rank() == 2 && t->dim(0) == 1));
  if (!scalar && !row) {
    why = "its bias " + dims_to_string(t->dims()) + " is not one value per output channel";
    return std::nullopt;
  }
  const float beta = op.op_type == "Gemm" ? op.attr_float("beta", 1.0f) : 1.0f;
  for (int64_t c = 0; c < c_out; ++c) b[size_t(c)] = beta * t->data<float>()[scalar ? 0 : c];
  return b;
}

// A MatMul's bias (or a Gemm's without C): the Add of a constant float32 holding one value per
// output channel along the last axis ([N] or [1, …, 1, N]) that alone reads the op's output, as
// exporters write nn.Linear on 3-D activations (docs/quantization.md, "Transformers"). Its index,
// with bias filled, or -1.
int bias_add(const QdqGraph& g, const Node& op, int64_t c_out, std::vector<float>& bias) {
  if (op.op_type != "MatMul" && !(op.op_type == "Gemm" && (op.inputs.size() < 3 || op.inputs[2].empty()))) return -1;
  const int reader = g.sole_reader(op.outputs[0]);
  if (reader < 0 || g.node(reader).op_type != "Add" || !g.node(reader).domain.empty()) return -1;
  const Node& a = g.node(reader);
  if (a.inputs.size() != 2 || a.inputs[0] == a.inputs[1]) return -1;
  const Tensor* t = g.graph().constant(a.inputs[0] == op.outputs[0] ? a.inputs[1] : a.inputs[0]);
  if (!t || t->dtype() != DType::Float32 || t->numel() != c_out || t->rank() == 0 || t->dims().back() != c_out) return -1;
  for (int64_t c = 0; c < c_out; ++c) bias[size_t(c)] += t->data<float>()[c];
  return reader;
}

// Per output channel: whether every int8 weight of it is 0 (one pass over the weight).
std::vector<bool> zero_channels(const Node& op, const Tensor& w, int64_t c_out) {
  std::vector<bool> zero(size_t(c_out), true);
  const int8_t* p = w.data<int8_t>();
  const int64_t n = w.numel();
  for (int64_t i = 0; i < n; ++i) {
    if (p[i] == 0) continue;
    int64_t channel;
    if (op.op_type == "Conv") {
      channel = i / (n / c_out);
    } else if (op.op_type == "ConvTranspose") {  // W[gi·(C/g) + ci, j, taps…] feeds o = gi·(M/g) + j
      const int64_t mg = w.dim(1), taps = n / (w.dim(0) * mg), cg = w.dim(0) / (c_out / mg);
      channel = (i / (mg * taps)) / cg * mg + (i / taps) % mg;
    } else {  // Gemm/MatMul: B[K, N] or, with transB, B[N, K]
      channel = op.attr_int("transB", 0) ? i / w.dim(1) : i % w.dim(1);
    }
    zero[size_t(channel)] = false;
  }
  return zero;
}

const char* fused_type(const std::string& op) {
  if (op == "Conv") return "QConv";
  if (op == "ConvTranspose") return "QConvTranspose";
  return "QGemm";
}

// What follows the weighted op up to its Q: Relu/Clip, or a residual Add (its other input from a
// per-tensor DQ of a non-constant value, broadcast-free) with Relu/Clip after it, either right after
// the op or after the op's own Q → DQ (rounded: the op's int8 step first), or (Conv, Gemm and
// MatMul) an activation computed in float (GELU, Swish, HardSwish, Sigmoid).
struct Epilogue {
  ActivationChain first, after_add{{}, ""};
  std::optional<EpilogueActivation> activation;  // in float
  int add = -1, residual_dq = -1;  // the Add and its other input's DequantizeLinear, or -1
  QuantParams residual;
  int own_q = -1, own_dq = -1;     // rounded: the op's own QuantizeLinear and the DequantizeLinear the Add reads
  QuantParams own_y, own_a;        // their parameters (s_y, s_a)
  bool residual_first = false;     // the residual is the Add's first input
  std::string tail;                // the value a Q must read to end the fusion
  const ActivationChain& activations() const { return add >= 0 ? after_add : first; }
};

// A residual Add that alone reads `value`: its other input a per-tensor DQ of a non-constant value
// of value's shape. Sets e's add, residual_dq, residual, residual_first, after_add and tail.
bool follow_residual_add(const QdqGraph& g, const std::string& value, Epilogue& e) {
  const int reader = g.sole_reader(value);
  if (reader < 0 || g.node(reader).op_type != "Add" || !g.node(reader).domain.empty()) return false;
  const Node& a = g.node(reader);
  if (a.inputs.size() != 2 || a.inputs[0] == a.inputs[1]) return false;
  const std::string& other = a.inputs[0] == value ? a.inputs[1] : a.inputs[0];
  std::string ignore;
  const int dr = g.per_tensor_dequantize(other, e.residual, ignore);
  if (dr < 0 || g.constant(g.node(dr).inputs[0]) || shapes_differ(g, value, other)) return false;
  e.add = reader, e.residual_dq = dr, e.residual_first = a.inputs[0] == other;
  e.after_add = follow_activations(g, a.outputs[0]);
  e.tail = e.after_add.output;
  return true;
}

// The epilogue after `out`, the output of op (or of its bias Add).
Epilogue follow_epilogue(const QdqGraph& g, const Node& op, const std::string& out) {
  Epilogue e;
  e.first = follow_activations(g, out);
  e.tail = e.first.output;
  if (!e.first.nodes.empty()) return e;
  if (op.op_type != "ConvTranspose" && (e.activation = follow_epilogue_activation(g, out))) {
    e.tail = e.activation->output;
    return e;
  }
  if (follow_residual_add(g, out, e)) return e;
  // Rounded: out → Q(s_y) → DQ(s_a) → the Add, each alone reading the one before (--add-mode both).
  const int q = sole_per_tensor_quantize(g, out, e.own_y);
  const int dq = q < 0 ? -1 : g.sole_reader(g.node(q).outputs[0]);
  std::string ignore;
  if (dq < 0 || g.node(dq).op_type != "DequantizeLinear" || g.per_tensor_dequantize(g.node(dq).outputs[0], e.own_a, ignore) != dq) return e;
  Epilogue rounded = e;
  if (!follow_residual_add(g, g.node(dq).outputs[0], rounded)) return e;
  // Only where a Q ends the sum and its ratios are ones the epilogue takes; else the op ends at its
  // own Q and the Add lowers apart (a QAdd, or FP32).
  Fusion probe;
  QuantParams z;
  if (!end_at_quantize(g, rounded.tail, probe, z)) return e;
  try {
    check_multiplier(scale_ratio(rounded.own_a.scale(), z.scale()), "A", "");
    check_multiplier(scale_ratio(rounded.residual.scale(), z.scale()), "R", "");
  } catch (const Error&) {
    return e;
  }
  // Another op's fusion took this Add (the other operand a conv's too, as a ResNet's downsampling
  // branch): this op ends at its own Q.
  if (g.taken(rounded.add) || g.taken(q) || g.taken(dq)) return e;
  rounded.own_q = q, rounded.own_dq = dq;
  return rounded;
}

// FP32 out: y = (float)acc · S[c] + b[c], S = s_x · s_w.
void finish_float_output(const QdqGraph& g, const Node& op, const Weight& w, const std::vector<float>& bias, float s_x, Fusion& f) {
  const int64_t c_out = int64_t(w.scales.size());
  Tensor b = Tensor::from_vector<float>({c_out}, bias), s(DType::Float32, {c_out});
  for (int64_t c = 0; c < c_out; ++c) s.data<float>()[c] = s_x * w.scales[size_t(c)];
  const std::string bn = derived_name(g, op.name + ".bias"), sn = derived_name(g, op.name + ".scale");
  f.initializers.emplace(bn, std::move(b));
  f.initializers.emplace(sn, std::move(s));
  f.fused.inputs.insert(f.fused.inputs.end(), {bn, sn});
}

// INT8 out: b_q and M per channel (docs/quantization.md), the guards, the clamp of the activations
// folded in, and the residual's ratio R; the epilogue's nodes join the fusion.
void finish_int8_output(const QdqGraph& g, const Node& op, const Weight& w, const std::vector<float>& bias, float s_x, float s_z,
                        const Epilogue& e, Fusion& f) {
  const bool rounded = e.own_q >= 0;
  const float s_y = rounded ? e.own_y.scale() : s_z;  // the op's own step: its Q's, or the sum's
  const int64_t c_out = int64_t(w.scales.size());
  Tensor bq(DType::Int32, {c_out}), m(DType::Float32, {c_out});
  double max_bias = 0.0;
  const std::vector<bool> zero = zero_channels(op, w.q, c_out);
  for (int64_t c = 0; c < c_out; ++c) {
    const float sw = w.scales[size_t(c)];
    double b_q;
    float mult;
    if (zero[size_t(c)]) {  // docs/quantization.md, "An all-zero weight channel": y_q = Q(b[c])
      b_q = double(round_half_even(bias[size_t(c)] / s_y));
      mult = 1.0f;
    } else {
      b_q = quantize_bias(bias[size_t(c)], s_x, sw);
      mult = requant_multiplier(s_x, sw, s_y);
      check_multiplier(mult, "M[" + std::to_string(c) + "]",
                       "s_x = " + std::to_string(s_x) + ", s_w[c] = " + std::to_string(sw) + ", s_y = " + std::to_string(s_y));
      max_bias = std::max(max_bias, std::fabs(b_q));
    }
    bq.data<int32_t>()[c] = int32_t(std::clamp(b_q, -2147483648.0, 2147483647.0));
    m.data<float>()[c] = mult;
  }
  int max_weight = 0;
  for (int64_t i = 0; i < w.q.numel(); ++i) max_weight = std::max(max_weight, std::abs(int(w.q.data<int8_t>()[i])));
  check_accumulator(w.k, max_weight, max_bias);
  const ClampBounds bounds = e.activations().bounds(g, s_z);
  f.fused.attributes["lo"] = Attribute::of_int(bounds.lo);
  f.fused.attributes["hi"] = Attribute::of_int(bounds.hi);
  const std::string bn = derived_name(g, op.name + ".bias_q"), mn = derived_name(g, op.name + ".multiplier");
  f.initializers.emplace(bn, std::move(bq));
  f.initializers.emplace(mn, std::move(m));
  f.fused.inputs.insert(f.fused.inputs.end(), {bn, mn});
  std::vector<int> chain = e.first.nodes;
  chain.insert(chain.end(), e.after_add.nodes.begin(), e.after_add.nodes.end());
  if (e.add >= 0) {
    const float ratio = scale_ratio(e.residual.scale(), s_z);
    check_multiplier(ratio, "R", "s_r = " + std::to_string(e.residual.scale()) + ", s_z = " + std::to_string(s_z));
    f.fused.inputs.push_back(g.node(e.residual_dq).inputs[0]);
    f.fused.attributes["residual_scale"] = Attribute::of_float(ratio);
    chain.push_back(e.add);
  }
  if (rounded) {  // docs/quantization.md, "Residual Add": the op's own Q and DQ join the fusion
    f.fused.attributes["sum_scale"] = Attribute::of_float(scale_ratio(e.own_a.scale(), s_z));
    if (e.residual_first) f.fused.attributes["residual_first"] = Attribute::of_int(1);
    chain.insert(chain.end(), {e.own_q, e.own_dq});
  }
  f.consumed.insert(f.consumed.end(), chain.begin(), chain.end());
}

}  // namespace

// DQ(x), DQ(w) → Conv/ConvTranspose/Gemm/MatMul → [Relu/Clip | Add(DQ(r)) → Relu/Clip] → [Q]: one
// fused op, INT8 out where a Q ends it, FP32 out where none does.
std::optional<Fusion> lower_weighted_op(const QdqGraph& g, int anchor, std::string& why) {
  const Node& op = g.node(anchor);
  if (op.inputs.size() < 2 || op.outputs.size() != 1) {
    why = "it has fewer than two inputs";
    return std::nullopt;
  }
  const float alpha = op.op_type == "Gemm" ? op.attr_float("alpha", 1.0f) : 1.0f;
  if (op.op_type == "Gemm" && (op.attr_int("transA", 0) != 0 || !(alpha > 0.0f))) {
    why = "Gemm with transA or alpha <= 0 has no INT8 kernel";
    return std::nullopt;
  }
  QuantParams x;
  const int dx = g.per_tensor_dequantize(op.inputs[0], x, why);
  if (dx < 0) return std::nullopt;
  std::optional<Weight> w = read_weight(g, op, why);
  if (!w) return std::nullopt;
  for (float& s : w->scales) s = alpha * s;  // Gemm's alpha scales the weight: s_w[c] := alpha · s_w[c]
  std::optional<std::vector<float>> bias = read_bias(g, op, int64_t(w->scales.size()), why);
  if (!bias) return std::nullopt;
  const int add = bias_add(g, op, int64_t(w->scales.size()), *bias);
  const std::string out = add >= 0 ? g.node(add).outputs[0] : op.outputs[0];

  Fusion f;
  f.fused = op;
  f.fused.domain = kInt8Domain;
  f.fused.op_type = fused_type(op.op_type);
  for (const char* drop : {"alpha", "beta", "transA"}) f.fused.attributes.erase(drop);
  f.fused.inputs = {g.node(dx).inputs[0], w->name};
  f.consumed = {anchor};
  if (add >= 0) f.consumed.push_back(add), f.fused.outputs = {out};
  if (w->quantized_here) f.initializers[w->name] = w->q;
  const Epilogue e = follow_epilogue(g, op, out);
  QuantParams y;
  const bool int8_out = end_at_quantize(g, e.tail, f, y);
  if (e.activation) {  // float b and S, the activation, then QuantizeLinear's arithmetic where a Q follows
    finish_float_output(g, op, *w, *bias, x.scale(), f);
    f.fused.attributes["activation"] = Attribute::of_string(e.activation->activation);
    if (e.activation->activation == "Gelu") f.fused.attributes["approximate"] = Attribute::of_string(e.activation->approximate);
    if (int8_out) f.fused.attributes["y_scale"] = Attribute::of_float(y.scale());
    else f.fused.outputs = {e.activation->output};
    f.consumed.insert(f.consumed.end(), e.activation->nodes.begin(), e.activation->nodes.end());
  } else if (!int8_out) {
    finish_float_output(g, op, *w, *bias, x.scale(), f);
  } else {
    finish_int8_output(g, op, *w, *bias, x.scale(), y.scale(), e, f);
  }
  return f;
}

}  // namespace q8
