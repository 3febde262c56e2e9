// GE's class GNode ("graph/gnode.h", GE inc/graph_metadef/external/graph/
// gnode.h at ffdcbc9f74): every public member with GE's signature, written
// for ge-ops' tests (see ../README.md). It completes the GNode that
// ../../ge_external/graph/gnode.h only declares (same guard: this directory
// comes first on the include path). Declarations only.
#ifndef GE_OPS_TESTS_GE_EXTERNAL_GRAPH_GNODE_H_
#define GE_OPS_TESTS_GE_EXTERNAL_GRAPH_GNODE_H_

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "graph/ascend_string.h"
#include "graph/error_codes.h"
#include "graph/tensor.h"
#include "graph/types.h"

namespace ge {
class AttrValue;
class GNode;
class OpDesc;
class Graph;
class ComputeGraph;
class NodeImpl;
using GNodePtr = std::shared_ptr<GNode>;
using GraphPtr = std::shared_ptr<Graph>;
using OpBytes = std::vector<uint8_t>;
using OpDescPtr = std::shared_ptr<OpDesc>;
using ComputeGraphPtr = std::shared_ptr<ComputeGraph>;

class GNode {
 public:
  GNode();
  ~GNode() = default;

  graphStatus GetType(AscendString &type) const;
  graphStatus GetName(AscendString &name) const;
  std::pair<GNodePtr, int32_t> GetInDataNodesAndPortIndexs(const int32_t index) const;
  std::vector<GNodePtr> GetInControlNodes() const;
  std::vector<std::pair<GNodePtr, int32_t>> GetOutDataNodesAndPortIndexs(const int32_t index) const;
  std::vector<GNodePtr> GetOutControlNodes() const;
  graphStatus GetInputConstData(const int32_t index, Tensor &data) const;
  graphStatus GetInputIndexByName(const AscendString &name, int32_t &index);
  graphStatus GetOutputIndexByName(const AscendString &name, int32_t &index);
  graphStatus GetDynamicInputIndexesByName(const AscendString &name, std::vector<int32_t> &indexes);
  graphStatus GetDynamicOutputIndexesByName(const AscendString &name, std::vector<int32_t> &indexes);
  size_t GetInputsSize() const;
  size_t GetOutputsSize() const;
  graphStatus GetInputDesc(const int32_t index, TensorDesc &tensor_desc) const;
  graphStatus UpdateInputDesc(const int32_t index, const TensorDesc &tensor_desc);
  graphStatus GetOutputDesc(const int32_t index, TensorDesc &tensor_desc) const;
  graphStatus UpdateOutputDesc(const int32_t index, const TensorDesc &tensor_desc);

  // GetAttr and SetAttr: one overload per attr type, the value by
  // (non-const, for SetAttr too) reference
  graphStatus GetAttr(const AscendString &name, int64_t &attr_value) const;
  graphStatus GetAttr(const AscendString &name, int32_t &attr_value) const;
  graphStatus GetAttr(const AscendString &name, uint32_t &attr_value) const;
  graphStatus GetAttr(const AscendString &name, float32_t &attr_value) const;
  graphStatus GetAttr(const AscendString &name, AscendString &attr_value) const;
  graphStatus GetAttr(const AscendString &name, bool &attr_value) const;
  graphStatus GetAttr(const AscendString &name, Tensor &attr_value) const;
  graphStatus GetAttr(const AscendString &name, std::vector<int64_t> &attr_value) const;
  graphStatus GetAttr(const AscendString &name, std::vector<int32_t> &attr_value) const;
  graphStatus GetAttr(const AscendString &name, std::vector<uint32_t> &attr_value) const;
  graphStatus GetAttr(const AscendString &name, std::vector<float32_t> &attr_value) const;
  graphStatus GetAttr(const AscendString &name, std::vector<AscendString> &attr_values) const;
  graphStatus GetAttr(const AscendString &name, std::vector<bool> &attr_value) const;
  graphStatus GetAttr(const AscendString &name, std::vector<Tensor> &attr_value) const;
  graphStatus GetAttr(const AscendString &name, OpBytes &attr_value) const;
  graphStatus GetAttr(const AscendString &name, std::vector<std::vector<int64_t>> &attr_value) const;
  graphStatus GetAttr(const AscendString &name, std::vector<ge::DataType> &attr_value) const;
  graphStatus GetAttr(const AscendString &name, ge::DataType &attr_value) const;
  graphStatus GetAttr(const AscendString &name, AttrValue &attr_value) const;
  graphStatus SetAttr(const AscendString &name, int64_t &attr_value) const;
  graphStatus SetAttr(const AscendString &name, int32_t &attr_value) const;
  graphStatus SetAttr(const AscendString &name, uint32_t &attr_value) const;
  graphStatus SetAttr(const AscendString &name, float32_t &attr_value) const;
  graphStatus SetAttr(const AscendString &name, AscendString &attr_value) const;
  graphStatus SetAttr(const AscendString &name, bool &attr_value) const;
  graphStatus SetAttr(const AscendString &name, Tensor &attr_value) const;
  graphStatus SetAttr(const AscendString &name, std::vector<int64_t> &attr_value) const;
  graphStatus SetAttr(const AscendString &name, std::vector<int32_t> &attr_value) const;
  graphStatus SetAttr(const AscendString &name, std::vector<uint32_t> &attr_value) const;
  graphStatus SetAttr(const AscendString &name, std::vector<float32_t> &attr_value) const;
  graphStatus SetAttr(const AscendString &name, std::vector<AscendString> &attr_values) const;
  graphStatus SetAttr(const AscendString &name, std::vector<bool> &attr_value) const;
  graphStatus SetAttr(const AscendString &name, std::vector<Tensor> &attr_value) const;
  graphStatus SetAttr(const AscendString &name, OpBytes &attr_value) const;
  graphStatus SetAttr(const AscendString &name, std::vector<std::vector<int64_t>> &attr_value) const;
  graphStatus SetAttr(const AscendString &name, std::vector<ge::DataType> &attr_value) const;
  graphStatus SetAttr(const AscendString &name, ge::DataType &attr_value) const;
  graphStatus SetAttr(const AscendString &name, AttrValue &attr_value) const;

  graphStatus GetOutputAttr(const AscendString &name, uint32_t output_index, AttrValue &attr_value) const;
  graphStatus SetOutputAttr(const AscendString &name, uint32_t output_index, const AttrValue &attr_value);
  graphStatus GetInputAttr(const AscendString &name, uint32_t input_index, AttrValue &attr_value) const;
  graphStatus SetInputAttr(const AscendString &name, uint32_t input_index, const AttrValue &attr_value);
  bool HasAttr(const AscendString &name);

  graphStatus GetSubgraph(uint32_t index, GraphPtr &graph) const;
  graphStatus GetALLSubgraphs(std::vector<GraphPtr> &graph_list) const;
  graphStatus SetSubgraph(const AscendString &subgraph_ir_name, const Graph &subgraph);
  graphStatus SetSubgraphs(const AscendString &subgraph_ir_name, const std::vector<Graph> &subgraphs);

 private:
  std::shared_ptr<NodeImpl> impl_;
  friend class NodeAdapter;
};
}  // namespace ge

#endif  // GE_OPS_TESTS_GE_EXTERNAL_GRAPH_GNODE_H_
