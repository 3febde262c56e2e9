// Builds two graphs with the generated C++ ES API of modules custom and
// control, against ge-ops' ES runtime library, and saves them as graph
// files that ge.graph.Graph.load_from_air reads (examples/es_cpp/run.py).
//
//   main.air: three float32 [2, 64] inputs joined by ConcatCustom (a dynamic
//     input), split again by SplitCustom (a dynamic output, the required
//     attr num_split, split_dim given), then ScaleCustom twice: once with
//     its optional input bias left out and alpha left at its default, once
//     with both given. Outputs: the two scaled parts and the third part.
//   if.air: IfCustom (a subgraph op) choosing between two branch graphs.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "es_control_ops.h"
#include "es_custom_ops.h"
#include "es_graph_builder.h"

using ge::es::EsGraphBuilder;
using ge::es::EsTensorHolder;

namespace {
bool Save(const std::unique_ptr<ge::Graph> &graph, const std::string &path) {
  if (graph == nullptr || graph->SaveToFile(path.c_str()) != ge::GRAPH_SUCCESS) {
    std::fprintf(stderr, "could not build or save %s\n", path.c_str());
    return false;
  }
  std::printf("saved %s\n", path.c_str());
  return true;
}

std::unique_ptr<ge::Graph> BuildMain() {
  EsGraphBuilder builder("es_cpp_main");
  std::vector<EsTensorHolder> xs;
  for (int64_t i = 0; i < 3; ++i) {
    const std::string name = "x" + std::to_string(i);
    xs.push_back(builder.CreateInput(i, name.c_str(), ge::DT_FLOAT, ge::FORMAT_ND, {2, 64}));
  }
  EsTensorHolder joined = ge::es::ConcatCustom(xs, 3, 1);
  std::vector<EsTensorHolder> parts = ge::es::SplitCustom(joined, 3, 3, 1);
  if (parts.size() != 3) {
    return nullptr;
  }
  EsTensorHolder plain = ge::es::ScaleCustom(parts[0]);
  EsTensorHolder scaled = ge::es::ScaleCustom(parts[1], parts[2], 0.5F);
  return builder.BuildAndReset({plain, scaled, parts[2]});
}

std::unique_ptr<ge::Graph> Branch(const char *name, float alpha) {
  EsGraphBuilder builder(name);
  EsTensorHolder x = builder.CreateInput(0, "branch_x", ge::DT_FLOAT, ge::FORMAT_ND, {64});
  return builder.BuildAndReset({ge::es::ScaleCustom(x, nullptr, alpha)});
}

std::unique_ptr<ge::Graph> BuildIf() {
  EsGraphBuilder builder("es_cpp_if");
  EsTensorHolder cond = builder.CreateInput(0, "cond", ge::DT_INT32, ge::FORMAT_ND, {});
  EsTensorHolder x = builder.CreateInput(1, "x", ge::DT_FLOAT, ge::FORMAT_ND, {64});
  std::vector<EsTensorHolder> out =
      ge::es::IfCustom(cond, {x}, 1, Branch("then_branch", 2.0F), Branch("else_branch", 1.0F));
  if (out.size() != 1) {
    return nullptr;
  }
  return builder.BuildAndReset(out);
}
}  // namespace

int main(int argc, char **argv) {
  const std::string dir = argc > 1 ? argv[1] : ".";
  const bool ok = Save(BuildMain(), dir + "/main.air") && Save(BuildIf(), dir + "/if.air");
  return ok ? 0 : 1;
}
