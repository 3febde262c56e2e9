// GE's "compliant_node_builder.h", abridged: the V1 IrDef API generated
// sources call, CreateFrom and CreateFromIfNotEqual.
#ifndef GE_OPS_TESTS_GE_ES_COMPLIANT_NODE_BUILDER_H_
#define GE_OPS_TESTS_GE_ES_COMPLIANT_NODE_BUILDER_H_
#include <string>
#include <type_traits>
#include <unordered_set>
#include <utility>
#include <vector>
#include "graph/attr_value.h"
#include "graph/gnode.h"
#include "graph/graph.h"
namespace ge {
namespace es {
template <typename T>
AttrValue CreateFrom(T &&t) {
  AttrValue av;
  av.SetAttrValue(std::forward<T>(t));
  return av;
}
template <typename T>
AttrValue CreateFromIfNotEqual(T &&value, typename std::decay<T>::type default_value) {
  AttrValue av;
  if (!(value == default_value)) {
    av.SetAttrValue(std::forward<T>(value));
  }
  return av;
}
graphStatus AddEdgeAndUpdatePeerDesc(Graph &graph, GNode &src_node, int32_t src_port_index, GNode &dst_node,
                                     int32_t dst_port_index);
class CompliantNodeBuilder {
 public:
  enum IrAttrType { kEsAttrRequired, kEsAttrOptional };
  enum IrInputType { kEsIrInputRequired, kEsIrInputOptional, kEsIrInputDynamic, kEsIrInputTypeEnd };
  enum IrOutputType { kEsIrOutputRequired, kEsIrOutputDynamic, kEsIrOutputTypeEnd };
  struct IrAttrDef {
    std::string attr_name;
    IrAttrType ir_attr_type;
    std::string attr_data_type;
    AttrValue attr_default_value;
  };
  struct IrInputDef {
    std::string name;
    IrInputType ir_input_type;
    std::string symbol_id;
  };
  struct IrOutputDef {
    std::string name;
    IrOutputType ir_output_type;
    std::string symbol_id;
  };
  explicit CompliantNodeBuilder(Graph *graph);
  ~CompliantNodeBuilder();
  CompliantNodeBuilder &OpType(const char_t *type);
  CompliantNodeBuilder &Name(const char_t *name);
  CompliantNodeBuilder &IrDefInputs(std::vector<IrInputDef> input_ir_def);
  CompliantNodeBuilder &IrDefOutputs(std::vector<IrOutputDef> output_ir_def);
  CompliantNodeBuilder &IrDefAttrs(std::vector<IrAttrDef> attr_ir_def);
  CompliantNodeBuilder &InstanceDynamicInputNum(const char_t *ir_name, int32_t num);
  CompliantNodeBuilder &InstanceDynamicOutputNum(const char_t *ir_name, int32_t num);
  GNode Build();
};
}  // namespace es
}  // namespace ge
#endif  // GE_OPS_TESTS_GE_ES_COMPLIANT_NODE_BUILDER_H_
