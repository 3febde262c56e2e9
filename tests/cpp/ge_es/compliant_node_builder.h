// GE's CompliantNodeBuilder and the attr helpers generated sources call:
// declarations of "compliant_node_builder.h" (GE inc/external/ge/
// eager_style_graph_builder/cpp/compliant_node_builder.h at ffdcbc9f74),
// with GE's signatures and include guard, written for ge-ops' tests (see
// README.md). CreateFrom, ValuesEqual and CreateFromIfNotEqual keep bodies
// (generated sources instantiate them; a float default compares within
// 1e-6, vectors element by element, everything else with ==). Its
// includes are GE's (generated sources rely on <unordered_set>). Left out:
// CompliantNodeBuilder::AnyTypeOperator (over graph/operator.h's protected
// registration API), which generated code does not use.
#ifndef AIR_CXX_COMPILER_GRAPH_EAGER_STYLE_GRAPH_BUILDER_COMPLIANT_NODE_BUILDER_H_
#define AIR_CXX_COMPILER_GRAPH_EAGER_STYLE_GRAPH_BUILDER_COMPLIANT_NODE_BUILDER_H_
#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>
#include "graph/attr_value.h"
#include "graph/gnode.h"
#include "graph/graph.h"
#include "graph/operator.h"
namespace ge {
namespace es {
template <typename T>
AttrValue CreateFrom(T &&t) {
  AttrValue av;
  av.SetAttrValue(std::forward<T>(t));
  return av;
}
template <typename T>
bool ValuesEqual(const T &a, const T &b) {
  return a == b;
}
template <>
inline bool ValuesEqual<float>(const float &a, const float &b) {
  return std::fabs(a - b) < 1e-6f;
}
template <typename T>
bool ValuesEqual(const std::vector<T> &a, const std::vector<T> &b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](const T &x, const T &y) { return ValuesEqual(x, y); });
}
template <typename T>
AttrValue CreateFromIfNotEqual(T &&value, typename std::decay<T>::type default_value) {
  AttrValue av;
  if (!ValuesEqual(value, default_value)) {
    av.SetAttrValue(std::forward<T>(value));
  }
  return av;
}
ge::graphStatus AddEdgeAndUpdatePeerDesc(Graph &graph, GNode &src_node, int32_t src_port_index, GNode &dst_node,
                                         int32_t dst_port_index);

class CompliantNodeBuilder {
 public:
  enum IrAttrType { kEsAttrRequired, kEsAttrOptional };
  enum IrInputType { kEsIrInputRequired, kEsIrInputOptional, kEsIrInputDynamic, kEsIrInputTypeEnd };
  enum IrOutputType { kEsIrOutputRequired, kEsIrOutputDynamic, kEsIrOutputTypeEnd };

  // V1: aggregates of std::string (ABI-dependent), what gen-ops renders
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

  // V2: classes over C strings
  class IrInputDefV2 {
   public:
    IrInputDefV2();
    IrInputDefV2(const char_t *name, IrInputType ir_input_type, const char_t *symbol_id);
    ~IrInputDefV2();
    IrInputDefV2(const IrInputDefV2 &other);
    IrInputDefV2 &operator=(const IrInputDefV2 &other);
    IrInputDefV2(IrInputDefV2 &&other) noexcept;
    IrInputDefV2 &operator=(IrInputDefV2 &&other) noexcept;
    IrInputDefV2 &Name(const char_t *name);
    IrInputDefV2 &InputType(IrInputType ir_input_type);
    IrInputDefV2 &SymbolId(const char_t *symbol_id);
    const char_t *GetName() const;
    IrInputType GetInputType() const;
    const char_t *GetSymbolId() const;

   private:
    class Impl;
    Impl *impl_;
  };
  class IrOutputDefV2 {
   public:
    IrOutputDefV2();
    IrOutputDefV2(const char_t *name, IrOutputType ir_output_type, const char_t *symbol_id);
    ~IrOutputDefV2();
    IrOutputDefV2(const IrOutputDefV2 &other);
    IrOutputDefV2 &operator=(const IrOutputDefV2 &other);
    IrOutputDefV2(IrOutputDefV2 &&other) noexcept;
    IrOutputDefV2 &operator=(IrOutputDefV2 &&other) noexcept;
    IrOutputDefV2 &Name(const char_t *name);
    IrOutputDefV2 &OutputType(IrOutputType ir_output_type);
    IrOutputDefV2 &SymbolId(const char_t *symbol_id);
    const char_t *GetName() const;
    IrOutputType GetOutputType() const;
    const char_t *GetSymbolId() const;

