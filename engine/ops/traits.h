// What every layer needs to know about an op, declared once per op type (traits.inc): calibration
// derives observers from `values`, the quantization rules and the lowering treat an op that
// commutes with QuantizeLinear as a scale carrier, devices pass the buffer of a `view`, the layout
// pass reads `layout`, value types follow `output`, and an op no rule quantizes stays FP32 for
// `fp32_reason`. No layer keeps its own list of op names (STYLE.md 16); a test requires every
// registered op to have traits, and in every layer an entry or a stated reason
// (tests/ops/op_traits_test.cpp).
#pragma once

#include <set>
#include <span>
#include <string>
#include <string_view>

#include "engine/ir/graph_index.h"

namespace q8 {

// How an op's output values relate to its input 0's.
enum class Values {
  Computed,    // new values
  Rearranged,  // exactly input 0's values, moved (Identity, Reshape, Transpose…): calibration copies input 0's observer
  Relu,        // max(x, 0) of input 0: calibration derives it from input 0's signed histogram
};

// How an op takes part in a channels-last region (engine/passes' layout pass).
enum class Layout {
  None,        // stays channels-first
  Conv,        // a channels-last kernel of its own for 2-D windows; weights and bias stay as they are
               // (domain q8: the same op with channels_last = 1)
  Pool,        // a channels-last kernel of its own for 2-D windows
  Unary,       // follows input 0: an elementwise op of one data input
  Broadcast,   // follows every input: an elementwise op of several (one-element constants broadcast either way)
  Channels,    // follows its inputs when it joins them along the channels (Concat)
  GlobalPool,  // follows input 0 and has a channels-last op of its own (GlobalAveragePool)
};

// The element type of an output.
enum class Output {
  Input0,          // input 0's
  Input1,          // input 1's (Where, CastLike)
  Input2,          // input 2's (OneHot's values)
  Bool,            // comparisons
  Int64,           // shapes and indices
  Float32,         // DequantizeLinear
  CastTo,          // Cast's `to`
  ZeroPoint,       // QuantizeLinear: its zero point's, uint8 without one
  ValueAttribute,  // ConstantOfShape: its `value`'s, float32 without one
  DtypeAttribute,  // EyeLike: its `dtype`, input 0's without one
  Subgraph,        // If: its then_branch's output of that position; Loop: its body's (after cond)
  Int8,            // the q8 domain's QAdd, QConcat and MulQuantize
  Int8OrBias,      // QConv, QConvTranspose, QGemm: int8, or float32 when their bias is float32 and no y_scale quantizes
                   // a GELU epilogue's output
  Int8ByMultiplier,  // QMatMul: int8 with a multiplier attribute, float32 with a scale
};

// Whether Q(op(x)) = op(Q(x)) for this node of index's graph under symmetric per-tensor
// quantization (zero point 0): always for ops that only select, move or copy values and keep
// zeros zeros; with a predicate for some (Resize must be nearest, Pad must pad with zeros).
// `why` says why not.
using Commutes = bool (*)(const Node& node, const GraphIndex& index, std::string& why);

struct OpTraits {
  std::string_view domain = "";
  std::string_view op_type = "";
  Values values = Values::Computed;
  Commutes commutes = nullptr;   // nullptr: never
  bool view = false;             // output 0 is input 0's buffer with other dims
  Layout layout = Layout::None;
  // A Layout::Conv op's input added to its output (FusedConv's Z, QConv's residual): inside a
  // channels-last region it comes channels-last too. -1 for none.
  int summed_input = -1;
  Output output = Output::Input0;          // output 0's type
  Output other_outputs = Output::Input0;   // outputs 1…'s (TopK's indices, Dropout's mask)
  // Why the quantization and the lowering leave the op in FP32 when no rule of theirs takes it
  // ("" for ops that have rules or commute with quantization).
  std::string_view fp32_reason = "";
  // An input that holds a value of input 0's kind (Pad's constant_value): on int8 it is quantized
  // with input 0's scale. -1 for none.
  int value_input = -1;
  // Reads input 0's dims only, never its values (Shape, Size, EyeLike).
  bool dims_only = false;
  // The newest opset after 17 (libonnx's newest) in which ONNX changed the op's inputs, attributes
  // or meaning; 0 for none. From there libonnx's older schema does not describe the op.
  int changed_after_17 = 0;
};

// The traits of an op type, or nullptr for an op q8 does not register.
const OpTraits* find_traits(std::string_view domain, std::string_view op_type);
const OpTraits* find_traits(const Node& node);
std::span<const OpTraits> op_traits();

// Why node stays FP32 where no rule takes it: its traits' reason, else "no INT8 rule for <op>".
std::string fp32_reason(const Node& node);

// The values of graph that do not depend on the data fed to it: initializers, Constant outputs,
// and outputs of nodes (without subgraphs) whose inputs are all such values or are read for
// their dims only (a Shape of an activation). They are known once the input shapes are: masks,
// position ids, anchors, a broadcast class token. Calibration does not observe them, and the
// quantization rules treat them as constants (docs/quantization.md, "Values known without the data").
std::set<std::string> data_independent_values(const Graph& graph);

// Whether node of index's graph commutes with quantization (its traits, then its predicate);
// `why` says why not.
bool commutes_with_quantize(const Node& node, const GraphIndex& index, std::string& why);

}  // namespace q8
