// GE's EsCGraphBuilder: declarations of "es_c_graph_builder.h" (GE
// inc/external/ge/eager_style_graph_builder/cpp/es_c_graph_builder.h at
// ffdcbc9f74), every public member with GE's signature (AddResource with
// its body: generated sources instantiate it) and GE's include guard,
// written for ge-ops' tests (see README.md).
#ifndef AIR_CXX_COMPILER_GRAPH_EAGER_STYLE_GRAPH_BUILDER_ESC_GRAPH_BUILDER_H_
#define AIR_CXX_COMPILER_GRAPH_EAGER_STYLE_GRAPH_BUILDER_ESC_GRAPH_BUILDER_H_
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <string>
#include <vector>
#include "graph/graph.h"
#include "graph/c_types.h"
#include "es_c_tensor_holder.h"
struct EsCGraphBuilder {
 public:
  EsCGraphBuilder();
  explicit EsCGraphBuilder(const char *name);
  ~EsCGraphBuilder();
  EsCGraphBuilder(EsCGraphBuilder &&) noexcept;
  EsCGraphBuilder &operator=(EsCGraphBuilder &&) noexcept;
  EsCGraphBuilder(const EsCGraphBuilder &) = delete;
  EsCGraphBuilder &operator=(const EsCGraphBuilder &) = delete;

  EsCTensorHolder *GetTensorHolderFromNode(const ge::GNode &node, int32_t output_index);
  EsCTensorHolder *AppendGraphInput(const ge::char_t *name = nullptr, const ge::char_t *type = nullptr);
  EsCTensorHolder *AddGraphInput(int32_t index, const ge::char_t *name = nullptr, const ge::char_t *type = nullptr,
                                 C_DataType data_type = C_DT_FLOAT, C_Format format = C_FORMAT_ND,
                                 const int64_t *dims = nullptr, int64_t dim_num = 0);
  ge::Status SetGraphOutput(EsCTensorHolder *tensor, int64_t output_index);
  ge::Graph *GetGraph();
  std::unique_ptr<ge::Graph> BuildGraphAndReset();
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
  EsCTensorHolder *GetTensorHolderFromNodeInner(const ge::GNode &node, int32_t output_index);
  struct EsCGraphBuilderImpl;
  std::unique_ptr<EsCGraphBuilderImpl> impl_;
};
#endif  // AIR_CXX_COMPILER_GRAPH_EAGER_STYLE_GRAPH_BUILDER_ESC_GRAPH_BUILDER_H_
