// GE's class Operator ("graph/operator.h"), written for ge-ops' tests: the
// Op<Type> aliases that ATTR and REQUIRED_ATTR paste, the constructors, and
// every overload of the calls REG_OP's expansion makes (SetAttr, GetAttr,
// AttrRegister, the input, output, subgraph and DATATYPE registration, the
// desc accessors), with GE's access (public or protected) and GE's
// deprecation marks, so overload resolution picks what it picks with GE.
// Declarations only; GE defines them in its library.
//
// As in GE's external headers, NamedAttrs, AttrValue and Graph's helpers are
// only declared here, never defined: `OpNamedAttrs` names an incomplete
// type. Left out: the input/output attr accessors (SetInputAttr, ...) and
// the friends of GE's own implementation.
#ifndef GE_OPS_TESTS_GE_EXTERNAL_GRAPH_OPERATOR_H_
#define GE_OPS_TESTS_GE_EXTERNAL_GRAPH_OPERATOR_H_

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "graph/error_codes.h"
#include "graph/inference_context.h"
#include "graph/tensor.h"
#include "graph/types.h"

namespace ge {
class Operator;
class OperatorImpl;
class NamedAttrs;  // declared, never defined, in GE's external headers
class Graph;
class AttrValue;
class Node;
class OpIO;

using SubgraphBuilder = std::function<Graph()>;
using OperatorImplPtr = std::shared_ptr<OperatorImpl>;
using OperatorPtr = std::shared_ptr<Operator>;
using OutHandler = std::shared_ptr<OpIO>;
using InHandler = std::shared_ptr<OpIO>;

class GE_FUNC_DEV_VISIBILITY GE_FUNC_HOST_VISIBILITY Operator {
 public:
  using OpInt = int64_t;
  using OpFloat = float32_t;
  using OpString = std::string;
  using OpAscendString = AscendString;
  using OpBool = bool;
  using OpTensor = Tensor;
  using OpType = ge::DataType;
  using OpNamedAttrs = ge::NamedAttrs;
  using OpListInt = std::vector<int64_t>;
  using OpListFloat = std::vector<float32_t>;
  using OpListString = std::vector<std::string>;
  using OpListAcendString = std::vector<AscendString>;
  using OpListAscendString = OpListAcendString;
  using OpListBool = std::vector<bool>;
  using OpListTensor = std::vector<Tensor>;
  using OpBytes = std::vector<uint8_t>;
  using OpListListInt = std::vector<std::vector<int64_t>>;
  using OpListType = std::vector<ge::DataType>;
  using OpListNamedAttrs = std::vector<ge::NamedAttrs>;

  Operator() {}
  ATTRIBUTED_DEPRECATED(Operator(const char_t *))
  explicit Operator(const std::string &type);
  explicit Operator(const char_t *type);
  ATTRIBUTED_DEPRECATED(Operator(const char_t *, const char_t *))
  Operator(const std::string &name, const std::string &type);
  Operator(const AscendString &name, const AscendString &type);
  Operator(const char_t *name, const char_t *type);
  virtual ~Operator() = default;

  bool IsEmpty() const;
  graphStatus GetName(AscendString &name) const;
  graphStatus GetOpType(AscendString &type) const;

  // Inputs, by name or index.
  ATTRIBUTED_DEPRECATED(Operator &SetInput(const char_t *, const Operator &))
  Operator &SetInput(const std::string &dst_name, const Operator &src_oprt);
  Operator &SetInput(const char_t *dst_name, const Operator &src_oprt);
  ATTRIBUTED_DEPRECATED(Operator &SetInput(const char_t *, const Operator &, const char_t *))
  Operator &SetInput(const std::string &dst_name, const Operator &src_oprt,
                     const std::string &name);
  Operator &SetInput(const char_t *dst_name, const Operator &src_oprt, const char_t *name);
  ATTRIBUTED_DEPRECATED(Operator &SetInput(const char_t *, const Operator &, uint32_t))
  Operator &SetInput(const std::string &dst_name, const Operator &src_oprt, uint32_t index);
  Operator &SetInput(const char_t *dst_name, const Operator &src_oprt, uint32_t index);
  Operator &SetInput(uint32_t dst_index, const Operator &src_oprt, uint32_t src_index);
  Operator &SetInput(const char_t *dst_name, uint32_t dst_index, const Operator &src_oprt,
                     const char_t *name);
  Operator &SetInput(const char_t *dst_name, uint32_t dst_index, const Operator &src_oprt);
  Operator &AddControlInput(const Operator &src_oprt);

