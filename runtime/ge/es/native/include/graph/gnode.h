// GE's GNode ("graph/gnode.h"): the members the ES API and its users call,
// with GE's signatures; defined in ge-ops' ES runtime library. A GNode is a
// handle on a node of a graph (copies name the same node). Left out: peer
// queries, input/output descs by index, the typed GetAttr/SetAttr overloads
// other than those below, subgraph getters.
#ifndef GE_OPS_ESRT_GRAPH_GNODE_H_
#define GE_OPS_ESRT_GRAPH_GNODE_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "graph/ascend_string.h"
#include "graph/attr_value.h"
#include "graph/error_codes.h"
#include "graph/types.h"

namespace ge {
class Graph;
class NodeImpl;
class GNode;
using GNodePtr = std::shared_ptr<GNode>;
using GraphPtr = std::shared_ptr<Graph>;

class GE_FUNC_DEV_VISIBILITY GE_FUNC_HOST_VISIBILITY GNode {
 public:
  GNode();
  ~GNode() = default;

  graphStatus GetType(AscendString &type) const;
  graphStatus GetName(AscendString &name) const;
  size_t GetInputsSize() const;
  size_t GetOutputsSize() const;
  graphStatus GetAttr(const AscendString &name, int64_t &attr_value) const;
  graphStatus GetAttr(const AscendString &name, AscendString &attr_value) const;
  graphStatus GetAttr(const AscendString &name, AttrValue &attr_value) const;
  graphStatus SetAttr(const AscendString &name, AttrValue &attr_value) const;
  bool HasAttr(const AscendString &name);
  graphStatus SetSubgraph(const AscendString &subgraph_ir_name, const Graph &subgraph);
  graphStatus SetSubgraphs(const AscendString &subgraph_ir_name, const std::vector<Graph> &subgraphs);

 private:
  std::shared_ptr<NodeImpl> impl_;
  friend class NodeAdapter;
};
}  // namespace ge

#endif  // GE_OPS_ESRT_GRAPH_GNODE_H_
