// GE's EsTensorHolder ("es_tensor_holder.h"): GE's declarations, a copyable
// handle over an EsCTensorHolder (which its graph builder owns). The inline
// members forward to the C API; the others are defined in ge-ops' ES runtime
// library. The arithmetic operators add GE's Add, Sub, Mul and Div nodes.
#ifndef AIR_CXX_COMPILER_GRAPH_EAGER_STYLE_GRAPH_BUILDER_ES_TENSOR_HOLDER_H_
#define AIR_CXX_COMPILER_GRAPH_EAGER_STYLE_GRAPH_BUILDER_ES_TENSOR_HOLDER_H_
#include <vector>
#include "graph/types.h"
#include "graph/gnode.h"
#include "ge/ge_api_types.h"
#include "esb_funcs.h"

namespace ge {
namespace es {
class EsTensorHolder {
 public:
  EsTensorHolder(EsCTensorHolder *tensor) : tensor_holder_(tensor) {}
  EsTensorHolder() = default;

  EsTensorHolder operator+(const EsTensorHolder &other) const;
  EsTensorHolder operator-(const EsTensorHolder &other) const;
  EsTensorHolder operator*(const EsTensorHolder &other) const;
  EsTensorHolder operator/(const EsTensorHolder &other) const;

  EsTensorHolder &SetDataType(const ge::DataType data_type) {
    EsSetDataType(tensor_holder_, static_cast<C_DataType>(data_type));
    return *this;
  }
  EsTensorHolder &SetFormat(const ge::Format format) {
    EsSetFormat(tensor_holder_, static_cast<C_Format>(format));
    return *this;
  }
  EsTensorHolder &SetShape(const std::vector<int64_t> &dims) {
    EsSetShape(tensor_holder_, dims.data(), static_cast<int64_t>(dims.size()));
    return *this;
  }
  EsTensorHolder &SetOriginSymbolShape(const std::vector<const char *> &dims) {
    EsSetOriginSymbolShape(tensor_holder_, dims.data(), static_cast<int64_t>(dims.size()));
    return *this;
  }

  Status SetAttr(const char *attr_name, int64_t value) {
    return static_cast<Status>(EsSetInt64AttrForTensor(tensor_holder_, attr_name, value));
  }
  Status SetAttr(const char *attr_name, const char *value) {
    return static_cast<Status>(EsSetStringAttrForTensor(tensor_holder_, attr_name, value));
  }
  Status SetAttr(const char *attr_name, bool value) {
    return static_cast<Status>(EsSetBoolAttrForTensor(tensor_holder_, attr_name, value));
  }
  Status SetAttrForNode(const char *attr_name, int64_t value) {
    return static_cast<Status>(EsSetInt64AttrForNode(tensor_holder_, attr_name, value));
  }
  Status SetAttrForNode(const char *attr_name, const char *value) {
    return static_cast<Status>(EsSetStringAttrForNode(tensor_holder_, attr_name, value));
  }
  Status SetAttrForNode(const char *attr_name, bool value) {
    return static_cast<Status>(EsSetBoolAttrForNode(tensor_holder_, attr_name, value));
  }

  // Owned by the graph builder: never free it.
  EsCTensorHolder *GetCTensorHolder() const {
    return tensor_holder_;
  }
  int32_t GetProducerOutIndex() const;
  GNode *GetProducer() const;
  Status AddControlEdge(const std::vector<EsTensorHolder> &ctrl_ins) const;

 private:
  friend class EsGraphBuilder;
  EsCTensorHolder *tensor_holder_{nullptr};
};
}  // namespace es
}  // namespace ge
#endif  // AIR_CXX_COMPILER_GRAPH_EAGER_STYLE_GRAPH_BUILDER_ES_TENSOR_HOLDER_H_