  // Tensor descs.
  ATTRIBUTED_DEPRECATED(TensorDesc GetInputDescByName(const char_t *) const)
  TensorDesc GetInputDesc(const std::string &name) const;
  TensorDesc GetInputDescByName(const char_t *name) const;
  TensorDesc GetInputDesc(uint32_t index) const;
  ATTRIBUTED_DEPRECATED(graphStatus UpdateInputDesc(const char_t *, const TensorDesc &))
  graphStatus UpdateInputDesc(const std::string &name, const TensorDesc &tensor_desc);
  graphStatus UpdateInputDesc(const char_t *name, const TensorDesc &tensor_desc);
  ATTRIBUTED_DEPRECATED(TensorDesc GetOutputDescByName(const char_t *) const)
  TensorDesc GetOutputDesc(const std::string &name) const;
  TensorDesc GetOutputDescByName(const char_t *name) const;
  TensorDesc GetOutputDesc(uint32_t index) const;
  ATTRIBUTED_DEPRECATED(graphStatus UpdateOutputDesc(const char_t *, const TensorDesc &))
  graphStatus UpdateOutputDesc(const std::string &name, const TensorDesc &tensor_desc);
  graphStatus UpdateOutputDesc(const char_t *name, const TensorDesc &tensor_desc);
  ATTRIBUTED_DEPRECATED(TensorDesc GetDynamicInputDesc(const char_t *, uint32_t) const)
  TensorDesc GetDynamicInputDesc(const std::string &name, uint32_t index) const;
  TensorDesc GetDynamicInputDesc(const char_t *name, uint32_t index) const;
  ATTRIBUTED_DEPRECATED(graphStatus UpdateDynamicInputDesc(const char_t *, uint32_t,
                                                           const TensorDesc &))
  graphStatus UpdateDynamicInputDesc(const std::string &name, uint32_t index,
                                     const TensorDesc &tensor_desc);
  graphStatus UpdateDynamicInputDesc(const char_t *name, uint32_t index,
                                     const TensorDesc &tensor_desc);
  ATTRIBUTED_DEPRECATED(TensorDesc GetDynamicOutputDesc(const char_t *, uint32_t) const)
  TensorDesc GetDynamicOutputDesc(const std::string &name, uint32_t index) const;
  TensorDesc GetDynamicOutputDesc(const char_t *name, uint32_t index) const;
  ATTRIBUTED_DEPRECATED(graphStatus UpdateDynamicOutputDesc(const char_t *, uint32_t,
                                                            const TensorDesc &))
  graphStatus UpdateDynamicOutputDesc(const std::string &name, uint32_t index,
                                      const TensorDesc &tensor_desc);
  graphStatus UpdateDynamicOutputDesc(const char_t *name, uint32_t index,
                                      const TensorDesc &tensor_desc);
  graphStatus UpdateInputDesc(const uint32_t index, const TensorDesc &tensor_desc);
  graphStatus UpdateOutputDesc(const uint32_t index, const TensorDesc &tensor_desc);

  graphStatus InferShapeAndType();
  void SetInferenceContext(const InferenceContextPtr &inference_context);
  InferenceContextPtr GetInferenceContext() const;
  graphStatus VerifyAllAttr(bool disable_common_verifier = false);
  size_t GetInputsSize() const;
  size_t GetOutputsSize() const;
  graphStatus GetAllAttrNamesAndTypes(std::map<AscendString, AscendString> &attr_name_types) const;

