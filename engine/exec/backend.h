// The backend interface every executor backend implements (DESIGN.md decision 3): whether it runs
// a node and why not, create (validate, pack constants) → reshape (output shapes, workspace) → run
// (into buffers the executor owns), and, for a backend with memory of its own, the copies to and
// from the host.
#pragma once

#include <cstddef>
#include <memory>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/ir/graph.h"
#include "engine/ops/op.h"

namespace q8 {

class GraphIndex;

// Where host tensors live; a backend with device memory names its own.
inline constexpr std::string_view kHostMemory = "host";

// What backends work out once per graph and each node reads (which values a device keeps
// channels-last): computed by the first node that asks, kept while the executor creates its nodes.
class GraphMemo {
 public:
  template <typename T, typename Compute>
  const T& get(const std::string& key, Compute compute) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = entries_.find(key);
    if (it == entries_.end()) it = entries_.emplace(key, std::make_shared<T>(compute())).first;
    return *static_cast<const T*>(it->second.get());
  }

 private:
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<void>> entries_;
};

// What a backend may look at when asked whether it runs a node and when it creates it.
struct NodeView {
  const Node& node;
  int64_t opset = 0;
  std::vector<DType> input_types;                      // per input; Undefined when absent or unknown
  std::vector<std::optional<std::vector<Dim>>> input_shapes;  // per input, as declared; nullopt when unknown
  std::vector<const Tensor*> constants;                // per input: its value when constant, else nullptr
  const GraphIndex* index = nullptr;                   // the whole graph, while the executor places and creates; may be null
  GraphMemo* memo = nullptr;                           // what is worked out once per graph, while the executor creates; may be null

  DType input_type(size_t i) const { return i < input_types.size() ? input_types[i] : DType::Undefined; }
  const Tensor* constant(size_t i) const { return i < constants.size() ? constants[i] : nullptr; }
  bool has_input(size_t i) const { return i < node.inputs.size() && !node.inputs[i].empty(); }
  OpContext op_context() const { return {opset, constants}; }
};

// A backend's answer to "do you run this node?": yes, or no and why ("" when the backend has no
// such op at all, which needs no explaining).
struct Support {
  bool ok = false;
  std::string reason;

  static Support yes() { return {true, ""}; }
  static Support no(std::string why = "") { return {false, std::move(why)}; }
};

// What reshape gives: per output its type and shape, or nullopt where only running tells (the node
// then allocates that output itself); and the scratch bytes run needs.
struct Reshaped {
  std::vector<std::optional<TensorDesc>> outputs;
  size_t workspace_bytes = 0;
};

// A node made ready to run on one backend.
class PreparedNode {
 public:
  virtual ~PreparedNode() = default;
  // From the inputs' types and shapes (constants were seen at create): called again only when
  // they change. Throws Error for inputs that do not fit.
  virtual Reshaped reshape(const std::vector<TensorDesc>& inputs) = 0;
  // Computes the outputs: outputs[k] is a buffer of the type and shape reshape gave, or an empty
  // tensor where it gave nullopt, which run fills with a tensor of its own.
  virtual void run(const Inputs& inputs, std::vector<Tensor>& outputs, std::span<std::byte> workspace) = 0;
  // A device node that takes input `slot` where it lies: a value on the host (a graph input, a
  // shape computed on the CPU) reaches run as a host tensor, not uploaded first, and the node
  // moves what it needs itself (the quantize at a plan's entry uploads int8, a quarter of the
  // float bytes; a gather reads its parameters on the host).
  virtual bool takes_host_input(size_t slot) const { return false; }
  // False where run reads only input `slot`'s type and dims (Shape): a value in another memory
  // then reaches it as a host tensor of those dims, not copied.
  virtual bool reads_input_values(size_t /*slot*/) const { return true; }
};

// Device time of the commands a backend ran between begin_timing and end_timing (OpenCL's
// profiling events): kernels, and copies each way with their bytes.
struct DeviceTimes {
  double kernel_ms = 0, upload_ms = 0, download_ms = 0;
  int64_t kernels = 0, uploads = 0, downloads = 0;
  uint64_t upload_bytes = 0, download_bytes = 0;
  struct PerKernel {
    int64_t launches = 0;
    double ms = 0;
  };
  // Kernel time by kernel name (a library's commands, copies and fills under their own names),
  // and by kernel name and global size ("qconv 12544x6144"), which tells one layer from another.
  std::map<std::string, PerKernel> per_kernel, per_launch;
};

// An op type as a backend registers it: ONNX's default domain is "".
struct OpKey {
  std::string domain, op_type;
  auto operator<=>(const OpKey&) const = default;
  std::string describe() const { return domain.empty() ? op_type : domain + "." + op_type; }
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view name() const = 0;
  // Every op type it has a kernel for (some nodes of which it may still decline, saying why):
  // what the cross-backend harness must cover.
  virtual std::vector<OpKey> op_types() const = 0;
  // The reasons supports() gives for a capability this backend lacks where it runs (a device that
  // flushes subnormals, one without IEEE division): the only reasons the harness accepts for a
  // case a backend declines.
  virtual std::vector<std::string> missing_capabilities() const { return {}; }
  // Where the tensors it reads and writes live (kHostMemory, or its device's name).
  virtual std::string_view memory() const { return kHostMemory; }
  virtual Support supports(const NodeView& view) const = 0;
  // Validates attributes and constant inputs and packs constants; throws Error (without node
  // context, which the caller adds).
  virtual std::unique_ptr<PreparedNode> create(const NodeView& view) const = 0;
  // A backend whose memory is not the host's copies host tensors in and out.
  virtual Tensor upload(const Tensor& host) const;
  virtual Tensor download(const Tensor& on_device) const;
  // Device timing (q8 bench); a backend without a device has none.
  virtual void begin_timing() const {}
  virtual std::optional<DeviceTimes> end_timing() const { return std::nullopt; }
};

// An Op (engine/ops/op.h) as a prepared node: the adapter every op-registry backend uses. A SizedOp
// reshapes and writes into the executor's buffers; any other op allocates its outputs as it runs.
std::unique_ptr<PreparedNode> prepared_op(std::unique_ptr<Op> op);

}  // namespace q8
