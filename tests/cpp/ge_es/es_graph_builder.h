// GE's "es_graph_builder.h", abridged: EsGraphBuilder and the conversions
// generated C++ headers call.
#ifndef GE_OPS_TESTS_GE_ES_ES_GRAPH_BUILDER_H_
#define GE_OPS_TESTS_GE_ES_ES_GRAPH_BUILDER_H_
#include <memory>
#include <utility>
#include <vector>
#include "es_tensor_holder.h"
#include "graph/graph.h"
#include "graph/attr_value.h"
#include "compliant_node_builder.h"
#include "es_c_graph_builder.h"
namespace ge {
namespace es {
class EsGraphBuilder {
 public:
  explicit EsGraphBuilder(const char *name);
  ~EsGraphBuilder();
  EsCGraphBuilder *GetCGraphBuilder() const;
};
std::vector<EsCTensorHolder *> TensorsToEsCTensorHolders(const std::vector<EsTensorHolder> &tensors);
std::vector<C_DataType> DataTypesToEsCDataTypes(const std::vector<ge::DataType> &data_types);
template <typename T>
std::pair<std::vector<const T *>, std::vector<int64_t>> ListListTypeToPtrAndCounts(
    const std::vector<std::vector<T>> &list_list);
std::vector<EsCGraph *> GeGraphsToEsCGraphs(std::vector<std::unique_ptr<ge::Graph>> graphs);
}  // namespace es
}  // namespace ge
#endif  // GE_OPS_TESTS_GE_ES_ES_GRAPH_BUILDER_H_
