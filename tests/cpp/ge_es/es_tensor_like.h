// GE's "es_tensor_like.h", abridged: EsTensorLike (neither copied nor moved)
// and ResolveBuilder over the kinds of argument generated code passes.
#ifndef GE_OPS_TESTS_GE_ES_ES_TENSOR_LIKE_H_
#define GE_OPS_TESTS_GE_ES_ES_TENSOR_LIKE_H_
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
  EsCGraphBuilder *GetOwnerBuilder() const;
  EsTensorHolder ToTensorHolder(EsCGraphBuilder *graph) const;
};
EsCGraphBuilder *ResolveBuilderImpl(const EsTensorLike &tensor_like);
EsCGraphBuilder *ResolveBuilderImpl(const std::vector<EsTensorHolder> &tensors);
EsCGraphBuilder *ResolveBuilderImpl(EsCTensorHolder *esb_tensor);
EsCGraphBuilder *ResolveBuilderImpl(const std::vector<EsCTensorHolder *> &esb_tensors);
EsCGraphBuilder *ResolveBuilderImpl(const EsGraphBuilder *graph_builder);
EsCGraphBuilder *ResolveBuilderImpl(EsCGraphBuilder *graph_builder);
EsCGraphBuilder *ResolveBuilderImpl(const std::nullptr_t);
inline EsCGraphBuilder *ResolveBuilder() {
  return nullptr;
}
template <typename T, typename... Ts>
EsCGraphBuilder *ResolveBuilder(const T &first, const Ts &...rest) {
  EsCGraphBuilder *builder = ResolveBuilderImpl(first);
  if (builder != nullptr) {
    return builder;
  }
  return ResolveBuilder(rest...);
}
}  // namespace es
}  // namespace ge
#endif  // GE_OPS_TESTS_GE_ES_ES_TENSOR_LIKE_H_
