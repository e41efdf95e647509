// numpy broadcasting: shapes, errors, and the coalesced strided loop against naive indexing.
#include <gtest/gtest.h>

#include "engine/ops/broadcast.h"
#include "tests/ops/op_harness.h"

namespace q8 {
namespace {

TEST(Broadcast, ShapesFollowNumpy) {
  EXPECT_EQ(broadcast_dims({2, 3, 4}, {4}, "t"), (Dims{2, 3, 4}));
  EXPECT_EQ(broadcast_dims({2, 1, 4}, {3, 1}, "t"), (Dims{2, 3, 4}));
  EXPECT_EQ(broadcast_dims({}, {5}, "t"), (Dims{5}));
  EXPECT_EQ(broadcast_dims({1}, {0}, "t"), (Dims{0}));
  EXPECT_THROW(broadcast_dims({2, 3}, {4}, "Add"), Error);
  try {
    broadcast_dims({2, 3}, {4}, "Add");
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "Add: shapes 2x3 and 4 do not broadcast");
  }
}

// Every pair of shapes here is checked element by element against direct index arithmetic.
TEST(Broadcast, LoopMatchesNaiveIndexing) {
  const std::vector<std::pair<Dims, Dims>> pairs = {
      {{2, 3, 4, 5}, {1, 3, 1, 1}}, {{2, 3, 4, 5}, {5}},    {{2, 3, 4, 5}, {2, 1, 4, 1}}, {{7}, {1}},
      {{1, 1}, {3, 1}},             {{3, 1, 5}, {1, 4, 1}}, {{2, 3, 4}, {}},             {{1, 17, 1}, {13, 1, 3}},
      // Rows longer than kParallelGrain, cut into stretches (a partial last one): a tensor and a
      // scalar (one long row), a row vector along long rows, a column along them.
      {{5 * kParallelGrain + 3}, {}}, {{3, 2 * kParallelGrain + 1}, {2 * kParallelGrain + 1}}, {{2, 3, kParallelGrain + 7}, {3, 1}},
  };
  for (const auto& [a, b] : pairs) {
    SCOPED_TRACE(dims_to_string(a) + " + " + dims_to_string(b));
    const Tensor x = random_tensor(a, 1), y = random_tensor(b, 2);
    Node add;
    add.op_type = "Add";
    const Tensor got = run_op(add, {&x, &y})[0];
    const Dims out = broadcast_dims(a, b, "t");
    ASSERT_EQ(got.dims(), out);
    for (int64_t i = 0; i < numel(out); ++i) {
      int64_t rest = i, ia = 0, ib = 0, sa = 1, sb = 1;
      for (size_t d = out.size(); d-- > 0;) {
        const int64_t idx = rest % out[d];
        rest /= out[d];
        const int64_t da = int64_t(d) - int64_t(out.size() - a.size()), db = int64_t(d) - int64_t(out.size() - b.size());
        if (da >= 0) ia += (a[size_t(da)] == 1 ? 0 : idx) * sa, sa *= a[size_t(da)];
        if (db >= 0) ib += (b[size_t(db)] == 1 ? 0 : idx) * sb, sb *= b[size_t(db)];
      }
      ASSERT_EQ(got.data<float>()[i], x.data<float>()[ia] + y.data<float>()[ib]) << "index " << i;
    }
  }
}

}  // namespace
}  // namespace q8
