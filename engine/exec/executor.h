// Runs a graph node by node, each node on the first backend that supports it (the placement),
// through create → reshape → run (engine/exec/backend.h). Shapes are resolved per run, so the batch
// may change; a node is reshaped again only when its inputs' shapes change. A small host node whose
// outputs follow from constants and shapes alone (a transformer's Shape → Gather → Unsqueeze →
// Concat) is run once; later runs reuse its outputs while the dims it read are unchanged. The executor owns the
// host buffers of outputs whose shapes reshape gives: the first run at a set of input shapes
// allocates them one by one and traces every value's size and lifetime, later runs at the same
// shapes place them in one arena planned from that liveness (docs/plan.md, "Memory plan"). Values
// are freed after their last reader; values cross between host and device memory where placement
// changes memory, once per value and memory.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/exec/cpu_backend.h"
#include "engine/exec/backend.h"
#include "engine/exec/memory_plan.h"
#include "engine/ir/graph.h"
#include "engine/ir/tensor_map.h"

namespace q8 {

// Called after node `index` ran, with its outputs on the host. An output may live in the
// executor's arena: a hook that keeps one beyond the call keeps a clone.
using NodeHook = std::function<void(const Node& node, size_t index, const std::vector<Tensor>& outputs)>;

// Backends in order of preference: each node runs on the first that supports it.
using BackendList = std::vector<const Backend*>;

// "cpu 7 nodes; int8-reference 7 nodes": how many nodes each backend runs. With shape_work (per
// node: Executor::shape_work), a backend's count says how many of its nodes only work on shapes,
// indices or masks: "cpu 63 nodes (63 on shapes, indices or masks); opencl 106 nodes".
std::string placement_summary(const std::vector<std::string_view>& placement, const std::vector<bool>& shape_work = {});

// "Abs ('a1'), TopK ('t1', 't2')" for every node no backend supports, with the backends' reasons
// where they gave one ("QConv ('c1': int8-reference: input 0 is float32, not int8)"); "" if none.
std::string unsupported_ops(const Graph& graph, const BackendList& backends);

// Where one node runs, and why the backends preferred to it declined ("" when none did or none
// said why).
struct NodePlacement {
  std::string_view backend;
  std::string declined;
};

// The memory of the last traced run: every intermediate's size and lifetime (graph outputs live
// to the end), and the arena the executor places its own buffers in.
struct MemoryReport {
  std::vector<BufferLifetime> values;  // every value a node wrote, in the order written
  MemoryPlan arena;                    // over the executor-owned buffers only
  int64_t owned_bytes = 0;             // those buffers without reuse
};

// Every value's size and lifetime at given input shapes, worked out without running the model.
struct SizeTrace {
  std::vector<BufferLifetime> values;  // as a traced run records them, for the values whose size is known
  std::vector<std::string> unsized;    // values whose size only running tells (it depends on data)
  std::vector<BufferLifetime> owned;   // the values the executor allocates itself (its arena's), in that order
};

class Executor {
 public:
  // Creates every node. Throws one Error listing all unsupported ops with their node names,
  // or naming the node whose attributes are invalid.
  explicit Executor(Graph graph, const Backend& backend = cpu_backend()) : Executor(std::move(graph), BackendList{&backend}) {}
  Executor(Graph graph, const BackendList& backends);

  const Graph& graph() const { return graph_; }
  // Per node, the name of the backend it runs on.
  const std::vector<std::string_view>& placement() const { return backend_names_; }
  // Per node, whether it only works on shapes, indices or masks: no output, or no input, of a float
  // or 8-bit type (Shape, int64 Gather and Concat, a bool mask, a mask cast to float), which a device
  // backend leaves on the host.
  const std::vector<bool>& shape_work() const { return shape_work_; }
  // One line per node: "  3 Conv 'conv1' → cpu (int8-reference: …)", with the reasons of the
  // backends that declined it ("→ cpu, on shapes, indices or masks (opencl: …)" for shape work);
  // with fallbacks_only, only the nodes some backend declined.
  std::string placement_report(bool fallbacks_only = false) const;
  // With outputs_on_host false the hook only learns that a node ran (a timer): a device backend's
  // outputs are not downloaded for it, and it gets none of them.
  void set_hook(NodeHook hook, bool outputs_on_host = true) {
    hook_ = std::move(hook);
    hook_outputs_on_host_ = outputs_on_host;
  }

  // Runs the graph. Every graph input must be given, with its declared dtype and a shape
  // that fits its declared dims; the Error names the input and what does not fit.
  TensorMap run(const TensorMap& inputs);

