#include "calib/calibrate.h"

#include <atomic>

#include "calib/calibration_run.h"
#include "datasets/model_inputs.h"
#include "datasets/progress.h"
#include "engine/io/log.h"

namespace q8 {

RangeTable calibrate(const Graph& graph, const std::string& data, const CalibrateOptions& options) {
  BatchStream stream(open_model_inputs(graph, data, options.pre, {}), options.pre, options.stream);
  check(stream.dataset_size() > 0, data + ": holds no samples");
  Calibrator calibrator(graph, {options.bins, options.skip_zeros, options.method != "max"});
  Progress progress("calibrating", stream.total(), log::quiet());
  const std::atomic<bool> never{false};
  run_calibration(graph, calibrator, stream, progress, never);
  progress.finish();
  check(!calibrator.observers().empty(), "no floating-point activations were observed");
  MethodChoice choice;
  choice.default_method = options.method;
  choice.options = options.method_options;
  return calibrator.finalize(graph, choice);
}

}  // namespace q8
