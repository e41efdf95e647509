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
  // Observation is deferred: tensors wait (sharing their storage) until kPendingBytes of them
  // are waiting, then every waiting tensor is observed in one parallel loop (observe_all). Call
  // flush after each batch; the results are those of observing each tensor as it comes.
  void flush();
  static constexpr size_t kPendingBytes = size_t(16) << 20;

  std::map<std::string, TensorObserver>& observers() { return observers_; }
  const std::map<std::string, TensorObserver>& observers() const { return observers_; }
  const ObserverOptions& options() const { return options_; }
  // Adds another calibrator's (or file's) observers; both must use the same bins and zero rule.
  void merge(const std::map<std::string, TensorObserver>& other);

  // amax per tensor (methods chosen by `choice`), and the weights' per-channel ranges.
  RangeTable finalize(const Graph& graph, const MethodChoice& choice) const;

 private:
  // Queues t for name's observer (at once when `now`: a tensor in the executor's arena, whose
  // bytes later nodes reuse).
  void observe(const std::string& name, const Tensor& t, bool now = false);

  ObserverOptions options_;
  std::vector<std::pair<TensorObserver*, Tensor>> pending_;
  size_t pending_bytes_ = 0;
  std::set<std::string> candidates_;
  std::map<std::string, std::string> producer_op_;
  std::map<std::string, TensorObserver> observers_;
};

}  // namespace q8
