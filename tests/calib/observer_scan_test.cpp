// The observer's scan against a count made value by value: each finite |v| lands in bin
// floor(|v| / 2^e) of the final width 2^e (coarsening a finer bin by a power of two is the same
// floor), on tensors of several chunks, with runs of one bin long enough to fill a 16-bit count,
// runs of zeros, and batches taking the one-pass and the two-pass (first, NaN) paths; observed one by
// one and all at once (observe_all). CTest runs it with the AVX-512 scan and, under
// Q8_MAX_CPU_ISA=avx2, with the scalar one.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "calib/tensor_observer.h"

namespace q8 {
namespace {

// Four batches per tensor, each ≈ 600k values: [0] signed lognormal values and one of 1e4 (the
// first batch sets the range: two passes); [1] and [3] 300,000 copies of 1.5 (more than four
// 16-bit counts hold), 100,000 zeros, then values inside the range (one pass); [2] like [1]
// with a NaN, +Inf or -Inf (tensor 0, 1, 2: two passes).
std::vector<std::vector<Tensor>> batches() {
  std::vector<std::vector<Tensor>> all;
  for (int tensor = 0; tensor < 3; ++tensor) {
    std::mt19937 rng(uint32_t(tensor + 1));
    std::lognormal_distribution<float> dist(0.0f, 1.5f);
    std::vector<Tensor> four;
    for (int b = 0; b < 4; ++b) {
      std::vector<float> v(size_t(600000 + 37 * tensor));
      size_t i = 0;
      if (b > 0) {
        for (; i < 300000; ++i) v[i] = 1.5f;
        for (; i < 400000; ++i) v[i] = 0.0f;
      }
      for (; i < v.size(); ++i) v[i] = (rng() & 1 ? -1.0f : 1.0f) * std::min(dist(rng), 1000.0f);
      if (b == 0) v[5] = 1e4f;
      if (b == 2) v[v.size() / 2] = tensor == 0 ? NAN : tensor == 1 ? INFINITY : -INFINITY;
      four.push_back(Tensor::from_vector<float>({int64_t(v.size())}, v));
    }
    all.push_back(std::move(four));
  }
  return all;
}

void expect_reference_counts(const TensorObserver& obs, const std::vector<Tensor>& seen, bool skip_zeros) {
  const AbsHistogram& h = obs.histogram();
  std::vector<uint64_t> want(size_t(h.bins()), 0);
  uint64_t finite = 0, zeros = 0, nan = 0, pos_inf = 0, neg_inf = 0;
  double lo = INFINITY, hi = -INFINITY;
  for (const Tensor& t : seen)
    for (float v : t.values<float>()) {
      nan += std::isnan(v), pos_inf += v == INFINITY, neg_inf += v == -INFINITY;
      if (!std::isfinite(v)) continue;
      ++finite;
      lo = std::min(lo, double(v)), hi = std::max(hi, double(v));
      zeros += v == 0.0f;
      if (v == 0.0f && skip_zeros) continue;
      ++want[size_t(std::floor(std::fabs(double(v)) / std::ldexp(1.0, h.exponent())))];
    }
  EXPECT_EQ(h.counts(), want);
  EXPECT_EQ(obs.stats().elements, finite);
  EXPECT_EQ(obs.stats().zeros, zeros);
  EXPECT_EQ(obs.stats().nan, nan);
  EXPECT_EQ(obs.stats().pos_inf, pos_inf);
  EXPECT_EQ(obs.stats().neg_inf, neg_inf);
  EXPECT_EQ(obs.stats().min, lo);
  EXPECT_EQ(obs.stats().max, hi);
}

TEST(ObserverScan, CountsEveryValueInItsBin) {
  const auto all = batches();
  for (bool skip_zeros : {false, true}) {
    for (const auto& four : all) {
      TensorObserver obs(4096, skip_zeros);
      for (const Tensor& t : four) obs.observe(t);
      expect_reference_counts(obs, four, skip_zeros);
    }
  }
}

TEST(ObserverScan, AllAtOnceEqualsOneByOne) {
  const auto all = batches();
  std::vector<TensorObserver> together(all.size(), TensorObserver(4096, false)), alone = together;
  const Tensor empty = Tensor::from_vector<float>({0}, {});
  TensorObserver empty_obs(4096, false);
  for (size_t b = 0; b < 4; ++b) {
    std::vector<std::pair<TensorObserver*, const Tensor*>> items{{&empty_obs, &empty}};
    for (size_t t = 0; t < all.size(); ++t) items.emplace_back(&together[t], &all[t][b]);
    TensorObserver::observe_all(items);
    EXPECT_EQ(empty_obs.stats().elements, 0u);
    for (size_t t = 0; t < all.size(); ++t) alone[t].observe(all[t][b]);
  }
  for (size_t t = 0; t < all.size(); ++t) {
    EXPECT_EQ(together[t].histogram().exponent(), alone[t].histogram().exponent());
    EXPECT_EQ(together[t].histogram().counts(), alone[t].histogram().counts());
    EXPECT_EQ(together[t].stats().max_abs, alone[t].stats().max_abs);
    EXPECT_EQ(together[t].stats().min, alone[t].stats().min);
    expect_reference_counts(together[t], all[t], false);
  }
}

TEST(ObserverScan, StatisticsOnlyObserversKeepTheSameStatistics) {
  // What `max` reads, without the histogram (tensor 0's four batches: both paths, NaN included).
  const auto all = batches();
  TensorObserver full(4096, false), stats_only(4096, false, false);
  for (const Tensor& t : all[0]) full.observe(t), stats_only.observe(t);
  EXPECT_TRUE(stats_only.histogram().empty());
  EXPECT_EQ(stats_only.stats().elements, full.stats().elements);
  EXPECT_EQ(stats_only.stats().zeros, full.stats().zeros);
  EXPECT_EQ(stats_only.stats().nan, full.stats().nan);
  EXPECT_EQ(stats_only.stats().min, full.stats().min);
  EXPECT_EQ(stats_only.stats().max, full.stats().max);
  EXPECT_EQ(stats_only.stats().max_abs, full.stats().max_abs);
}

}  // namespace
}  // namespace q8