  // Attrs by a std::string name: superseded, except the std::string values.
  ATTRIBUTED_DEPRECATED(Operator &SetAttr(const char_t *, int64_t))
  Operator &SetAttr(const std::string &name, int64_t attr_value);
  ATTRIBUTED_DEPRECATED(Operator &SetAttr(const char_t *, int32_t))
  Operator &SetAttr(const std::string &name, int32_t attr_value);
  ATTRIBUTED_DEPRECATED(Operator &SetAttr(const char_t *, uint32_t))
  Operator &SetAttr(const std::string &name, uint32_t attr_value);
  ATTRIBUTED_DEPRECATED(graphStatus GetAttr(const char_t *, int64_t &) const)
  graphStatus GetAttr(const std::string &name, int64_t &attr_value) const;
  ATTRIBUTED_DEPRECATED(graphStatus GetAttr(const char_t *, int32_t &) const)
  graphStatus GetAttr(const std::string &name, int32_t &attr_value) const;
  ATTRIBUTED_DEPRECATED(graphStatus GetAttr(const char_t *, uint32_t &) const)
  graphStatus GetAttr(const std::string &name, uint32_t &attr_value) const;
  ATTRIBUTED_DEPRECATED(Operator &SetAttr(const char_t *, const std::vector<int64_t> &))
  Operator &SetAttr(const std::string &name, const std::vector<int64_t> &attr_value);
  ATTRIBUTED_DEPRECATED(Operator &SetAttr(const char_t *, const std::vector<int32_t> &))
  Operator &SetAttr(const std::string &name, const std::vector<int32_t> &attr_value);
  ATTRIBUTED_DEPRECATED(Operator &SetAttr(const char_t *, const std::vector<uint32_t> &))
  Operator &SetAttr(const std::string &name, const std::vector<uint32_t> &attr_value);
  ATTRIBUTED_DEPRECATED(Operator &SetAttr(const char_t *, std::initializer_list<int64_t> &&))
  Operator &SetAttr(const std::string &name, std::initializer_list<int64_t> &&attr_value);
  ATTRIBUTED_DEPRECATED(graphStatus GetAttr(const char_t *name, std::vector<int64_t> &) const)
  graphStatus GetAttr(const std::string &name, std::vector<int64_t> &attr_value) const;
  ATTRIBUTED_DEPRECATED(graphStatus GetAttr(const char_t *name, std::vector<int32_t> &) const)
  graphStatus GetAttr(const std::string &name, std::vector<int32_t> &attr_value) const;
  ATTRIBUTED_DEPRECATED(graphStatus GetAttr(const std::string &, std::vector<uint32_t> &) const)
  graphStatus GetAttr(const std::string &name, std::vector<uint32_t> &attr_value) const;
  ATTRIBUTED_DEPRECATED(Operator &SetAttr(const char_t *, float32_t attr_value))
  Operator &SetAttr(const std::string &name, float32_t attr_value);
  ATTRIBUTED_DEPRECATED(graphStatus GetAttr(const char_t *, float32_t &) const)
  graphStatus GetAttr(const std::string &name, float32_t &attr_value) const;
  ATTRIBUTED_DEPRECATED(Operator &SetAttr(const char_t *, const std::vector<float32_t> &))
  Operator &SetAttr(const std::string &name, const std::vector<float32_t> &attr_value);
  ATTRIBUTED_DEPRECATED(graphStatus GetAttr(const char_t *, std::vector<float32_t> &) const)
  graphStatus GetAttr(const std::string &name, std::vector<float32_t> &attr_value) const;
  ATTRIBUTED_DEPRECATED(Operator &SetAttr(const char_t *, AttrValue &&))
  Operator &SetAttr(const std::string &name, AttrValue &&attr_value);
  ATTRIBUTED_DEPRECATED(graphStatus GetAttr(const char_t *, AttrValue &) const)
  graphStatus GetAttr(const std::string &name, AttrValue &attr_value) const;
  Operator &SetAttr(const std::string &name, const std::string &attr_value);
  graphStatus GetAttr(const std::string &name, std::string &attr_value) const;
  Operator &SetAttr(const std::string &name, const std::vector<std::string> &attr_value);
  graphStatus GetAttr(const std::string &name, std::vector<std::string> &attr_value) const;
  ATTRIBUTED_DEPRECATED(Operator &SetAttr(const char_t *, bool))
  Operator &SetAttr(const std::string &name, bool attr_value);
  ATTRIBUTED_DEPRECATED(graphStatus GetAttr(const char_t *, bool &) const)
  graphStatus GetAttr(const std::string &name, bool &attr_value) const;
  ATTRIBUTED_DEPRECATED(Operator &SetAttr(const char_t *, const std::vector<bool> &))
  Operator &SetAttr(const std::string &name, const std::vector<bool> &attr_value);
  ATTRIBUTED_DEPRECATED(graphStatus GetAttr(const char_t *, std::vector<bool> &) const)
  graphStatus GetAttr(const std::string &name, std::vector<bool> &attr_value) const;
  ATTRIBUTED_DEPRECATED(Operator &SetAttr(const char_t *, const Tensor &))
  Operator &SetAttr(const std::string &name, const Tensor &attr_value);
  ATTRIBUTED_DEPRECATED(graphStatus GetAttr(const char_t *, Tensor &) const)
  graphStatus GetAttr(const std::string &name, Tensor &attr_value) const;
  ATTRIBUTED_DEPRECATED(Operator &SetAttr(const char_t *, const std::vector<Tensor> &))
  Operator &SetAttr(const std::string &name, const std::vector<Tensor> &attr_value);
  ATTRIBUTED_DEPRECATED(graphStatus GetAttr(const char_t *, std::vector<Tensor> &) const)
  graphStatus GetAttr(const std::string &name, std::vector<Tensor> &attr_value) const;
  ATTRIBUTED_DEPRECATED(Operator &SetAttr(const char_t *, const OpBytes &))
  Operator &SetAttr(const std::string &name, const OpBytes &attr_value);
  ATTRIBUTED_DEPRECATED(graphStatus GetAttr(const char_t *, OpBytes &) const)
  graphStatus GetAttr(const std::string &name, OpBytes &attr_value) const;
  ATTRIBUTED_DEPRECATED(Operator &SetAttr(const char_t *,
                                          const std::vector<std::vector<int64_t>> &))
  Operator &SetAttr(const std::string &name,
                    const std::vector<std::vector<int64_t>> &attr_value);
  ATTRIBUTED_DEPRECATED(graphStatus GetAttr(const char_t *,
                                            std::vector<std::vector<int64_t>> &) const)
  graphStatus GetAttr(const std::string &name,
                      std::vector<std::vector<int64_t>> &attr_value) const;
  ATTRIBUTED_DEPRECATED(Operator &SetAttr(const char_t *, const std::vector<ge::DataType> &))
  Operator &SetAttr(const std::string &name, const std::vector<ge::DataType> &attr_value);
  ATTRIBUTED_DEPRECATED(graphStatus GetAttr(const char_t *, std::vector<ge::DataType> &) const)
  graphStatus GetAttr(const std::string &name, std::vector<ge::DataType> &attr_value) const;
  ATTRIBUTED_DEPRECATED(Operator &SetAttr(const char_t *, const ge::DataType &))
  Operator &SetAttr(const std::string &name, const ge::DataType &attr_value);
  ATTRIBUTED_DEPRECATED(graphStatus GetAttr(const char_t *, ge::DataType &) const)
  graphStatus GetAttr(const std::string &name, ge::DataType &attr_value) const;
  ATTRIBUTED_DEPRECATED(Operator &SetAttr(const char_t *, const ge::NamedAttrs &))
  Operator &SetAttr(const std::string &name, const ge::NamedAttrs &attr_value);
  ATTRIBUTED_DEPRECATED(graphStatus GetAttr(const char_t *, ge::NamedAttrs &) const)
  graphStatus GetAttr(const std::string &name, ge::NamedAttrs &attr_value) const;
  ATTRIBUTED_DEPRECATED(Operator &SetAttr(const char_t *, const std::vector<ge::NamedAttrs> &))
  Operator &SetAttr(const std::string &name, const std::vector<ge::NamedAttrs> &attr_value);
  ATTRIBUTED_DEPRECATED(graphStatus GetAttr(const char_t *,
                                            std::vector<ge::NamedAttrs> &) const)
  graphStatus GetAttr(const std::string &name, std::vector<ge::NamedAttrs> &attr_value) const;

