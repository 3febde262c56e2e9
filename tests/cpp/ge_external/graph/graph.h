// GE's class Graph ("graph/graph.h"), abridged for ge-ops' tests: complete,
// as REG_OP's subgraph accessors return it by value, with its constructors
// and the members that build and query a graph. Declarations only.
#ifndef GE_OPS_TESTS_GE_EXTERNAL_GRAPH_GRAPH_H_
#define GE_OPS_TESTS_GE_EXTERNAL_GRAPH_GRAPH_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "graph/gnode.h"
#include "graph/operator.h"

namespace ge {
class GraphImpl;
using GraphImplPtr = std::shared_ptr<GraphImpl>;
using GraphPtr = std::shared_ptr<Graph>;
using ConstGraphPtr = std::shared_ptr<const Graph>;

class GE_FUNC_DEV_VISIBILITY GE_FUNC_HOST_VISIBILITY Graph {
 public:
  ATTRIBUTED_DEPRECATED(Graph(const char_t *))
  explicit Graph(const std::string &name);
  explicit Graph(const char_t *name);
  Graph() = default;
  ~Graph() = default;

  Graph &SetInputs(const std::vector<Operator> &inputs);
  Graph &SetOutputs(const std::vector<Operator> &outputs);
  Graph &SetOutputs(const std::vector<std::pair<Operator, std::vector<size_t>>> &output_indexs);
  Graph &SetOutputs(const std::vector<std::pair<ge::Operator, AscendString>> &outputs);
  Graph &SetTargets(const std::vector<Operator> &targets);
  bool IsValid() const;
  graphStatus AddOp(const ge::Operator &op);
  graphStatus FindOpByName(const char_t *name, ge::Operator &op) const;
  graphStatus FindOpByType(const char_t *type, std::vector<ge::Operator> &ops) const;
  graphStatus GetAllOpName(std::vector<AscendString> &names) const;
  graphStatus SaveToFile(const char_t *file_name) const;
  graphStatus LoadFromFile(const char_t *file_name);
  graphStatus GetName(AscendString &name) const;
  std::vector<GNode> GetAllNodes() const;
  std::vector<GNode> GetDirectNode() const;
  GNode AddNodeByOp(const Operator &op);
  graphStatus AddDataEdge(GNode &src_node, const int32_t src_port_index, GNode &dst_node,
                          const int32_t dst_port_index);
  graphStatus AddControlEdge(GNode &src_node, GNode &dst_node);
  GNodePtr FindNodeByName(const AscendString &node_name) const;
  ConstGraphPtr GetParentGraph() const;
  GNodePtr GetParentNode() const;
  graphStatus SetAttr(const AscendString &name, const AttrValue &attr_value);
  graphStatus GetAttr(const AscendString &name, AttrValue &attr_value) const;

 private:
  GraphImplPtr impl_{nullptr};
};
}  // namespace ge

#endif  // GE_OPS_TESTS_GE_EXTERNAL_GRAPH_GRAPH_H_
