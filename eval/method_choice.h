// Choosing the calibration method by what it does to the model's outputs (q8 calibrate --method
// auto, docs/calibration.md "Choosing the method by the outputs"): every candidate method's table
// from the same observers, each quantized as q8 quantize does by default and run against FP32 on a
// few samples, one at a time; the default method stays unless another is closer to FP32 on nearly
// every sample.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "calib/calibrator.h"
#include "datasets/batch_stream.h"
#include "eval/accuracy.h"

namespace q8 {

inline constexpr const char* kAutoMethod = "auto";
// What q8 calibrate uses unless --method says otherwise (docs/calibration.md, "The default"); the
// method auto prefers is kDefaultMethod.
inline constexpr const char* kDefaultCalibrateMethod = kAutoMethod;
inline constexpr int64_t kDefaultAutoSamples = 8;
// An output's loss counts as at least this (an output quantization does not move at all).
inline constexpr double kAutoLeastLoss = 1e-9;
// The one-sided sign test's level: another method must beat the default on so many samples that
// chance alone would do it at most this often.
inline constexpr double kAutoSignLevel = 0.05;
// The lowest output cosine under which INT8 is said to have collapsed (q8 quantize's check warns,
// and --method auto calibrates again after cross-layer equalization).
inline constexpr double kCollapseCosine = 0.97;

struct MethodTrial {
  std::string method;
  std::vector<double> sample_losses;  // per sample: the geometric mean over outputs of 1 − cosine
  double loss = 0;                    // the geometric mean of sample_losses
  double lowest_cosine = 1;           // the lowest output cosine (each output's averaged over the samples)
  std::string lowest_output;          // the output it is of
};

struct MethodChoiceReport {
  std::string chosen;
  std::vector<MethodTrial> trials;  // in order of preference
  int64_t samples = 0;
  int64_t wins_needed = 0;          // sign_test_wins(samples)
  bool held_back = false;           // measured on samples calibration did not observe
};

// The candidates in order of preference: kDefaultMethod, then the other registered methods.
std::vector<std::string> auto_candidates();
// The least k with P(Binomial(n, ½) ≥ k) ≤ kAutoSignLevel, or n when none is (n < 5).
int64_t sign_test_wins(int64_t n);
// Samples on which `a` has the smaller loss than `b`.
int64_t wins_over(const MethodTrial& a, const MethodTrial& b);
// Whether `a` beats `b`: the smaller loss on at least sign_test_wins(samples) samples, and overall.
bool beats(const MethodTrial& a, const MethodTrial& b);
// From `from`, to the trial of least loss (the earlier on a tie) among those that beat it, and on
// from there until none does; nullptr when none beats `from`.
const MethodTrial* improve(const MethodTrial& from, const std::vector<MethodTrial>& trials);
// The rule alone: the first trial (the preferred method), improved.
std::string pick_method(const std::vector<MethodTrial>& trials);
// A candidate's figures from its comparisons with FP32, one report per sample.
MethodTrial method_trial(const std::string& method, const std::vector<AccuracyReport>& per_sample);

// Measures a QDQ model against FP32: one report per sample.
using EvaluateSamples = std::function<std::vector<AccuracyReport>(const Graph& qdq)>;
// on_trial sees each candidate's figures as soon as they are measured.
using OnTrial = std::function<void(const MethodTrial&)>;
// Each candidate's table from calibrator's observers (base's overrides and options kept for every
// candidate), quantized with q8 quantize's defaults, measured by evaluate; the choice by pick_method.
// With `only_on_collapse`, the preferred method is measured first and kept, alone, unless its
// lowest output cosine is under kCollapseCosine.
MethodChoiceReport choose_method(const Graph& graph, const Calibrator& calibrator, const MethodChoice& base,
                                 const EvaluateSamples& evaluate, bool only_on_collapse, const OnTrial& on_trial = {});

// The samples a choice measures on: `samples` of the data in calibration's order, those after the
// `observed` ones when the data holds more (held back), else the first ones; a batch per sample.
struct ChoiceSamples {
  std::vector<StreamInput> inputs;
  Preprocessing pre;
  BatchStreamOptions stream;
  bool held_back = false;
};
ChoiceSamples choice_samples(std::vector<StreamInput> inputs, Preprocessing pre, const BatchStreamOptions& calibration, int64_t observed,
                             int64_t samples);
// choose_method on those samples: FP32 outputs once, each candidate's QDQ model on the same samples.
MethodChoiceReport choose_method_on(const Graph& graph, const Calibrator& calibrator, const MethodChoice& base, const ChoiceSamples& samples,
                                    bool only_on_collapse, const OnTrial& on_trial = {});

// The candidate the report chose.
const MethodTrial& chosen_trial(const MethodChoiceReport& report);
// The equalized graph's trial that replaces `as_given`'s choice: the choice improved among the
// equalized trials (the rule between methods, between the two graphs); nullptr when none beats it.
const MethodTrial* equalized_choice(const MethodChoiceReport& as_given, const MethodChoiceReport& equalized);

// The choice as the JSON table keeps it (settings.auto): the method, whether the graph was
// equalized, and each round's figures (equalized absent when that round was not run).
std::string method_choice_json(const MethodChoiceReport& as_given, const MethodChoiceReport* equalized, bool equalize);

}  // namespace q8