  // Attrs by a C string name.
  Operator &SetAttr(const char_t *name, int64_t attr_value);
  Operator &SetAttr(const char_t *name, int32_t attr_value);
  Operator &SetAttr(const char_t *name, uint32_t attr_value);
  graphStatus GetAttr(const char_t *name, int64_t &attr_value) const;
  graphStatus GetAttr(const char_t *name, int32_t &attr_value) const;
  graphStatus GetAttr(const char_t *name, uint32_t &attr_value) const;
  Operator &SetAttr(const char_t *name, const std::vector<int64_t> &attr_value);
  Operator &SetAttr(const char_t *name, const std::vector<int32_t> &attr_value);
  Operator &SetAttr(const char_t *name, const std::vector<uint32_t> &attr_value);
  Operator &SetAttr(const char_t *name, std::initializer_list<int64_t> &&attr_value);
  graphStatus GetAttr(const char_t *name, std::vector<int64_t> &attr_value) const;
  graphStatus GetAttr(const char_t *name, std::vector<int32_t> &attr_value) const;
  graphStatus GetAttr(const char_t *name, std::vector<uint32_t> &attr_value) const;
  Operator &SetAttr(const char_t *name, float32_t attr_value);
  graphStatus GetAttr(const char_t *name, float32_t &attr_value) const;
  Operator &SetAttr(const char_t *name, const std::vector<float32_t> &attr_value);
  graphStatus GetAttr(const char_t *name, std::vector<float32_t> &attr_value) const;
  Operator &SetAttr(const char_t *name, AttrValue &&attr_value);
  Operator &SetAttr(const char_t *name, const AttrValue &attr_value);
  graphStatus GetAttr(const char_t *name, AttrValue &attr_value) const;
  Operator &SetAttr(const char_t *name, const char_t *attr_value);
  Operator &SetAttr(const char_t *name, const AscendString &attr_value);
  graphStatus GetAttr(const char_t *name, AscendString &attr_value) const;
  Operator &SetAttr(const char_t *name, const std::vector<AscendString> &attr_values);
  graphStatus GetAttr(const char_t *name, std::vector<AscendString> &attr_values) const;
  Operator &SetAttr(const char_t *name, bool attr_value);
  graphStatus GetAttr(const char_t *name, bool &attr_value) const;
  Operator &SetAttr(const char_t *name, const std::vector<bool> &attr_value);
  graphStatus GetAttr(const char_t *name, std::vector<bool> &attr_value) const;
  Operator &SetAttr(const char_t *name, const Tensor &attr_value);
  graphStatus GetAttr(const char_t *name, Tensor &attr_value) const;
  Operator &SetAttr(const char_t *name, const std::vector<Tensor> &attr_value);
  graphStatus GetAttr(const char_t *name, std::vector<Tensor> &attr_value) const;
  Operator &SetAttr(const char_t *name, const OpBytes &attr_value);
  graphStatus GetAttr(const char_t *name, OpBytes &attr_value) const;
  Operator &SetAttr(const char_t *name, const std::vector<std::vector<int64_t>> &attr_value);
  graphStatus GetAttr(const char_t *name, std::vector<std::vector<int64_t>> &attr_value) const;
  Operator &SetAttr(const char_t *name, const std::vector<ge::DataType> &attr_value);
  graphStatus GetAttr(const char_t *name, std::vector<ge::DataType> &attr_value) const;
  Operator &SetAttr(const char_t *name, const ge::DataType &attr_value);
  graphStatus GetAttr(const char_t *name, ge::DataType &attr_value) const;
  Operator &SetAttr(const char_t *name, const ge::NamedAttrs &attr_value);
  graphStatus GetAttr(const char_t *name, ge::NamedAttrs &attr_value) const;
  Operator &SetAttr(const char_t *name, const std::vector<ge::NamedAttrs> &attr_value);
  graphStatus GetAttr(const char_t *name, std::vector<ge::NamedAttrs> &attr_value) const;

