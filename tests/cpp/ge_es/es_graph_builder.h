// GE's EsGraphBuilder and the conversions generated C++ headers call:
// declarations of "es_graph_builder.h" (GE inc/external/ge/
// eager_style_graph_builder/cpp/es_graph_builder.h at ffdcbc9f74), every
// public member and free function with GE's signature and GE's include
// guard, written for ge-ops' tests (see README.md). GE defines them inline;
// here they are declared only (a syntax check instantiates no bodies it
// does not need).
#ifndef AIR_CXX_COMPILER_GRAPH_EAGER_STYLE_GRAPH_BUILDER_ES_GRAPH_H_
#define AIR_CXX_COMPILER_GRAPH_EAGER_STYLE_GRAPH_BUILDER_ES_GRAPH_H_
#include <array>
#include <cstddef>
#include <cstdint>
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
template <typename T>
std::unique_ptr<Tensor> CreateTensor(const T *value, const int64_t *dims, int64_t dim_num, DataType dt,
                                     Format format = FORMAT_ND);
template <typename T>
std::unique_ptr<Tensor> CreateTensorFromFile(const char *data_file_path, const std::vector<int64_t> &dims, DataType dt,
                                             Format format = FORMAT_ND);
template <typename T>
EsCTensorHolder *EsCreateConst(EsCGraphBuilder *graph, const T *value, const int64_t *dims, int64_t dim_num,
                               ge::DataType dt, ge::Format format = FORMAT_ND);
template <typename T>
EsCTensorHolder *EsCreateConstV2(EsCGraphBuilder *graph, const T *value, const int64_t *dims, int64_t dim_num,
                                 ge::DataType dt, ge::Format format = FORMAT_ND);

class EsGraphBuilder {
 public:
  explicit EsGraphBuilder(const char *name);

  template <typename T>
  std::unique_ptr<Tensor> CreateTensor(const std::vector<T> &value, const std::vector<int64_t> &dims, DataType dt,
                                       Format format = FORMAT_ND);
  std::unique_ptr<Tensor> CreateBoolTensor(const std::vector<bool> &value, const std::vector<int64_t> &dims,
                                           Format format = FORMAT_ND);

  EsTensorHolder CreateInput(int64_t index, const char *name, const char *type);
  template <size_t inputs_num>
  std::array<EsTensorHolder, inputs_num> CreateInputs(size_t start_index = 0);
  std::vector<EsTensorHolder> CreateInputs(size_t inputs_num, size_t start_index = 0);
  EsTensorHolder CreateInput(int64_t index);
  EsTensorHolder CreateInput(int64_t index, const char *name);
  EsTensorHolder CreateInput(int64_t index, const char *name, ge::DataType data_type, ge::Format format,
                             const std::vector<int64_t> &shape);

  EsTensorHolder CreateConst(const std::vector<int64_t> &value, const std::vector<int64_t> dims);
  EsTensorHolder CreateConst(const std::vector<int32_t> &value, const std::vector<int64_t> dims);
  EsTensorHolder CreateConst(const std::vector<uint64_t> &value, const std::vector<int64_t> dims);
  EsTensorHolder CreateConst(const std::vector<uint32_t> &value, const std::vector<int64_t> dims);
  EsTensorHolder CreateConst(const std::vector<float> &value, const std::vector<int64_t> dims);
  template <typename T>
  EsTensorHolder CreateConst(const std::vector<T> &value, const std::vector<int64_t> &dims, ge::DataType dt,
                             ge::Format format = FORMAT_ND);
  template <typename T>
  EsTensorHolder CreateConstV2(const std::vector<T> &value, const std::vector<int64_t> &dims, ge::DataType dt,
                               ge::Format format = FORMAT_ND);
  EsTensorHolder CreateVector(const std::vector<int64_t> &value);
  EsTensorHolder CreateVector(const std::vector<int32_t> &value);
  EsTensorHolder CreateVector(const std::vector<uint64_t> &value);
  EsTensorHolder CreateVector(const std::vector<uint32_t> &value);
  EsTensorHolder CreateVector(const std::vector<float> &value);
  EsTensorHolder CreateScalar(int64_t value);
  EsTensorHolder CreateScalar(int32_t value);
  EsTensorHolder CreateScalar(uint64_t value);
  EsTensorHolder CreateScalar(uint32_t value);
  EsTensorHolder CreateScalar(float value);
  EsTensorHolder CreateVariable(int32_t index, const char *name);

  Status SetAttr(const char *attr_name, int64_t value);
  Status SetAttr(const char *attr_name, const char *value);
  Status SetAttr(const char *attr_name, bool value);

  static int64_t SetOutput(const EsTensorHolder &tensor, int64_t index);
  std::unique_ptr<Graph> BuildAndReset() const;
  std::unique_ptr<Graph> BuildAndReset(const std::vector<EsTensorHolder> &outputs);
  EsCGraphBuilder *GetCGraphBuilder() const;

 private:
  // as GE's: movable, not copyable
  std::unique_ptr<EsCGraphBuilder, decltype(&EsDestroyGraphBuilder)> graph_builder_;
};

std::vector<EsCTensorHolder *> TensorsToEsCTensorHolders(const std::vector<EsTensorHolder> &tensors);
std::vector<C_DataType> DataTypesToEsCDataTypes(const std::vector<ge::DataType> &data_types);
template <typename T>
std::pair<std::vector<const T *>, std::vector<int64_t>> ListListTypeToPtrAndCounts(
    const std::vector<std::vector<T>> &list_list_type);
std::vector<EsCGraph *> GeGraphsToEsCGraphs(std::vector<std::unique_ptr<ge::Graph>> graphs);
}  // namespace es
}  // namespace ge
#endif  // AIR_CXX_COMPILER_GRAPH_EAGER_STYLE_GRAPH_BUILDER_ES_GRAPH_H_
