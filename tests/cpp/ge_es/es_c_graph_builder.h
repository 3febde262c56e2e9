// GE's "es_c_graph_builder.h", abridged: what generated sources call.
#ifndef GE_OPS_TESTS_GE_ES_ES_C_GRAPH_BUILDER_H_
#define GE_OPS_TESTS_GE_ES_ES_C_GRAPH_BUILDER_H_
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>
#include "graph/graph.h"
#include "graph/c_types.h"
#include "es_c_tensor_holder.h"
struct EsCGraphBuilder {
 public:
  explicit EsCGraphBuilder(const char *name);
  ~EsCGraphBuilder();
  EsCGraphBuilder(const EsCGraphBuilder &) = delete;
  EsCGraphBuilder &operator=(const EsCGraphBuilder &) = delete;
  EsCTensorHolder *GetTensorHolderFromNode(const ge::GNode &node, int32_t output_index);
  ge::Graph *GetGraph();
  ge::AscendString GenerateNodeName(const ge::char_t *node_type);
  std::vector<EsCTensorHolder *> *CreateDynamicTensorHolderFromNode(const ge::GNode &node, int32_t start_idx,
                                                                    int32_t output_num);
  template <typename T>
  T *AddResource(std::unique_ptr<T> value, std::function<void(void *)> deleter = DefaultDeleter<T>) {
    return static_cast<T *>(AddResource(value.release(), deleter));
  }

 private:
  void *AddResource(void *resource_ptr, std::function<void(void *)> deleter);
  template <typename T>
  static void DefaultDeleter(void *ptr) {
    delete static_cast<T *>(ptr);
  }
};
#endif  // GE_OPS_TESTS_GE_ES_ES_C_GRAPH_BUILDER_H_
