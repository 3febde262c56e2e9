// GE's EsTensorLike ("es_tensor_like.h"): an argument that is a tensor holder,
// a number, a list of numbers or nullptr; numbers become Const nodes
// (int64 or float32) in the graph they are used in. GE's declarations; the
// class is defined in ge-ops' ES runtime library, ResolveBuilder inline.
#ifndef AIR_CXX_COMPILER_GRAPH_EAGER_STYLE_GRAPH_BUILDER_ES_TENSOR_LIKE_H_
#define AIR_CXX_COMPILER_GRAPH_EAGER_STYLE_GRAPH_BUILDER_ES_TENSOR_LIKE_H_

#include <cstddef>
#include <memory>
#include <vector>
#include "es_tensor_holder.h"
#include "es_c_tensor_holder.h"
#include "es_graph_builder.h"

namespace ge {
namespace es {
class EsTensorLike {
 public:
  EsTensorLike(const EsTensorHolder &tensor);
  EsTensorLike(const std::nullptr_t);
  EsTensorLike(const int64_t value);
  EsTensorLike(const float value);
  EsTensorLike(const std::vector<int64_t> &values);
  EsTensorLike(const std::vector<float> &values);
  ~EsTensorLike();
  EsTensorLike(const EsTensorLike &) = delete;
  EsTensorLike(EsTensorLike &&) = delete;
  EsTensorLike &operator=(const EsTensorLike &) = delete;
  EsTensorLike &operator=(EsTensorLike &&) = delete;

  // The builder of the tensor it holds; nullptr for a number or nullptr.
  EsCGraphBuilder *GetOwnerBuilder() const;
  // The tensor it holds, or a new Const node of `graph` for a number (a null
  // holder for nullptr).
  EsTensorHolder ToTensorHolder(EsCGraphBuilder *graph) const;

 private:
  class EsTensorLikeImpl;
  std::unique_ptr<EsTensorLikeImpl> impl_;
};

// The builder of the first argument that has one (nullptr if none does).
inline EsCGraphBuilder *ResolveBuilderImpl(const EsTensorLike &tensor_like) {
  return tensor_like.GetOwnerBuilder();
}
inline EsCGraphBuilder *ResolveBuilderImpl(EsCTensorHolder *esb_tensor) {
  return esb_tensor == nullptr ? nullptr : &esb_tensor->GetOwnerBuilder();
}
inline EsCGraphBuilder *ResolveBuilderImpl(const std::vector<EsTensorHolder> &tensors) {
  for (const auto &each : tensors) {
    if (auto *found = ResolveBuilderImpl(each.GetCTensorHolder())) {
      return found;
    }
  }
  return nullptr;
}
inline EsCGraphBuilder *ResolveBuilderImpl(const std::vector<EsCTensorHolder *> &esb_tensors) {
  for (auto *each : esb_tensors) {
    if (auto *found = ResolveBuilderImpl(each)) {
      return found;
    }
  }
  return nullptr;
}
inline EsCGraphBuilder *ResolveBuilderImpl(const EsGraphBuilder *graph_builder) {
  return graph_builder == nullptr ? nullptr : graph_builder->GetCGraphBuilder();
}
inline EsCGraphBuilder *ResolveBuilderImpl(EsCGraphBuilder *graph_builder) {
  return graph_builder;
}
inline EsCGraphBuilder *ResolveBuilderImpl(const std::nullptr_t) {
  return nullptr;
}
inline EsCGraphBuilder *ResolveBuilder() {
  return nullptr;
}
template <typename T, typename... Ts>
inline EsCGraphBuilder *ResolveBuilder(const T &first, const Ts &...rest) {
  if (EsCGraphBuilder *found = ResolveBuilderImpl(first)) {
    return found;
  }
  return ResolveBuilder(rest...);
}
}  // namespace es
}  // namespace ge

#endif  // AIR_CXX_COMPILER_GRAPH_EAGER_STYLE_GRAPH_BUILDER_ES_TENSOR_LIKE_H_