  void BreakConnect() const;

  // Subgraphs.
  size_t GetSubgraphNamesCount() const;
  graphStatus GetSubgraphNames(std::vector<AscendString> &names) const;
  ATTRIBUTED_DEPRECATED(SubgraphBuilder GetSubgraphBuilder(const char_t *) const)
  SubgraphBuilder GetSubgraphBuilder(const std::string &name) const;
  SubgraphBuilder GetSubgraphBuilder(const char_t *name) const;
  ATTRIBUTED_DEPRECATED(Graph GetSubgraph(const char_t *) const)
  Graph GetSubgraph(const std::string &name) const;
  Graph GetSubgraph(const char_t *name) const;
  ATTRIBUTED_DEPRECATED(SubgraphBuilder GetDynamicSubgraphBuilder(const char_t *, uint32_t) const)
  SubgraphBuilder GetDynamicSubgraphBuilder(const std::string &name, uint32_t index) const;
  SubgraphBuilder GetDynamicSubgraphBuilder(const char_t *name, uint32_t index) const;
  ATTRIBUTED_DEPRECATED(Graph GetDynamicSubgraph(const char_t *, uint32_t) const)
  Graph GetDynamicSubgraph(const std::string &name, uint32_t index) const;
  Graph GetDynamicSubgraph(const char_t *name, uint32_t index) const;

