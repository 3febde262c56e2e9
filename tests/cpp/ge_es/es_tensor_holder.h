// GE's EsTensorHolder: declarations of "es_tensor_holder.h" (GE
// inc/external/ge/eager_style_graph_builder/cpp/es_tensor_holder.h at
// ffdcbc9f74), every public member with GE's signature and GE's include
// guard, written for ge-ops' tests (see README.md). Declarations only but
// the two accessors generated code calls.
#ifndef AIR_CXX_COMPILER_GRAPH_EAGER_STYLE_GRAPH_BUILDER_ES_TENSOR_HOLDER_H_
#define AIR_CXX_COMPILER_GRAPH_EAGER_STYLE_GRAPH_BUILDER_ES_TENSOR_HOLDER_H_
#include <cstdint>
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

  EsTensorHolder &SetDataType(const ge::DataType data_type);
  EsTensorHolder &SetFormat(const ge::Format format);
  EsTensorHolder &SetShape(const std::vector<int64_t> &dims);
  EsTensorHolder &SetOriginSymbolShape(const std::vector<const char *> &dims);

  Status SetAttr(const char *attr_name, int64_t value);
  Status SetAttr(const char *attr_name, const char *value);
  Status SetAttr(const char *attr_name, bool value);
  Status SetAttrForNode(const char *attr_name, int64_t value);
  Status SetAttrForNode(const char *attr_name, const char *value);
  Status SetAttrForNode(const char *attr_name, bool value);

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
