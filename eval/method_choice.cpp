#include "eval/method_choice.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <nlohmann/json.hpp>

#include "engine/exec/executor.h"
#include "engine/runtime/backends.h"
#include "quant/materialize.h"

namespace q8 {

std::vector<std::string> auto_candidates() {
  std::vector<std::string> names = {kDefaultMethod};
  for (const CalibrationMethod* m : calibration_methods())
    if (m->name() != kDefaultMethod) names.emplace_back(m->name());
  return names;
}

int64_t sign_test_wins(int64_t n) {
  // P(X ≥ k) for X ~ Binomial(n, ½), from k = n down.
  double tail = 0;
  int64_t least = n;
  for (int64_t k = n; k >= 0; --k) {
    tail += std::exp(std::lgamma(double(n) + 1) - std::lgamma(double(k) + 1) - std::lgamma(double(n - k) + 1) - double(n) * std::log(2.0));
    if (tail > kAutoSignLevel) break;
    least = k;
  }
  return least;
}

int64_t wins_over(const MethodTrial& a, const MethodTrial& b) {
  check(a.sample_losses.size() == b.sample_losses.size(), "the methods were measured on different samples");
  int64_t wins = 0;
  for (size_t i = 0; i < a.sample_losses.size(); ++i) wins += a.sample_losses[i] < b.sample_losses[i];
  return wins;
}

bool beats(const MethodTrial& a, const MethodTrial& b) {
  return wins_over(a, b) >= sign_test_wins(int64_t(b.sample_losses.size())) && a.loss < b.loss;
}

const MethodTrial* improve(const MethodTrial& from, const std::vector<MethodTrial>& trials) {
  // docs/calibration.md, "Choosing the method by the outputs": each step is to a trial that beats
  // the current one, so the loss falls at every step and the walk ends.
  const MethodTrial* current = &from;
  const MethodTrial* moved = nullptr;
  for (;;) {
    const MethodTrial* best = nullptr;
    for (const MethodTrial& t : trials)
      if (beats(t, *current) && (!best || t.loss < best->loss)) best = &t;
    if (!best) return moved;
    current = moved = best;
  }
}

std::string pick_method(const std::vector<MethodTrial>& trials) {
  check(!trials.empty(), "no calibration method was measured");
  const MethodTrial* better = improve(trials[0], trials);
  return better ? better->method : trials[0].method;
}

namespace {

// (Π max(v, kAutoLeastLoss))^(1/n).
double geometric_mean(const std::vector<double>& values) {
  double log_sum = 0;
  for (double v : values) log_sum += std::log(std::max(v, kAutoLeastLoss));
  return values.empty() ? 0 : std::exp(log_sum / double(values.size()));
}

}  // namespace

MethodTrial method_trial(const std::string& method, const std::vector<AccuracyReport>& per_sample) {
  check(!per_sample.empty() && !per_sample[0].outputs.empty(), "no output was compared");
  MethodTrial t{method, {}, 0, 1, ""};
  std::map<std::string, std::pair<double, int64_t>> cosines;  // output → (Σ cosine, samples)
  std::vector<std::string> order;
  for (const AccuracyReport& r : per_sample) {
    std::vector<double> losses;
    for (const OutputError& e : r.outputs) {
      losses.push_back(1.0 - e.cosine());
      auto [it, added] = cosines.try_emplace(e.name, 0.0, 0);
      if (added) order.push_back(e.name);
      it->second.first += e.cosine(), it->second.second += 1;
    }
    t.sample_losses.push_back(geometric_mean(losses));
  }
  t.loss = geometric_mean(t.sample_losses);
  for (const std::string& name : order) {
    const double c = cosines[name].first / double(cosines[name].second);
    if (t.lowest_output.empty() || c < t.lowest_cosine) t.lowest_cosine = c, t.lowest_output = name;
  }
  return t;
}

MethodChoiceReport choose_method(const Graph& graph, const Calibrator& calibrator, const MethodChoice& base,
                                 const EvaluateSamples& evaluate, bool only_on_collapse, const OnTrial& on_trial) {
  MethodChoiceReport report;
  for (const std::string& method : auto_candidates()) {
    // docs/calibration.md, "Choosing the method by the outputs": a preferred method that holds is kept.
    if (only_on_collapse && report.trials.size() == 1 && report.trials[0].lowest_cosine >= kCollapseCosine) break;
    MethodChoice choice = base;
    choice.default_method = method;
    QuantizeReport quantized;
    const Graph qdq = quantize_graph(graph, calibrator.finalize(graph, choice), QuantOptions{}, {}, quantized);
    report.trials.push_back(method_trial(method, evaluate(qdq)));
    if (on_trial) on_trial(report.trials.back());
  }
  report.samples = int64_t(report.trials[0].sample_losses.size());
  report.wins_needed = sign_test_wins(report.samples);
  report.chosen = pick_method(report.trials);
  return report;
}

ChoiceSamples choice_samples(std::vector<StreamInput> inputs, Preprocessing pre, const BatchStreamOptions& calibration, int64_t observed,
                             int64_t samples) {
  check(!inputs.empty(), "the model has no input to measure the methods on");
  const int64_t size = int64_t(inputs[0].source->size());
  ChoiceSamples s{std::move(inputs), std::move(pre), {}, false};
  s.stream.batch_size = 1;
  s.stream.shuffle = calibration.shuffle, s.stream.seed = calibration.seed, s.stream.strict = calibration.strict;
  s.held_back = observed > 0 && observed < size;
  s.stream.skip = s.held_back ? observed : 0;
  s.stream.limit = std::min(size, s.stream.skip + samples);
  return s;
}

MethodChoiceReport choose_method_on(const Graph& graph, const Calibrator& calibrator, const MethodChoice& base, const ChoiceSamples& samples,
                                    bool only_on_collapse, const OnTrial& on_trial) {
  BatchStream reference_stream(samples.inputs, samples.pre, samples.stream);
  const ReferenceOutputs reference = run_reference(graph, reference_stream);
  MethodChoiceReport r = choose_method(graph, calibrator, base, [&](const Graph& qdq) {
    BatchStream batches(samples.inputs, samples.pre, samples.stream);
    Executor exec(qdq, backends_for("cpu"));
    std::vector<AccuracyReport> per_sample;
    for (size_t i = 0; i < reference.batches.size(); ++i) {
      std::optional<Batch> batch = batches.next();
      check(batch && batch->indices == reference.batches[i].indices, "the samples differ from the reference run's");
      AccuracyTally tally(graph, {});
      tally.add(reference.outputs[i], exec.run(batch->inputs), reference.batches[i]);
      per_sample.push_back(tally.report());
    }
    return per_sample;
  }, only_on_collapse, on_trial);
  r.held_back = samples.held_back;
  return r;
}

const MethodTrial& chosen_trial(const MethodChoiceReport& report) {
  for (const MethodTrial& t : report.trials)
    if (t.method == report.chosen) return t;
  throw Error("the method chosen, " + report.chosen + ", was not measured");
}

const MethodTrial* equalized_choice(const MethodChoiceReport& as_given, const MethodChoiceReport& equalized) {
  return improve(chosen_trial(as_given), equalized.trials);
}

namespace {

nlohmann::ordered_json round_json(const MethodChoiceReport& report) {
  nlohmann::ordered_json j;
  j["chosen"] = report.chosen;
  j["samples"] = report.samples;
  j["held_back"] = report.held_back;
  j["wins_needed"] = report.wins_needed;
  nlohmann::ordered_json trials = nlohmann::ordered_json::array();
  for (const MethodTrial& t : report.trials)
    trials.push_back({{"method", t.method}, {"loss", t.loss}, {"sample_losses", t.sample_losses}, {"lowest_cosine", t.lowest_cosine},
                      {"lowest_output", t.lowest_output}});
  j["candidates"] = trials;
  return j;
}

}  // namespace

std::string method_choice_json(const MethodChoiceReport& as_given, const MethodChoiceReport* equalized, bool equalize) {
  nlohmann::ordered_json j;
  j["chosen"] = equalize ? equalized->chosen : as_given.chosen;
  j["equalize"] = equalize;
  j["as_given"] = round_json(as_given);
  if (equalized) j["equalized"] = round_json(*equalized);
  return j.dump();
}

}  // namespace q8