  // Sizes and lifetimes at these graph input shapes (in graph input order) from shapes alone:
  // each node's reshape, else ONNX's shape inference for its op, with the values known before
  // running (constants, and small values computed from them and from shapes, as shape
  // subgraphs compute them). Nothing the size of the model's data runs. Reshapes the nodes as a
  // run at these shapes would.
  SizeTrace trace_sizes(const std::vector<TensorDesc>& input_descs);
  // Places the executor's own buffers at these input shapes by a memory plan made before for the
  // same graph and backends (a plan file's, over trace_sizes' `owned`), so the first run at these
  // shapes runs in the arena without tracing. False, changing nothing, where the plan's buffers are
  // not this executor's (another graph or backend list): it then plans its own.
  bool use_memory_plan(const std::vector<TensorDesc>& input_descs, const std::vector<BufferLifetime>& buffers, const MemoryPlan& plan);

  // Values held during the current run (inputs, initializers excluded): what freeing after last
  // use keeps small. Valid inside the hook.
  size_t live_values() const { return live_values_; }
  // Sizes and lifetimes from the last run that traced them (the first at its input shapes).
  const MemoryReport& memory() const { return memory_; }
  // Nodes of the last run whose outputs came from an earlier run (shape work that constants and
  // unchanged dims determine): they did not run.
  size_t reused_nodes() const { return reused_nodes_; }
  // Host↔device copies the last run made.
  size_t copies() const { return copies_; }
  // Those copies, value by value: what crossed, towards which memory ("host" for a download of a
  // graph output or of a value a host node reads), and its bytes.
  struct Crossing {
    std::string value, to;
    int64_t bytes = 0;
  };
  const std::vector<Crossing>& crossings() const { return crossings_; }

 private:
  struct Value {
    Tensor tensor;
    const Backend* owner = nullptr;  // the backend whose device memory holds it; nullptr: the host
  };
  struct Arena {
    std::vector<TensorDesc> input_descs;        // the graph input shapes it is for
    std::vector<std::vector<int64_t>> offsets;  // per node, per output: its offset, or -1
    Tensor bytes;
  };

  // A node whose outputs data_independent_values names, on a host backend, no graph output among
  // them: each input slot is a constant, a value read for its dims only, or another such node's
  // output. Its outputs (when at most kKeptBytes) are kept from the run that computed them and
  // reused while every dims-only input has the dims kept with them and every producer was reused
  // too; anything else runs it again and keeps the new outputs.
  struct Kept {
    bool filled = false;
    std::vector<Tensor> outputs;  // clones
    std::vector<Dims> dims_read;  // per input slot: the dims of a slot read for its dims only
  };
  static constexpr int64_t kKeptBytes = 64 << 10;
  enum class SlotKind { Constant, DimsOnly, Produced };
  bool reusable(size_t node, const std::map<std::string, Value>& values, const std::vector<char>& reused) const;
  void keep(size_t node, const Inputs& args, const std::vector<Tensor>& outputs);

  void check_inputs(const TensorMap& inputs) const;
  const Tensor& input_on(std::map<std::string, Value>& values, const std::string& name, const Backend& backend, bool host_ok = false,
                         bool dims_only = false);
  std::vector<Tensor> allocate_outputs(size_t node, bool use_arena);
  void plan_arena(const std::vector<TensorDesc>& input_descs, const std::vector<std::vector<int64_t>>& owned);

  Graph graph_;
  std::vector<const Backend*> backends_;  // per node
  std::vector<std::string_view> backend_names_;
  std::vector<std::string> declined_;
  std::vector<bool> shape_work_;
  std::vector<std::unique_ptr<PreparedNode>> prepared_;
  std::vector<std::optional<std::vector<TensorDesc>>> reshaped_for_;  // per node: the input shapes of its last reshape
  std::vector<Reshaped> reshaped_;
  std::vector<std::vector<std::string>> frees_after_;  // per node: values read last by it
  std::vector<bool> reusable_node_;                  // per node: its outputs may be kept (Kept)
  std::vector<std::vector<SlotKind>> slot_kinds_;    // per reusable node, per input slot
  std::vector<std::vector<int>> producers_;          // per reusable node, per input slot: the producer, or -1
  std::vector<Kept> kept_;                           // per node
  size_t reused_nodes_ = 0;
  // Per node: its output 0 may be a view of input 0 (the op's traits say `view`, a host backend
  // runs it, the output is no graph output). The memory plan then keeps input 0's buffer for the
  // view's readers too, so a view into the arena is used as it is rather than copied out.
  std::vector<bool> view_of_input_;
  bool plans_view(size_t node) const;
  // Per node: the memory plan in use keeps its view's input buffer alive for the view's readers
  // (set by the run that traced the plan, or by trace_sizes for a plan file's). A view into the
  // arena that no plan covered is copied out.
  std::vector<bool> planned_views_;
  std::vector<std::byte> workspace_;
  std::optional<Arena> arena_;
  std::map<std::pair<std::string, std::string>, Tensor> copies_of_;  // (value, memory) → its copy there
  MemoryReport memory_;
  NodeHook hook_;
  bool hook_outputs_on_host_ = true;
  size_t live_values_ = 0;
  size_t copies_ = 0;
  std::vector<Crossing> crossings_;
};

}  // namespace q8
