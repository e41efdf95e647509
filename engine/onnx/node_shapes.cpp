#include "engine/onnx/node_shapes.h"

#include <onnx/defs/schema.h>
#include <onnx/defs/shape_inference.h>

#include <map>

#include "engine/onnx/export.h"
#include "engine/onnx/tensor_proto.h"

namespace q8 {

namespace {

// What an inference function may ask of one node: its attributes, the inputs' types and known
// values; it writes the outputs' types.
class NodeContext final : public onnx::InferenceContext {
 public:
  NodeContext(const onnx::NodeProto& node, const std::vector<TensorDesc>& inputs, const std::vector<const Tensor*>& values)
      : input_types_(inputs.size()), input_data_(inputs.size()), has_data_(inputs.size(), false),
        output_types_(size_t(node.output_size())) {
    for (const auto& a : node.attribute()) attributes_[a.name()] = &a;
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (inputs[i].dtype == DType::Undefined) continue;
      auto* t = input_types_[i].mutable_tensor_type();
      t->set_elem_type(dtype_to_onnx(inputs[i].dtype));
      auto* shape = t->mutable_shape();
      for (int64_t d : inputs[i].dims) shape->add_dim()->set_dim_value(d);
      if (i < values.size() && values[i]) {
        tensor_to_proto(*values[i], input_data_[i]);
        has_data_[i] = true;
      }
    }
  }

  const onnx::AttributeProto* getAttribute(const std::string& name) const override {
    auto it = attributes_.find(name);
    return it == attributes_.end() ? nullptr : it->second;
  }
  size_t getNumInputs() const override { return input_types_.size(); }
  const onnx::TypeProto* getInputType(size_t i) const override {
    return i < input_types_.size() && input_types_[i].has_tensor_type() ? &input_types_[i] : nullptr;
  }
  const onnx::TensorProto* getInputData(size_t i) const override { return i < has_data_.size() && has_data_[i] ? &input_data_[i] : nullptr; }
  size_t getNumOutputs() const override { return output_types_.size(); }
  onnx::TypeProto* getOutputType(size_t i) override { return &output_types_[i]; }
  onnx::GraphInferencer* getGraphAttributeInferencer(const std::string&) override { return nullptr; }
  const onnx::SparseTensorProto* getInputSparseData(size_t) const override { return nullptr; }
  const onnx::TensorShapeProto* getSymbolicInput(size_t) const override { return nullptr; }

  const onnx::TypeProto& output(size_t i) const { return output_types_[i]; }

 private:
  std::map<std::string, const onnx::AttributeProto*> attributes_;
  std::vector<onnx::TypeProto> input_types_;
  std::vector<onnx::TensorProto> input_data_;
  std::vector<bool> has_data_;
  std::vector<onnx::TypeProto> output_types_;
};

// A fully known tensor type, else nullopt.
std::optional<TensorDesc> desc_of(const onnx::TypeProto& type) {
  if (!type.has_tensor_type() || !type.tensor_type().has_shape() || type.tensor_type().elem_type() == 0) return std::nullopt;
  TensorDesc d;
  try {
    d.dtype = dtype_from_onnx(type.tensor_type().elem_type(), "an inferred output");
  } catch (const Error&) {
    return std::nullopt;
  }
  for (const auto& dim : type.tensor_type().shape().dim()) {
    if (!dim.has_dim_value() || dim.dim_value() < 0) return std::nullopt;
    d.dims.push_back(dim.dim_value());
  }
  return d;
}

}  // namespace

std::vector<std::optional<TensorDesc>> infer_with_schema(const Node& node, int64_t opset, const std::vector<TensorDesc>& inputs,
                                                         const std::vector<const Tensor*>& values) {
  std::vector<std::optional<TensorDesc>> out(node.outputs.size());
  if (!node.domain.empty() && node.domain != "ai.onnx") return out;
  const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(node.op_type, int(opset), "");
  if (!schema || !schema->has_type_and_shape_inference_function()) return out;
  // If, Loop and Scan infer from their subgraphs, which this one-node context does not hold.
  for (const auto& [name, a] : node.attributes)
    if (a.kind == Attribute::Kind::Graph) return out;
  onnx::NodeProto proto;
  node_to_proto(node, proto);
  NodeContext context(proto, inputs, values);
  try {
    schema->GetTypeAndShapeInferenceFunction()(context);
  } catch (const onnx::InferenceError& e) {
    throw Error(std::string(e.what()));
  }
  for (size_t i = 0; i < out.size(); ++i) out[i] = desc_of(context.output(i));
  return out;
}

}  // namespace q8