  // Public registration calls of the dynamic elements.
  void DynamicInputRegister(const char_t *name, const uint32_t num, bool is_push_back = true);
  void DynamicInputRegister(const char_t *name, const uint32_t num,
                            const char_t *datatype_symbol, bool is_push_back = true);
  void DynamicInputRegisterByIndex(const char_t *name, const uint32_t num, size_t index);
  void DynamicOutputRegister(const char_t *name, const uint32_t num, bool is_push_back = true);
  void DynamicOutputRegister(const char_t *name, const uint32_t num,
                             const char_t *datatype_symbol, bool is_push_back = true);
  void SubgraphCountRegister(const char_t *ir_name, uint32_t count);
  void SetSubgraphBuilder(const char_t *ir_name, uint32_t index, const SubgraphBuilder &builder);
  void AttrRegister(const char_t *name, const AttrValue &attr_value);
  graphStatus SetSubgraphInstanceName(const uint32_t index, const char_t *name);

 protected:
  ATTRIBUTED_DEPRECATED(void AttrRegister(const char_t *, float32_t))
  void AttrRegister(const std::string &name, float32_t attr_value);
  ATTRIBUTED_DEPRECATED(void AttrRegister(const char_t *, const std::vector<float32_t> &))
  void AttrRegister(const std::string &name, const std::vector<float32_t> &attr_value);
  ATTRIBUTED_DEPRECATED(void AttrRegister(const char_t *, int64_t))
  void AttrRegister(const std::string &name, int64_t attr_value);
  ATTRIBUTED_DEPRECATED(void AttrRegister(const char_t *, const std::vector<int64_t> &))
  void AttrRegister(const std::string &name, const std::vector<int64_t> &attr_value);
  ATTRIBUTED_DEPRECATED(void AttrRegister(const char_t *, const AscendString &))
  void AttrRegister(const std::string &name, const std::string &attr_value);
  ATTRIBUTED_DEPRECATED(void AttrRegister(const char_t *, const std::vector<AscendString> &))
  void AttrRegister(const std::string &name, const std::vector<std::string> &attr_value);
  ATTRIBUTED_DEPRECATED(void AttrRegister(const char_t *, bool))
  void AttrRegister(const std::string &name, bool attr_value);
  ATTRIBUTED_DEPRECATED(void AttrRegister(const char_t *, const std::vector<bool> &))
  void AttrRegister(const std::string &name, const std::vector<bool> &attr_value);
  ATTRIBUTED_DEPRECATED(void AttrRegister(const char_t *, const Tensor &))
  void AttrRegister(const std::string &name, const Tensor &attr_value);
  ATTRIBUTED_DEPRECATED(void AttrRegister(const char_t *, const std::vector<Tensor> &))
  void AttrRegister(const std::string &name, const std::vector<Tensor> &attr_value);
  ATTRIBUTED_DEPRECATED(void AttrRegister(const char_t *, const OpBytes &))
  void AttrRegister(const std::string &name, const OpBytes &attr_value);
  ATTRIBUTED_DEPRECATED(void AttrRegister(const char_t *,
                                          const std::vector<std::vector<int64_t>> &))
  void AttrRegister(const std::string &name,
                    const std::vector<std::vector<int64_t>> &attr_value);
  ATTRIBUTED_DEPRECATED(void AttrRegister(const char_t *, const std::vector<ge::DataType> &))
  void AttrRegister(const std::string &name, const std::vector<ge::DataType> &attr_value);
  ATTRIBUTED_DEPRECATED(void AttrRegister(const char_t *, const ge::DataType &))
  void AttrRegister(const std::string &name, const ge::DataType &attr_value);
  ATTRIBUTED_DEPRECATED(void AttrRegister(const char_t *, const ge::NamedAttrs &))
  void AttrRegister(const std::string &name, const ge::NamedAttrs &attr_value);
  ATTRIBUTED_DEPRECATED(void AttrRegister(const char_t *, const std::vector<ge::NamedAttrs> &))
  void AttrRegister(const std::string &name, const std::vector<ge::NamedAttrs> &attr_value);
  ATTRIBUTED_DEPRECATED(void AttrRegister(const char_t *, const AscendString &))
  void AttrRegister(const std::string &name, const AscendString &attr_value);
  ATTRIBUTED_DEPRECATED(void AttrRegister(const char_t *, const std::vector<AscendString> &))
  void AttrRegister(const std::string &name, const std::vector<AscendString> &attr_value);

