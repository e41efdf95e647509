// Histograms, methods' edge cases, the TensorRT cache format, weight ranges and fingerprints.
#include <gtest/gtest.h>

#include <bit>
#include <random>

#include "calib/calibration_run.h"
#include "calib/histogram.h"
#include "calib/methods/method.h"
#include "engine/io/sha256.h"
#include "calib/tensor_observer.h"
#include "calib/trt_cache.h"
#include "calib/weight_ranges.h"
#include "engine/cpu/threads.h"

namespace q8 {
namespace {

TEST(TrtCache, KnownScalesAndRoundTrip) {
  EXPECT_EQ(scale_to_hex(1.0f / 127.0f), "3c010204");
  EXPECT_EQ(scale_to_hex(1.0f), "3f800000");
  EXPECT_EQ(hex_to_scale("3c010204", "t"), 1.0f / 127.0f);
  TrtCache cache{"8601", "EntropyCalibration2", {{"data", 0.0078125f}, {"conv1/out:0", 1.5e-3f}, {"prob", 1e-30f}}};
  const std::string text = format_trt_cache(cache);
  EXPECT_EQ(text.substr(0, 30), "TRT-8601-EntropyCalibration2\nd");
  const TrtCache back = parse_trt_cache(text, "t");
  EXPECT_EQ(back.version, "8601");
  EXPECT_EQ(back.algorithm, "EntropyCalibration2");
  ASSERT_EQ(back.scales.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(back.scales[i].first, cache.scales[i].first);
    EXPECT_EQ(std::bit_cast<uint32_t>(back.scales[i].second), std::bit_cast<uint32_t>(cache.scales[i].second));
  }
  EXPECT_THROW(parse_trt_cache("TRT-7000-MinMaxCalibration\nconv1 3c010204\n", "t"), Error);
  EXPECT_THROW(parse_trt_cache("TRT-7000-MinMaxCalibration\nconv1: 3c0102\n", "t"), Error);
  EXPECT_THROW(parse_trt_cache("hello\n", "t"), Error);
  EXPECT_EQ(trt_algorithm("max"), "MinMaxCalibration");
  EXPECT_EQ(trt_algorithm("entropy"), "EntropyCalibration2");
}

// Histograms fed the same values in any batching and order end up identical, and merging
// shards equals one pass.
TEST(AbsHistogram, OrderAndBatchingDoNotMatter) {
  std::mt19937 rng(5);
  std::lognormal_distribution<float> dist(0.0f, 2.0f);
  std::vector<float> values(5000);
  for (float& v : values) v = (rng() & 1 ? -1.0f : 1.0f) * dist(rng);
  values[17] = 0.0f;
  auto feed = [&](const std::vector<float>& v, size_t batch) {
    TensorObserver obs(2048, false);
    for (size_t i = 0; i < v.size(); i += batch) {
      const size_t n = std::min(batch, v.size() - i);
      obs.observe(Tensor::from_vector<float>({int64_t(n)}, std::vector<float>(v.begin() + long(i), v.begin() + long(i + n))));
    }
    return obs;
  };
  const TensorObserver one = feed(values, values.size());
  std::vector<float> sorted = values;
  std::sort(sorted.begin(), sorted.end(), [](float a, float b) { return std::fabs(a) < std::fabs(b); });  // growing range
  for (const TensorObserver& other : {feed(values, 1), feed(values, 7), feed(sorted, 3)}) {
    EXPECT_EQ(other.histogram().exponent(), one.histogram().exponent());
    EXPECT_EQ(other.histogram().counts(), one.histogram().counts());
  }
  TensorObserver a = feed(std::vector<float>(values.begin(), values.begin() + 1000), 10);
  const TensorObserver b = feed(std::vector<float>(values.begin() + 1000, values.end()), 33);
  a.merge(b);
  EXPECT_EQ(a.histogram().counts(), one.histogram().counts());
  EXPECT_EQ(a.stats().elements, 5000u);
  EXPECT_EQ(a.stats().zeros, 1u);
}

TEST(TensorObserver, CountsAndExcludesNanAndInf) {
  TensorObserver obs(2048, false);
  obs.observe(Tensor::from_vector<float>({6}, {1.0f, NAN, INFINITY, -INFINITY, -2.0f, 0.0f}));
  EXPECT_EQ(obs.stats().nan, 1u);
  EXPECT_EQ(obs.stats().pos_inf, 1u);
  EXPECT_EQ(obs.stats().neg_inf, 1u);
  EXPECT_EQ(obs.stats().elements, 3u);
  EXPECT_EQ(obs.stats().max_abs, 2.0);
  EXPECT_EQ(obs.stats().min, -2.0);
  uint64_t total = 0;
  for (uint64_t c : obs.histogram().counts()) total += c;
  EXPECT_EQ(total, 3u);
}

TEST(Methods, AllZeroTensorHasAmaxZero) {
  TensorObserver obs(2048, false);
  obs.observe(Tensor(DType::Float32, {100}));
  for (const CalibrationMethod* m : calibration_methods()) EXPECT_EQ(m->amax(obs.histogram(), obs.stats(), {}), 0.0) << m->name();
}

TEST(WeightRanges, ConvTransposeHasOneAmaxPerOutputChannel) {
  // W [C_in = 4, C_out/g = 3, 1, 1], g = 2: output channel o = gi·3 + j.
  Tensor w(DType::Float32, {4, 3, 1, 1});
  for (int64_t i = 0; i < 12; ++i) w.data<float>()[i] = float(i + 1) * (i % 2 ? -1.0f : 1.0f);
  const std::vector<double> amax = conv_transpose_channel_amax(w, 2);
  // group 0: input channels 0, 1 → |W[0..1, j]| = {1,2,3}, {4,5,6}; group 1: {7,8,9}, {10,11,12}.
  EXPECT_EQ(amax, (std::vector<double>{4, 5, 6, 10, 11, 12}));
  EXPECT_EQ(conv_transpose_channel_amax(w, 1), (std::vector<double>{10, 11, 12}));
  EXPECT_EQ(channel_amax(w, 0), (std::vector<double>{3, 6, 9, 12}));
}

TEST(Sha256, KnownDigests) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex(std::string(1000, 'a')), "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3");
}

}  // namespace

