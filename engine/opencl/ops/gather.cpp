#include "engine/opencl/ops/gather.h"

#include <limits>
#include <numeric>

#include "engine/opencl/args.h"
#include "engine/opencl/ops/ops.h"
#include "engine/ops/op.h"

namespace q8 {

namespace {

class ClGather final : public PreparedNode {
 public:
  ClGather(std::shared_ptr<OpenClDevice> device, const NodeView& view)
      : device_(std::move(device)), constants_(view.constants), name_(view.node.describe()) {
    Node node = view.node;
    if (node.op_type == "Pad") {  // the op runs on indices with −1 as its constant; the kernel writes the real one
      pad_ = true;
      const Tensor* value = view.opset >= 11 ? view.constant(2) : nullptr;
      fill_ = value && value->numel() > 0 ? value->clone() : Tensor::scalar<float>(node.attr_float("value", 0.0f));
      if (view.opset < 11) node.attributes["value"] = Attribute::of_float(-1.0f);
      marker_input_ = view.opset >= 11;
    }
    op_ = find_op(node.op_type)->create(node, view.op_context());
    if (view.constant(0)) data_ = device_->upload(*view.constant(0));  // a class token Expand broadcasts to the batch
    outputs_ = std::max<size_t>(1, node.outputs.size());
    for (size_t i = 1; i < view.node.inputs.size(); ++i) fixed_ = fixed_ && (!view.has_input(i) || view.constant(i));
  }

  // Parameters computed as the graph runs (a Resize's sizes from a Shape) are read on the host.
  bool takes_host_input(size_t slot) const override { return slot >= 1; }

  Reshaped reshape(const std::vector<TensorDesc>& in) override {
    input_ = in.at(0);
    if (!fixed_) return {std::vector<std::optional<TensorDesc>>(outputs_, std::nullopt), 0};  // the shapes come with the parameters' values, in run
    Inputs params(constants_.begin() + std::min<size_t>(1, constants_.size()), constants_.end());
    select(params);
    return {std::vector<std::optional<TensorDesc>>(out_.begin(), out_.end()), 0};
  }

  void run(const Inputs& in, std::vector<Tensor>& out, std::span<std::byte>) override {
    if (!fixed_) {
      std::vector<Tensor> moved;
      const Inputs params = host_parameters(*device_, in, moved);
      std::string key = dims_to_string(input_.dims);
      for (const Tensor* p : params)
        if (p) key += "|" + dims_to_string(p->dims()) + ":" + std::string(reinterpret_cast<const char*>(p->raw()), p->nbytes());
      if (key != selected_for_) select(params), selected_for_ = key;  // the same values: the same selection
    }
    const Tensor& x = data_.empty() ? *in[0] : data_;
    out.resize(out_.size());
    for (size_t o = 0; o < out_.size(); ++o) {
      out[o] = device_->allocate(out_[o].dtype, out_[o].dims);
      const cl_long count = numel(out_[o].dims);
      if (count == 0) continue;
      const bool int8 = out_[o].dtype == DType::Int8;
      const cl_kernel k = device_->kernel(pad_ ? (int8 ? "gather_fill_int8" : "gather_fill_float") : int8 ? "gather_int8" : "gather_float");
      if (!pad_) set_args(k, x, out[o], source_[o], count);
      else if (int8) set_args(k, x, out[o], source_[o], count, fill_as<int8_t, cl_char>());
      else set_args(k, x, out[o], source_[o], count, fill_as<float, cl_float>());
      device_->launch(k, {size_t(count)});
    }
  }

 private:
  // source: the CPU op run on the element indices of the input's shape, with these parameters.
  void select(const Inputs& params) {
    const int64_t n = numel(input_.dims);
    check(n <= std::numeric_limits<int32_t>::max(), name_ + ": the OpenCL gather takes up to 2^31 - 1 input elements, got " + std::to_string(n));
    Tensor indices(DType::Int32, input_.dims);
    std::iota(indices.data<int32_t>(), indices.data<int32_t>() + n, 0);
    Inputs args = {&indices};
    args.insert(args.end(), params.begin(), params.end());
    if (marker_input_) {  // Pad's constant_value, present or not, is the marker
      if (args.size() < 3) args.resize(3, nullptr);
      args[2] = &kMarker;
    }
    const std::vector<Tensor> sources = op_->run(args);
    check(sources.size() >= outputs_, name_ + ": the op gave " + std::to_string(sources.size()) + " outputs, the node has " + std::to_string(outputs_));
    out_.clear(), source_.clear();
    for (size_t o = 0; o < outputs_; ++o) {
      out_.push_back({input_.dtype, sources[o].dims()});
      source_.push_back(sources[o].numel() > 0 ? device_->upload(sources[o]) : Tensor());
    }
  }

  // Pad's constant as the data's type (an attribute's float converted as the CPU op converts it).
  template <typename T, typename Cl>
  Cl fill_as() const {
    return fill_.dtype() == DType::Float32 && !std::is_same_v<T, float> ? Cl(T(fill_.data<float>()[0])) : Cl(fill_.data<T>()[0]);
  }