  void AttrRegister(const char_t *name, float32_t attr_value);
  void AttrRegister(const char_t *name, const std::vector<float32_t> &attr_value);
  void AttrRegister(const char_t *name, int64_t attr_value);
  void AttrRegister(const char_t *name, const std::vector<int64_t> &attr_value);
  void AttrRegister(const char_t *name, const char_t *attr_value);
  void AttrRegister(const char_t *name, bool attr_value);
  void AttrRegister(const char_t *name, const std::vector<bool> &attr_value);
  void AttrRegister(const char_t *name, const Tensor &attr_value);
  void AttrRegister(const char_t *name, const std::vector<Tensor> &attr_value);
  void AttrRegister(const char_t *name, const OpBytes &attr_value);
  void AttrRegister(const char_t *name, const std::vector<std::vector<int64_t>> &attr_value);
  void AttrRegister(const char_t *name, const std::vector<ge::DataType> &attr_value);
  void AttrRegister(const char_t *name, const ge::DataType &attr_value);
  void AttrRegister(const char_t *name, const ge::NamedAttrs &attr_value);
  void AttrRegister(const char_t *name, const std::vector<ge::NamedAttrs> &attr_value);
  void AttrRegister(const char_t *name, const AscendString &attr_value);
  void AttrRegister(const char_t *name, const std::vector<AscendString> &attr_value);
  explicit Operator(OperatorImplPtr &&op_impl);

