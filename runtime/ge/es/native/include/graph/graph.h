// GE's Graph ("graph/graph.h"): the members the ES API and its users call,
// with GE's signatures; defined in ge-ops' ES runtime library. Copies of a
// Graph share one graph, as GE's do. SaveToFile writes ge-ops' graph file
// (docs/model-format.md), which ge.graph.Graph.load_from_air reads. Left out:
// everything built on Operator (SetInputs, AddOp, ...), LoadFromFile,
// parent queries.
#ifndef GE_OPS_ESRT_GRAPH_GRAPH_H_
#define GE_OPS_ESRT_GRAPH_GRAPH_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "graph/attr_value.h"
#include "graph/gnode.h"

namespace ge {
class GraphImpl;
using GraphImplPtr = std::shared_ptr<GraphImpl>;
using ConstGraphPtr = std::shared_ptr<const Graph>;

class GE_FUNC_DEV_VISIBILITY GE_FUNC_HOST_VISIBILITY Graph {
 public:
  explicit Graph(const char_t *name);
  Graph() = default;
  ~Graph() = default;

  bool IsValid() const;
  graphStatus SaveToFile(const char_t *file_name) const;
  graphStatus GetName(AscendString &name) const;
  std::vector<GNode> GetAllNodes() const;
  std::vector<GNode> GetDirectNode() const;
  graphStatus AddDataEdge(GNode &src_node, const int32_t src_port_index, GNode &dst_node,
                          const int32_t dst_port_index);
  graphStatus AddControlEdge(GNode &src_node, GNode &dst_node);
  graphStatus SetAttr(const AscendString &name, const AttrValue &attr_value);
  graphStatus GetAttr(const AscendString &name, AttrValue &attr_value) const;

 private:
  GraphImplPtr impl_{nullptr};
  friend class GraphAdapter;
};
}  // namespace ge

#endif  // GE_OPS_ESRT_GRAPH_GRAPH_H_
