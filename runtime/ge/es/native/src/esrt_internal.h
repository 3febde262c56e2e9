// ge-ops' ES runtime library: the graph model behind ge::Graph and ge::GNode,
// shared by the sources (not installed for users).
#ifndef GE_OPS_ESRT_SRC_ESRT_INTERNAL_H_
#define GE_OPS_ESRT_SRC_ESRT_INTERNAL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "graph/attr_value.h"
#include "graph/gnode.h"
#include "graph/graph.h"
#include "graph/tensor.h"

namespace ge {
// Note [The graph model]: a graph is a GraphImpl holding its nodes in
// order; a Graph and every GNode of it share the GraphImpl (shared_ptr), so
// a node stays valid as long as a handle names it. Edges point at producer
// nodes of the same graph. A node's subgraphs are GraphImpls shared with
// the Graph objects passed in. Nothing points back up, so no cycle keeps a
// graph alive. The graph's outputs are set by the builder when it builds.

class AttrValueImpl {
 public:
  bool set = false;
  std::string type;  // the graph file's attr type name: "int", "list_str", ...
  std::string json;  // the value, encoded as docs/model-format.md says
  int64_t int_value = 0;
  double float_value = 0.0;
  bool bool_value = false;
  std::string str_value;
  DataType dtype_value = DT_UNDEFINED;
};

struct OutputMeta {
  bool known_shape = false;  // false: the shape is written as null
  std::vector<int64_t> dims;
  DataType dtype = DT_UNDEFINED;
  Format format = FORMAT_ND;
};

class GraphImpl;

struct NodeData {
  struct IrInput {
    std::string name;
    std::string kind;  // "required", "optional", "dynamic"
    int64_t count;
  };
  struct IrOutput {
    std::string name;
    bool dynamic;
    int64_t count;
  };
  std::string name;
  std::string type;
  std::vector<IrInput> ir_inputs;
  std::vector<IrOutput> ir_outputs;
  std::vector<std::pair<NodeData *, int32_t>> inputs;  // {nullptr, 0}: absent
  std::vector<OutputMeta> outputs;
  std::vector<std::pair<std::string, AttrValue>> attrs;
  std::vector<std::pair<std::string, std::vector<std::shared_ptr<GraphImpl>>>> subgraphs;
  std::vector<NodeData *> control_inputs;
  std::vector<std::pair<int32_t, int32_t>> ref_outputs;  // output -> input slot

  void SetAttr(const std::string &key, const AttrValue &value);
  const AttrValue *FindAttr(const std::string &key) const;
};

class GraphImpl {
 public:
  std::string name;
  std::vector<std::unique_ptr<NodeData>> nodes;
  std::vector<std::pair<NodeData *, int32_t>> outputs;
  std::vector<std::pair<std::string, AttrValue>> attrs;
  bool built = false;  // outputs set: GetDirectNode shows a NetOutput node

  bool Owns(const NodeData *node) const;
  bool HasNodeNamed(const std::string &node_name) const;
  NodeData *AddNode(std::unique_ptr<NodeData> node);
};

class NodeImpl {
 public:
  std::shared_ptr<GraphImpl> graph;
  NodeData *node = nullptr;
  bool net_output = false;  // the NetOutput view of a built graph's outputs
};

class GraphAdapter {
 public:
  static std::shared_ptr<GraphImpl> Impl(const Graph &graph) {
    return graph.impl_;
  }
  static Graph Wrap(std::shared_ptr<GraphImpl> impl) {
    Graph graph;
    graph.impl_ = std::move(impl);
    return graph;
  }
};

class NodeAdapter {
 public:
  static GNode Wrap(std::shared_ptr<GraphImpl> graph, NodeData *node, bool net_output = false);
  static NodeImpl *Impl(const GNode &node) {
    return node.impl_.get();
  }
  // The node's data, or nullptr for an invalid handle or the NetOutput view.
  static NodeData *Data(const GNode &node) {
    const NodeImpl *impl = node.impl_.get();
    return (impl == nullptr || impl->net_output) ? nullptr : impl->node;
  }
};

const char *DataTypeName(DataType dtype);
const char *FormatName(Format format);
// Bytes of one element of `dtype`; 0 for a dtype without a fixed byte size.
size_t DataTypeSize(DataType dtype);
// Writes "esrt: <message>" to stderr.
void Complain(const std::string &message);
// The graph file (docs/model-format.md) of `graph`.
std::string GraphFileBytes(const GraphImpl &graph);
}  // namespace ge

#endif  // GE_OPS_ESRT_SRC_ESRT_INTERNAL_H_