  static inline const Tensor kMarker = Tensor::scalar<float>(-1.0f);  // Pad's constant while selecting
  std::shared_ptr<OpenClDevice> device_;
  std::unique_ptr<Op> op_;
  std::vector<const Tensor*> constants_;
  std::string name_;
  bool fixed_ = true;  // every parameter is a constant
  bool pad_ = false, marker_input_ = false;  // Pad; its constant an input (opset 11 on)
  Tensor fill_;
  Tensor data_;  // input 0 when it is a constant, uploaded once
  size_t outputs_ = 1;  // Split's several; one for the others
  TensorDesc input_;
  std::vector<TensorDesc> out_;  // per output
  std::string selected_for_;
  std::vector<Tensor> source_;  // per output
};

}  // namespace

Support gather_support(const NodeView& view) {
  const DType t = view.input_type(0);
  if (t != DType::Int8 && t != DType::Float32) return Support::no("runs " + view.node.op_type + " on int8 and float32 only");
  return Support::yes();
}

std::unique_ptr<PreparedNode> create_gather(std::shared_ptr<OpenClDevice> device, const NodeView& view) {
  return std::make_unique<ClGather>(std::move(device), view);
}

Support supports_Transpose(const NodeView& view, const DeviceCaps&) { return gather_support(view); }
std::unique_ptr<PreparedNode> create_Transpose(std::shared_ptr<OpenClDevice> device, const NodeView& view) {
  return create_gather(std::move(device), view);
}

namespace {

// Rows of a constant float32 table (an embedding: token, position or type ids), the table uploaded
// once; the ids, which the host holds, checked and wrapped there as the CPU Gather does, then
// uploaded as int32 (kernels/gather.cl's embedding_float).
class ClEmbedding final : public PreparedNode {
 public:
  ClEmbedding(std::shared_ptr<OpenClDevice> device, const NodeView& view)
      : device_(std::move(device)), name_(view.node.describe()), rows_(view.constant(0)->dim(0)),
        width_(view.constant(0)->numel() / std::max<int64_t>(rows_, 1)), table_(device_->upload(*view.constant(0))) {
    if (view.constant(1)) ids_ = *view.constant(1);
  }

  bool takes_host_input(size_t slot) const override { return slot == 1; }

  Reshaped reshape(const std::vector<TensorDesc>& in) override {
    Dims dims = in.at(1).dims;
    dims.push_back(width_);
    out_ = {DType::Float32, dims};
    return {{out_}, 0};
  }

  void run(const Inputs& in, std::vector<Tensor>& out, std::span<std::byte>) override {
    std::vector<Tensor> moved;
    const Tensor& ids = ids_.empty() ? *host_parameters(*device_, in, moved).at(0) : ids_;
    const std::vector<int64_t> values = ids.to_int64s();
    const Tensor rows = device_->upload_filled(DType::Int32, {int64_t(values.size())}, [&](std::byte* base, int64_t begin, int64_t end) {
      int32_t* r = reinterpret_cast<int32_t*>(base);
      for (size_t i = size_t(begin); i < size_t(end); ++i) {
        const int64_t v = values[i];
        check(v >= -rows_ && v < rows_, name_ + ": index " + std::to_string(v) + " is out of range for axis 0 of size " + std::to_string(rows_));
        r[i] = int32_t(v < 0 ? v + rows_ : v);
      }
    });
    out[0] = device_->allocate(out_.dtype, out_.dims);
    const cl_long count = numel(out_.dims);
    if (count == 0) return;
    const cl_kernel k = device_->kernel("embedding_float");
    set_args(k, table_, rows, out[0], count, cl_long(width_));
    device_->launch(k, {size_t(count)});
  }

 private:
  std::shared_ptr<OpenClDevice> device_;
  std::string name_;
  int64_t rows_, width_;
  Tensor table_, ids_;
  TensorDesc out_;
};

bool is_embedding(const NodeView& view) {
  const Tensor* table = view.constant(0);
  return table && table->dtype() == DType::Float32 && table->rank() == 2 && view.node.attr_int("axis", 0) == 0;
}

}  // namespace

// Gather of an activation (a class token's row, a head's slice), its indices constant or read on
// the host; or an embedding (rows of a constant 2-D float32 table, axis 0).
Support supports_Gather(const NodeView& view, const DeviceCaps&) {
  if (is_embedding(view)) {
    if (view.constant(0)->dim(0) > std::numeric_limits<int32_t>::max() || view.constant(0)->numel() > std::numeric_limits<int32_t>::max())
      return Support::no("its table has 2^31 or more values");
    return Support::yes();
  }
  if (view.constant(0) || (view.input_type(0) != DType::Int8 && view.input_type(0) != DType::Float32))
    return Support::no("works on shapes, indices or masks, which stay on the host");
  return Support::yes();
}
std::unique_ptr<PreparedNode> create_Gather(std::shared_ptr<OpenClDevice> device, const NodeView& view) {
  if (is_embedding(view)) return std::make_unique<ClEmbedding>(std::move(device), view);
  return create_gather(std::move(device), view);
}

#define Q8_CL_GATHER(op)                                                                                     \
  Support supports_##op(const NodeView& view, const DeviceCaps&) { return gather_support(view); }             \
  std::unique_ptr<PreparedNode> create_##op(std::shared_ptr<OpenClDevice> device, const NodeView& view) {     \
    return create_gather(std::move(device), view);                                                             \
  }
Q8_CL_GATHER(Expand)
Q8_CL_GATHER(Tile)
Q8_CL_GATHER(Split)
Q8_CL_GATHER(DepthToSpace)
Q8_CL_GATHER(SpaceToDepth)
#undef Q8_CL_GATHER

Support supports_Slice(const NodeView& view, const DeviceCaps&) { return gather_support(view); }
std::unique_ptr<PreparedNode> create_Slice(std::shared_ptr<OpenClDevice> device, const NodeView& view) {
  return create_gather(std::move(device), view);
}

// Pad's constant must be known when the node is made (a constant input, or the attribute).
Support supports_Pad(const NodeView& view, const DeviceCaps&) {
  if (view.opset >= 11 && view.has_input(2) && !view.constant(2)) return Support::no("its constant_value is not a constant");
  return gather_support(view);
}
std::unique_ptr<PreparedNode> create_Pad(std::shared_ptr<OpenClDevice> device, const NodeView& view) {
  return create_gather(std::move(device), view);
}

}  // namespace q8
