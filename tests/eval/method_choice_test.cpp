// --method auto's rule (eval/method_choice.h, docs/calibration.md "Choosing the method by the
// outputs"): a sample's loss is the geometric mean of each output's 1 − cosine, and the default
// method stays unless another has the smaller loss on nearly every sample (a one-sided sign test).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "eval/method_choice.h"

namespace q8 {
namespace {

OutputError output(const std::string& name, double cosine) {
  OutputError e;
  e.name = name, e.samples = 1, e.cosine_sum = cosine;
  return e;
}

AccuracyReport sample(std::vector<OutputError> outputs) {
  AccuracyReport r;
  r.outputs = std::move(outputs);
  return r;
}

MethodTrial trial(const std::string& method, std::vector<double> losses) {
  MethodTrial t;
  t.method = method, t.sample_losses = losses;
  double log_sum = 0;
  for (double l : losses) log_sum += std::log(l);
  t.loss = std::exp(log_sum / double(losses.size()));
  return t;
}

TEST(MethodChoice, TheDefaultComesFirstThenEveryOtherMethod) {
  const std::vector<std::string> c = auto_candidates();
  ASSERT_EQ(c.size(), calibration_methods().size());
  EXPECT_EQ(c[0], kDefaultMethod);
  for (const CalibrationMethod* m : calibration_methods()) EXPECT_EQ(std::count(c.begin(), c.end(), std::string(m->name())), 1);
}

TEST(MethodChoice, SignTestWinsAreTheBinomialTail) {
  // P(X ≥ k), X ~ B(n, ½): n = 8: P(≥ 7) = 9/256 ≤ 5 % < P(≥ 6) = 37/256; n = 10: P(≥ 9) = 11/1024,
  // P(≥ 8) = 56/1024 > 5 %; n = 5: P(5) = 1/32; below 5 no k reaches 5 %, so every sample.
  EXPECT_EQ(sign_test_wins(8), 7);
  EXPECT_EQ(sign_test_wins(10), 9);
  EXPECT_EQ(sign_test_wins(20), 15);  // P(≥ 15) = 0.0207, P(≥ 14) = 0.0577
  EXPECT_EQ(sign_test_wins(5), 5);
  EXPECT_EQ(sign_test_wins(4), 4);
  EXPECT_EQ(sign_test_wins(1), 1);
}

TEST(MethodChoice, LossIsTheGeometricMeanOverOutputsThenSamples) {
  const MethodTrial t = method_trial("mse", {sample({output("scores", 0.99), output("boxes", 0.9999), output("exact", 1.0)}),
                                             sample({output("scores", 0.96), output("boxes", 0.9996), output("exact", 1.0)})});
  ASSERT_EQ(t.sample_losses.size(), 2u);
  EXPECT_NEAR(t.sample_losses[0], std::cbrt(0.01 * 0.0001 * kAutoLeastLoss), 1e-12);
  EXPECT_NEAR(t.sample_losses[1], std::cbrt(0.04 * 0.0004 * kAutoLeastLoss), 1e-12);
  EXPECT_NEAR(t.loss, std::sqrt(t.sample_losses[0] * t.sample_losses[1]), 1e-12);
  // Each output's cosine averaged over the samples: scores 0.975 is the lowest.
  EXPECT_EQ(t.lowest_output, "scores");
  EXPECT_NEAR(t.lowest_cosine, 0.975, 1e-12);
}

TEST(MethodChoice, TheDefaultStaysUnlessAnotherWinsOnNearlyEverySample) {
  const MethodTrial mse = trial("mse", {4, 4, 4, 4, 4, 4, 4, 4});
  // 6 of 8 wins, however large, are not enough; 7 are.
  EXPECT_EQ(pick_method({mse, trial("percentile", {1, 1, 1, 1, 1, 1, 5, 5})}), "mse");
  EXPECT_EQ(pick_method({mse, trial("percentile", {3, 3, 3, 3, 3, 3, 3, 5})}), "percentile");
  // Of those that win, the least loss; on a tie the earlier.
  EXPECT_EQ(pick_method({mse, trial("max", {3, 3, 3, 3, 3, 3, 3, 3}), trial("percentile", {9, 9, 9, 9, 9, 9, 9, 9}),
                         trial("entropy", {2, 2, 2, 2, 2, 2, 2, 5})}), "entropy");
  EXPECT_EQ(pick_method({mse, trial("max", {2, 2, 2, 2, 2, 2, 2, 2}), trial("entropy", {2, 2, 2, 2, 2, 2, 2, 2})}), "max");
  // Winning 7 samples by a little and losing one by far: the larger loss overall keeps the default.
  EXPECT_EQ(pick_method({mse, trial("entropy", {3.9, 3.9, 3.9, 3.9, 3.9, 3.9, 3.9, 400})}), "mse");
  // Equal losses are no win.
  EXPECT_EQ(pick_method({mse, trial("max", {4, 4, 4, 4, 4, 4, 4, 4})}), "mse");
  EXPECT_THROW(pick_method({}), Error);
  EXPECT_THROW(wins_over(trial("a", {1, 2}), trial("b", {1})), Error);
}

TEST(MethodChoice, TheChoiceMovesOnWhileAnotherBeatsIt) {
  // A beats mse (7 of 8, less loss); B beats A but not mse (6 of 8 against mse): mse → A → B.
  const MethodTrial mse = trial("mse", {4, 4, 4, 4, 4, 4, 1, 1});
  const MethodTrial a = trial("percentile", {3, 3, 3, 3, 3, 3, 3, 0.9});
  const MethodTrial b = trial("entropy", {2, 2, 2, 2, 2, 2, 2, 2});
  EXPECT_TRUE(beats(a, mse));
  EXPECT_FALSE(beats(b, mse));
  EXPECT_TRUE(beats(b, a));
  EXPECT_EQ(pick_method({mse, a, b}), "entropy");
  EXPECT_EQ(pick_method({mse, b}), "mse");
  EXPECT_EQ(improve(mse, {mse, b}), nullptr);
}

TEST(MethodChoice, TheEqualizedGraphWinsOnlyByTheSameRule) {
  MethodChoiceReport as_given, equalized;
  as_given.trials = {trial("mse", {4, 4, 4, 4, 4, 4, 4, 4}), trial("percentile", {3, 3, 3, 3, 3, 3, 3, 3})};
  as_given.chosen = "percentile";
  EXPECT_EQ(&chosen_trial(as_given), &as_given.trials[1]);
  // 6 of 8 against the chosen percentile: not kept.
  equalized.trials = {trial("mse", {2, 2, 2, 2, 2, 2, 9, 9})};
  EXPECT_EQ(equalized_choice(as_given, equalized), nullptr);
  // Another of the equalized graph's methods beats it: that one, whatever the equalized round preferred.
  equalized.trials.push_back(trial("entropy", {2, 2, 2, 2, 2, 2, 2, 9}));
  ASSERT_NE(equalized_choice(as_given, equalized), nullptr);
  EXPECT_EQ(equalized_choice(as_given, equalized)->method, "entropy");
  as_given.chosen = "max";
  EXPECT_THROW(chosen_trial(as_given), Error);
}

}  // namespace
}  // namespace q8
