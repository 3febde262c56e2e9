// GE's "graph/gnode.h", abridged for the ES API checks: GNode with the members
// generated ES sources call. Declarations only.
#ifndef GE_OPS_TESTS_GE_EXTERNAL_GRAPH_GNODE_H_
#define GE_OPS_TESTS_GE_EXTERNAL_GRAPH_GNODE_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "graph/ascend_string.h"
#include "graph/error_codes.h"

namespace ge {
class Graph;
class GNode {
 public:
  GNode();
  ~GNode();
  graphStatus GetType(AscendString &type) const;
  graphStatus GetAttr(const AscendString &name, int64_t &attr_value) const;
  size_t GetInputsSize() const;
  graphStatus SetSubgraph(const AscendString &subgraph_ir_name, const Graph &subgraph);
  graphStatus SetSubgraphs(const AscendString &subgraph_ir_name, const std::vector<Graph> &subgraphs);
};
using GNodePtr = std::shared_ptr<GNode>;
}  // namespace ge

#endif  // GE_OPS_TESTS_GE_EXTERNAL_GRAPH_GNODE_H_
