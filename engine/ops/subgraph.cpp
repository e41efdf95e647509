// The one factory of subgraph runners (op.h), which the executor registers.
#include <atomic>

#include "engine/ops/op.h"

namespace q8 {

namespace {
std::atomic<SubgraphRunnerFactory> factory{nullptr};
}  // namespace

void set_subgraph_runner_factory(SubgraphRunnerFactory f) { factory.store(f); }

std::unique_ptr<SubgraphRunner> make_subgraph_runner(const Graph& graph) {
  const SubgraphRunnerFactory f = factory.load();
  check(f != nullptr, "no executor to run subgraphs");
  return f(graph);
}

}  // namespace q8
