// GE's EsTensorLike and ResolveBuilder: declarations of "es_tensor_like.h"
// (GE inc/external/ge/eager_style_graph_builder/cpp/es_tensor_like.h at
// ffdcbc9f74), with GE's signatures and include guard, written for ge-ops'
// tests (see README.md). EsTensorLike is neither copied nor moved; its
// converting constructors are what a C++ caller may pass for an input.
// ResolveBuilder keeps its body: generated headers instantiate it.
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

  EsCGraphBuilder *GetOwnerBuilder() const;
  EsTensorHolder ToTensorHolder(EsCGraphBuilder *graph) const;

 private:
  class EsTensorLikeImpl;
  std::unique_ptr<EsTensorLikeImpl> impl_;
};

// Inline in GE, each returning the first builder found (or nullptr).
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
inline EsCGraphBuilder *ResolveBuilder(const T &first, const Ts &...rest) {
  EsCGraphBuilder *found = ResolveBuilderImpl(first);
  return found != nullptr ? found : ResolveBuilder(rest...);
}
}  // namespace es
}  // namespace ge
#endif  // AIR_CXX_COMPILER_GRAPH_EAGER_STYLE_GRAPH_BUILDER_ES_TENSOR_LIKE_H_
