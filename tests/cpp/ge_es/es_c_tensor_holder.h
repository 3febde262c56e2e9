// GE's EsCTensorHolder: declarations of "es_c_tensor_holder.h" (GE
// inc/external/ge/eager_style_graph_builder/cpp/es_c_tensor_holder.h at
// ffdcbc9f74), every public member with GE's signature and GE's include
// guard, written for ge-ops' tests (see README.md).
#ifndef AIR_CXX_COMPILER_GRAPH_EAGER_STYLE_EAGER_STYLE_GRAPH_BUILDER_ESC_TENSOR_HOLDER_H_
#define AIR_CXX_COMPILER_GRAPH_EAGER_STYLE_EAGER_STYLE_GRAPH_BUILDER_ESC_TENSOR_HOLDER_H_
#include <cstdint>
#include <memory>
#include "graph/gnode.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "ge/ge_api_types.h"
struct EsCGraphBuilder;
struct EsCTensorHolder {
 public:
  EsCTensorHolder(EsCGraphBuilder &owner, const ge::GNode &producer, int32_t index);
  ~EsCTensorHolder();
  EsCTensorHolder(EsCTensorHolder &&) noexcept;
  EsCTensorHolder &operator=(EsCTensorHolder &&) noexcept;
  EsCTensorHolder(const EsCTensorHolder &) = delete;
  EsCTensorHolder &operator=(const EsCTensorHolder &) = delete;

  ge::Status SetDataType(const ge::DataType data_type);
  ge::Status SetFormat(const ge::Format format);
  ge::Status SetOriginFormat(const ge::Format format);
  ge::Status SetStorageFormat(const ge::Format format);
  ge::Status SetOriginShape(const ge::Shape &shape);
  ge::Status SetStorageShape(const ge::Shape &shape);
  ge::Status SetShape(const ge::Shape &shape);
  ge::Status SetOriginSymbolShape(const char *const *shape_str, const int64_t shape_str_num);

  ge::GNode &GetProducer();
  int32_t GetOutIndex() const;
  EsCGraphBuilder &GetOwnerBuilder();

 private:
  struct EsCTensorHolderImpl;
  std::unique_ptr<EsCTensorHolderImpl> impl_;
};
#endif  // AIR_CXX_COMPILER_GRAPH_EAGER_STYLE_EAGER_STYLE_GRAPH_BUILDER_ESC_TENSOR_HOLDER_H_
