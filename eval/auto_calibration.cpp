#include "eval/auto_calibration.h"

#include <cstdio>

#include "engine/io/log.h"

namespace q8 {

namespace {

// One round on a session's observers: every method's table, quantized, against FP32 on samples of
// the data, each candidate printed as it is measured.
MethodChoiceReport measure_methods(CalibrationSession& session, const AutoCalibrationOptions& a, const char* graph, bool only_on_collapse) {
  const SessionOptions& o = session.options();
  const ChoiceSamples samples = choice_samples(session.inputs(), o.pre, o.stream, o.stream.limit, a.samples);
  const int64_t n = samples.stream.limit - samples.stream.skip;
  const std::string which = only_on_collapse ? std::string("with ") + kDefaultMethod + ", and with the other methods if it collapses" : "with each method";
  log::info("auto:          quantizing the %s graph (%s) and running %lld %s against FP32\n", graph, which.c_str(), static_cast<long long>(n),
            samples.held_back ? "held-back samples (after the ones calibrated on)" : "of the calibration samples");
  std::fflush(stdout);
  const MethodChoiceReport r = choose_method_on(session.graph(), session.calibrator(), o.choice, samples, only_on_collapse, [](const MethodTrial& t) {
    log::info("  %-11s output error %.4g (geometric mean of 1 - cosine), lowest output cosine %.6f ('%s')\n", t.method.c_str(), t.loss,
              t.lowest_cosine, t.lowest_output.c_str());
    std::fflush(stdout);
  });
  std::string wins;
  for (size_t i = 1; i < r.trials.size(); ++i)
    wins += (i > 1 ? ", " : "") + r.trials[i].method + " " + std::to_string(wins_over(r.trials[i], r.trials[0]));
  if (r.trials.size() == 1)
    log::info("auto:          chose %s (its lowest output cosine is at least %g)\n", r.chosen.c_str(), kCollapseCosine);
  else
    log::info("auto:          chose %s (samples on which each beats %s: %s; %lld needed)\n", r.chosen.c_str(), r.trials[0].method.c_str(),
              wins.c_str(), static_cast<long long>(r.wins_needed));
  std::fflush(stdout);
  return r;
}

}  // namespace

std::unique_ptr<CalibrationSession> choose_method_by_outputs(CalibrationSession& session, const AutoCalibrationOptions& a) {
  MethodChoiceReport as_given;
  try {
    as_given = measure_methods(session, a, session.options().equalize ? "equalized" : "given", true);
  } catch (const Error& e) {
    log::warn("--method auto could not compare the methods on the model's outputs (%s); calibrated with %s\n", e.what(), kDefaultMethod);
    return nullptr;
  }
  const MethodTrial& chosen = chosen_trial(as_given);
  if (chosen.lowest_cosine >= kCollapseCosine || !a.why_not_equalized.empty()) {
    if (chosen.lowest_cosine < kCollapseCosine)
      log::warn("--method auto: the lowest output cosine %.4f is under %g; cross-layer equalization not tried: %s\n", chosen.lowest_cosine,
                kCollapseCosine, a.why_not_equalized.c_str());
    session.use_method(as_given.chosen, method_choice_json(as_given, nullptr, false));
    return nullptr;
  }
  log::info("auto:          the lowest output cosine %.4f is under %g: calibrating again after cross-layer equalization\n", chosen.lowest_cosine,
            kCollapseCosine);
  SessionOptions options = session.options();
  options.equalize = true;
  auto equalized = std::make_unique<CalibrationSession>(options);
  const EqualizeReport& e = equalized->equalized();
  log::info("equalize:      cross-layer equalization of %zu convolutions into %zu readers (%d sweeps); %zu left as they are\n", e.producers,
            e.readers, e.sweeps, e.skipped.size());
  std::fflush(stdout);
  static const std::atomic<bool> never{false};
  Progress progress("calibrating", equalized->source()->total(), log::quiet());
  const CalibrationRunResult run = equalized->run(progress, a.interrupt ? *a.interrupt : never, a.streams);
  check(!run.interrupted, "interrupted while calibrating the equalized graph; nothing written");
  MethodChoiceReport eq = measure_methods(*equalized, a, "equalized", false);
  // The choice as given, improved among the equalized graph's methods (the same rule).
  const MethodTrial* better = equalized_choice(as_given, eq);
  if (better) eq.chosen = better->method;
  const MethodTrial& best = chosen_trial(eq);
  log::info("auto:          %s equalized (output error %.4g, lowest output cosine %.4f) against %s as given (%.4g, %.4f): %s\n",
            eq.chosen.c_str(), best.loss, best.lowest_cosine, as_given.chosen.c_str(), chosen.loss, chosen.lowest_cosine,
            better ? "the equalized graph beats it" : "the graph as given (no equalized method beats it)");
  std::fflush(stdout);
  if (!better) {
    session.use_method(as_given.chosen, method_choice_json(as_given, &eq, false));
    return nullptr;
  }
  equalized->use_method(eq.chosen, method_choice_json(as_given, &eq, true));
  return equalized;
}

}  // namespace q8