  ATTRIBUTED_DEPRECATED(void InputRegister(const char_t *))
  void InputRegister(const std::string &name);
  void InputRegister(const char_t *name);
  void InputRegister(const char_t *name, const char_t *datatype_symbol);
  ATTRIBUTED_DEPRECATED(void OptionalInputRegister(const char_t *))
  void OptionalInputRegister(const std::string &name);
  void OptionalInputRegister(const char_t *name);
  void OptionalInputRegister(const char_t *name, const char_t *datatype_symbol);
  void InferFuncRegister(const std::function<graphStatus(Operator &)> &func);
  void VerifierFuncRegister(const std::function<graphStatus(Operator &)> &func);
  void InferFormatFuncRegister(const std::function<graphStatus(Operator &)> &func);
  ATTRIBUTED_DEPRECATED(void OutputRegister(const char_t *))
  void OutputRegister(const std::string &name);
  void OutputRegister(const char_t *name);
  void OutputRegister(const char_t *name, const char_t *datatype_symbol);
  ATTRIBUTED_DEPRECATED(void DynamicInputRegister(const char_t *, const uint32_t, bool))
  void DynamicInputRegister(const std::string &name, const uint32_t num, bool is_push_back = true);
  ATTRIBUTED_DEPRECATED(void DynamicInputRegisterByIndex(const char_t *, const uint32_t, size_t))
  void DynamicInputRegisterByIndex(const std::string &name, const uint32_t num, size_t index);
  ATTRIBUTED_DEPRECATED(void DynamicOutputRegister(const char_t *, const uint32_t, bool))
  void DynamicOutputRegister(const std::string &name, const uint32_t num,
                             bool is_push_back = true);
  ATTRIBUTED_DEPRECATED(void RequiredAttrRegister(const char_t *))
  void RequiredAttrRegister(const std::string &name);
  void RequiredAttrRegister(const char_t *name);
  void RequiredAttrWithTypeRegister(const char_t *name, const char_t *type);

  // DATATYPE's range: one of these three.
  void DataTypeRegister(const char_t *datatype_symbol, const TensorType &type_range);
  void DataTypeRegister(const char_t *datatype_symbol, const ListTensorType &list_type_range);
  void DataTypeRegister(const char_t *datatype_symbol, const Promote &promote_rule);

  graphStatus VerifyAll();
  ATTRIBUTED_DEPRECATED(Operator &SetInput(const char_t *, uint32_t, const Operator &))
  Operator &SetInput(const std::string &dst_name, uint32_t dst_index, const Operator &src_oprt);
  ATTRIBUTED_DEPRECATED(Operator &SetInput(const char_t *, uint32_t, const Operator &,
                                           const char_t *))
  Operator &SetInput(const std::string &dst_name, uint32_t dst_index, const Operator &src_oprt,
                     const std::string &name);
  ATTRIBUTED_DEPRECATED(void SubgraphRegister(const char_t *, bool))
  void SubgraphRegister(const std::string &ir_name, bool dynamic);
  void SubgraphRegister(const char_t *ir_name, bool dynamic);
  ATTRIBUTED_DEPRECATED(void SubgraphCountRegister(const char_t *, uint32_t))
  void SubgraphCountRegister(const std::string &ir_name, uint32_t count);
  ATTRIBUTED_DEPRECATED(void SetSubgraphBuilder(const char_t *, uint32_t,
                                                const SubgraphBuilder &))
  void SetSubgraphBuilder(const std::string &ir_name, uint32_t index,
                          const SubgraphBuilder &builder);
  Graph GetSubgraphImpl(const char_t *name) const;

 private:
  Operator &SetInput(const char_t *dst_name, const OutHandler &out_handler);
  OutHandler GetOutput(const char_t *name) const;
  OutHandler GetOutput(uint32_t index) const;
  OperatorImplPtr GetOperatorImplPtr() const;
  graphStatus GetInputConstDataOut(const char_t *dst_name, Tensor &data) const;
  std::shared_ptr<const Node> GetNode() const;

  OperatorImplPtr operator_impl_{nullptr};
};
}  // namespace ge

#endif  // GE_OPS_TESTS_GE_EXTERNAL_GRAPH_OPERATOR_H_
