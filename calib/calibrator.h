// Collects per-tensor observers from FP32 runs: attach it to an executor, feed batches, then
// finalize to a RangeTable with one method per tensor.
#pragma once

#include <map>
#include <set>
#include <string>

#include "calib/methods/method.h"
#include "calib/range_table.h"
#include "engine/exec/executor.h"

namespace q8 {

struct ObserverOptions {
  int64_t bins = kDefaultHistogramBins;
  bool skip_zeros = false;
  // false: statistics only, for runs that read no histogram (every tensor calibrated by `max`,
  // no histogram file written, resumed or merged): the binning is most of the observers' cost.
  bool histograms = true;
};

// Which method calibrates which tensor: a default, overridden by tensor name or by the op type
// of the producing node (a name wins over an op type).
struct MethodChoice {
  std::string default_method = kDefaultMethod;
  std::map<std::string, std::string> overrides;  // tensor name or op type → method
  MethodOptions options;

  const std::string& method_for(const std::string& tensor, const std::string& producer_op) const;
};

class Calibrator {
 public:
  Calibrator(const Graph& graph, ObserverOptions options);

  // Values observed: float graph inputs and node outputs that are not constants.
  const std::set<std::string>& candidates() const { return candidates_; }
  // Sets exec's hook to observe every candidate it produces.
  void attach(Executor& exec);
  // Observes a batch's graph inputs (the hook sees node outputs only).
  void observe_inputs(const TensorMap& inputs);
  // After the last batch: merges into observers() what this run observed of each root tensor, and
  // of the tensors derived from it (docs/calibration.md, "Relu outputs and reshaped tensors").
  void settle();

  std::map<std::string, TensorObserver>& observers() { return observers_; }
  const std::map<std::string, TensorObserver>& observers() const { return observers_; }
  const ObserverOptions& options() const { return options_; }
  // Adds another calibrator's (or file's) observers; both must use the same bins and zero rule.
  void merge(const std::map<std::string, TensorObserver>& other);
  // max |x| per last-axis channel of the tensors a MatMul or Gemm multiplies by a constant weight
  // (SmoothQuant's statistics); merged by max.
  const std::map<std::string, std::vector<float>>& channel_amax() const { return channel_amax_; }
  void merge_channels(const std::map<std::string, std::vector<float>>& other);
  // A run whose observers come partly from a file (--resume, --merge) has no per-channel maxima
  // for the part it did not see: it keeps none.
  void drop_channels() { channel_tensors_.clear(), channel_amax_.clear(); }

  // amax per tensor (methods chosen by `choice`), and the weights' per-channel ranges. Error when
  // a graph input was observed but none of its values was finite (data all NaN or ±Inf).
  RangeTable finalize(const Graph& graph, const MethodChoice& choice) const;

 private:
  // Updates name's observer from t, at once: the tensor was just written and is still in cache
  // (observing later, several tensors in one parallel loop, read them back from memory and
  // cost fashion_cnn a fifth more time at batch 32), and nothing outlives its last use.
  void observe(const std::string& name, const Tensor& t);

  ObserverOptions options_;
  std::set<std::string> candidates_;
  std::map<std::string, std::string> producer_op_;
  std::map<std::string, TensorObserver> observers_;
  // Tensors never observed themselves: each is its root's values (rearranged) or Relu of them.
  // Roots are observed apart until settle(), signed where a Relu of them is derived (true).
  struct Derivation {
    std::string root;
    bool relu;
  };
  std::map<std::string, Derivation> derived_;
  std::map<std::string, bool> roots_;
  std::map<std::string, TensorObserver> pending_;
  std::set<std::string> channel_tensors_;  // inputs of MatMul/Gemm with a constant weight
  std::map<std::string, std::vector<float>> channel_amax_;
};

}  // namespace q8
