// What RNN, GRU and LSTM share (docs/ops.md, "Recurrent layers"): attributes, the activation
// functions ONNX names, the layouts of X and the outputs, sequence lengths, and the walk over
// time in each direction. Each op supplies its cell: the gates of one time step of one direction.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "engine/ops/op.h"

namespace q8 {

// One activation ONNX's recurrent ops name ("Sigmoid", "Tanh", "Relu", "LeakyRelu", …) with its
// alpha and beta.
struct RecurrentActivation {
  std::string name;
  float alpha = 0, beta = 0;
  float operator()(float x) const;
};

struct RecurrentAttrs {
  int64_t hidden = 0;
  int directions = 1;    // 2 for bidirectional
  bool reverse = false;  // direction "reverse" (one direction, walked from the end)
  bool batch_first = false;  // layout = 1 (opset 14)
  float clip = 0;            // > 0: gate pre-activations clipped to [−clip, clip]
  std::vector<RecurrentActivation> activations;  // per direction, the op's count each
};

// Reads hidden_size, direction, layout, clip and activations (the op's defaults when absent:
// `per_direction` names, repeated for a second direction).
RecurrentAttrs read_recurrent_attrs(const Node& node, const std::vector<std::string>& per_direction);

// The inputs of one direction for a cell: the input projection of every step, X·Wᵀ + Wb
// ([seq, batch, gates·H]), R ([gates·H, H]), Rb ([gates·H]), and extra per-op slices.
struct Direction {
  std::vector<float> xw;        // [seq, batch, gates·H], step t, batch b at (t·batch + b)·gates·H
  const float* r = nullptr;     // [gates·H, H]
  std::vector<float> rb;        // [gates·H], zeros when B is absent
  int index = 0;                // 0 forward (or the one direction), 1 backward
};

// A cell: given the direction, the batch row b, the previous hidden state h (and cell state c
// for LSTM, else empty) and the step's input projection xw (gates·H values), writes the new h
// (and c) in place.
using RecurrentCell = std::function<void(const Direction& d, const float* xw, float* h, float* c, int64_t b)>;

// Runs the op: inputs X, W, R, B, sequence_lens, initial_h (and for LSTM initial_c, P: `cell_state`),
// `gates` gate blocks per direction, B holding 2·gates·H per direction (Wb then Rb). Returns Y,
// Y_h (and Y_c) as ONNX lays them out for `outputs` node outputs.
std::vector<Tensor> run_recurrent(const Inputs& in, const RecurrentAttrs& a, int gates, bool cell_state, size_t outputs,
                                  const char* op, const std::function<RecurrentCell(const Inputs&)>& make_cell);

// v(x·Wᵀ-shaped) helpers for cells: out[j] += Σ_k h[k]·r[j·H + k] for j < rows.
void add_recurrent_product(const float* h, const float* r, int64_t rows, int64_t hidden, float* out);

}  // namespace q8