namespace {
StreamInput input_of(DType dtype, Dims sample) {
  StreamInput in;
  in.spec.dtype = dtype, in.spec.sample_dims = std::move(sample);
  return in;
}
}  // namespace

// calibrate's batch without --batch-size: as many samples as fit 1 MiB of input, 1 to 32, every
// input of the model counted.
TEST(CalibrationDefaults, BatchFitsOneMebibyteOfInput) {
  EXPECT_EQ(calibration_batch_size({input_of(DType::Float32, {1, 28, 28})}), 32);         // 3,136 B
  EXPECT_EQ(calibration_batch_size({input_of(DType::Float32, {16384})}), 16);             // 64 KiB
  EXPECT_EQ(calibration_batch_size({input_of(DType::Float32, {16384}), input_of(DType::Float32, {16384})}), 8);
  EXPECT_EQ(calibration_batch_size({input_of(DType::Uint8, {3, 224, 224})}), 6);          // 150,528 B
  EXPECT_EQ(calibration_batch_size({input_of(DType::Float32, {3, 224, 224})}), 1);
  EXPECT_EQ(calibration_batch_size({input_of(DType::Float32, {3, 640, 640})}), 1);
  EXPECT_EQ(calibration_batch_size({input_of(DType::Float32, {0})}), 32);                 // nothing to read
}

TEST(CalibrationDefaults, OneStreamPerThreadUnlessAsked) {
  const int before = compute_threads();
  set_compute_threads(3);
  EXPECT_EQ(calibration_streams(0), 3);
  EXPECT_EQ(calibration_streams(2), 2);
  set_compute_threads(before);
}

}  // namespace q8