   private:
    class Impl;
    Impl *impl_;
  };
  class IrAttrDefV2 {
   public:
    IrAttrDefV2();
    IrAttrDefV2(const char_t *attr_name, IrAttrType ir_attr_type, const char_t *attr_data_type,
                const AttrValue &attr_default_value);
    ~IrAttrDefV2();
    IrAttrDefV2(const IrAttrDefV2 &other);
    IrAttrDefV2 &operator=(const IrAttrDefV2 &other);
    IrAttrDefV2(IrAttrDefV2 &&other) noexcept;
    IrAttrDefV2 &operator=(IrAttrDefV2 &&other) noexcept;
    IrAttrDefV2 &AttrName(const char_t *attr_name);
    IrAttrDefV2 &AttrType(IrAttrType ir_attr_type);
    IrAttrDefV2 &AttrDataType(const char_t *attr_data_type);
    IrAttrDefV2 &DefaultValue(const AttrValue &attr_default_value);
    const char_t *GetAttrName() const;
    IrAttrType GetAttrType() const;
    const char_t *GetAttrDataType() const;
    const AttrValue &GetDefaultValue() const;

   private:
    class Impl;
    Impl *impl_;
  };

  explicit CompliantNodeBuilder(ge::Graph *graph);
  ~CompliantNodeBuilder();
  CompliantNodeBuilder(CompliantNodeBuilder &&) noexcept;
  CompliantNodeBuilder &operator=(CompliantNodeBuilder &&) noexcept;
  CompliantNodeBuilder(const CompliantNodeBuilder &) = delete;
  CompliantNodeBuilder &operator=(const CompliantNodeBuilder &) = delete;

  CompliantNodeBuilder &OpType(const char_t *type);
  CompliantNodeBuilder &IrDefInputs(std::vector<IrInputDef> input_ir_def);
  CompliantNodeBuilder &IrDefInputsV2(const IrInputDefV2 *input_ir_def, size_t input_ir_def_num);
  CompliantNodeBuilder &IrDefInputsV2(std::initializer_list<IrInputDefV2> input_ir_def);
  CompliantNodeBuilder &IrDefInputsV2(const std::vector<IrInputDefV2> &input_ir_def);
  CompliantNodeBuilder &IrDefOutputs(std::vector<IrOutputDef> output_ir_def);
  CompliantNodeBuilder &IrDefOutputsV2(const IrOutputDefV2 *output_ir_def, size_t output_ir_def_num);
  CompliantNodeBuilder &IrDefOutputsV2(std::initializer_list<IrOutputDefV2> output_ir_def);
  CompliantNodeBuilder &IrDefOutputsV2(const std::vector<IrOutputDefV2> &output_ir_def);
  CompliantNodeBuilder &IrDefAttrs(std::vector<IrAttrDef> attr_ir_def);
  CompliantNodeBuilder &IrDefAttrsV2(const IrAttrDefV2 *attr_ir_def, size_t attr_ir_def_num);
  CompliantNodeBuilder &IrDefAttrsV2(std::initializer_list<IrAttrDefV2> attr_ir_def);
  CompliantNodeBuilder &IrDefAttrsV2(const std::vector<IrAttrDefV2> &attr_ir_def);
  CompliantNodeBuilder &Name(const char_t *name);
  CompliantNodeBuilder &InstanceDynamicInputNum(const char_t *ir_name, int32_t num);
  CompliantNodeBuilder &InstanceDynamicOutputNum(const char_t *ir_name, int32_t num);
  CompliantNodeBuilder &InstanceOutputDataType(const char_t *name, ge::DataType data_type);
  CompliantNodeBuilder &InstanceOutputShape(const char_t *name, const std::vector<int64_t> &shape);
  CompliantNodeBuilder &InstanceOutputOriginShape(const char_t *name, const std::vector<int64_t> &shape);
  CompliantNodeBuilder &InstanceOutputStorageShape(const char_t *name, const std::vector<int64_t> &shape);
  CompliantNodeBuilder &InstanceOutputFormat(const char_t *name, ge::Format format);
  CompliantNodeBuilder &InstanceOutputOriginFormat(const char_t *name, ge::Format format);
  CompliantNodeBuilder &InstanceOutputStorageFormat(const char_t *name, ge::Format format);
  ge::GNode Build() const;

 private:
  class CompliantNodeBuilderImpl;
  std::unique_ptr<CompliantNodeBuilderImpl> impl_;
};
}  // namespace es
}  // namespace ge
#endif  // AIR_CXX_COMPILER_GRAPH_EAGER_STYLE_GRAPH_BUILDER_COMPLIANT_NODE_BUILDER_H_
