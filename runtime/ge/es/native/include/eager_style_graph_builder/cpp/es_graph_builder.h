// GE's EsGraphBuilder ("es_graph_builder.h") and its helpers: GE's
// declarations. Everything here is inline over the C API (esb_funcs.h) and
// CompliantNodeBuilder, written for ge-ops' ES runtime library.
#ifndef AIR_CXX_COMPILER_GRAPH_EAGER_STYLE_GRAPH_BUILDER_ES_GRAPH_H_
#define AIR_CXX_COMPILER_GRAPH_EAGER_STYLE_GRAPH_BUILDER_ES_GRAPH_H_

#include <algorithm>
#include <array>
#include <cstddef>
#include <iterator>
#include <memory>
#include <new>
#include <utility>
#include <vector>
#include "es_tensor_holder.h"
#include "graph/graph.h"
#include "graph/attr_value.h"
#include "compliant_node_builder.h"
#include "es_c_graph_builder.h"

namespace ge {
namespace es {
// A tensor of `dt` holding the shape's element count of `value` (one for a
// scalar: dims NULL or dim_num 0); nullptr if it cannot be made.
template <typename T>
std::unique_ptr<Tensor> CreateTensor(const T *value, const int64_t *dims, int64_t dim_num, DataType dt,
                                     Format format = FORMAT_ND) {
  std::vector<int64_t> dim_list;
  if (dims != nullptr && dim_num > 0) {
    dim_list.assign(dims, dims + dim_num);
  }
  const Shape shape(dim_list);
  const int64_t count = dim_list.empty() ? 1 : shape.GetShapeSize();
  TensorDesc desc(shape, format, dt);
  desc.SetOriginShape(shape);
  std::unique_ptr<Tensor> tensor(new (std::nothrow) Tensor(desc));
  if (tensor == nullptr || count < 0) {
    return nullptr;
  }
  tensor->SetData(reinterpret_cast<const uint8_t *>(value), sizeof(T) * static_cast<size_t>(count));
  return tensor;
}

// A tensor whose bytes are a file's (EsCreateEsCTensorFromFile).
template <typename T>
std::unique_ptr<Tensor> CreateTensorFromFile(const char *data_file_path, const std::vector<int64_t> &dims, DataType dt,
                                             Format format = FORMAT_ND) {
  EsCTensor *made = EsCreateEsCTensorFromFile(data_file_path, dims.data(), static_cast<int64_t>(dims.size()),
                                              static_cast<C_DataType>(dt), static_cast<C_Format>(format));
  return std::unique_ptr<Tensor>(static_cast<Tensor *>(static_cast<void *>(made)));
}

namespace detail {
// The Const node EsCreateConst and EsCreateConstV2 add.
template <typename T>
EsCTensorHolder *AddConst(EsCGraphBuilder *graph, const T *value, const int64_t *dims, int64_t dim_num,
                          ge::DataType dt, ge::Format format, bool v2) {
  if (graph == nullptr || value == nullptr || graph->GetGraph() == nullptr) {
    return nullptr;
  }
  std::unique_ptr<Tensor> tensor = CreateTensor<T>(value, dims, dim_num, dt, format);
  if (tensor == nullptr) {
    return nullptr;
  }
  AttrValue av;
  if (av.SetAttrValue(*tensor) != GRAPH_SUCCESS) {
    return nullptr;
  }
  CompliantNodeBuilder node_builder(graph->GetGraph());
  node_builder.OpType("Const").Name(graph->GenerateNodeName("Const").GetString());
  if (v2) {
    node_builder.IrDefOutputsV2({{"y", CompliantNodeBuilder::kEsIrOutputRequired, ""}})
        .IrDefAttrsV2({{"value", CompliantNodeBuilder::kEsAttrOptional, "VT_TENSOR", av}});
  } else {
    node_builder.IrDefOutputs({{"y", CompliantNodeBuilder::kEsIrOutputRequired, ""}})
        .IrDefAttrs({{"value", CompliantNodeBuilder::kEsAttrOptional, "VT_TENSOR", av}});
  }
  GNode node = node_builder.InstanceOutputShape("y", tensor->GetTensorDesc().GetShape().GetDims())
                   .InstanceOutputDataType("y", dt)
                   .InstanceOutputFormat("y", format)
                   .Build();
  return graph->GetTensorHolderFromNode(node, 0);
}
}  // namespace detail

// A Const node of `dt` (V1 IrDef structs: build with GE's C++ ABI).
template <typename T>
EsCTensorHolder *EsCreateConst(EsCGraphBuilder *graph, const T *value, const int64_t *dims, int64_t dim_num,
                               ge::DataType dt, ge::Format format = FORMAT_ND) {
  return detail::AddConst<T>(graph, value, dims, dim_num, dt, format, false);
}

// A Const node of `dt` (the ABI-safe V2 IrDef classes).
template <typename T>
EsCTensorHolder *EsCreateConstV2(EsCGraphBuilder *graph, const T *value, const int64_t *dims, int64_t dim_num,
                                 ge::DataType dt, ge::Format format = FORMAT_ND) {
  return detail::AddConst<T>(graph, value, dims, dim_num, dt, format, true);
}

// Builds one graph. Owns its EsCGraphBuilder (and through it every tensor
// holder); BuildAndReset hands the graph to the caller.
class EsGraphBuilder {
 public:
  explicit EsGraphBuilder(const char *name) : graph_builder_(EsCreateGraphBuilder(name), EsDestroyGraphBuilder) {}

  template <typename T>
  std::unique_ptr<Tensor> CreateTensor(const std::vector<T> &value, const std::vector<int64_t> &dims, DataType dt,
                                       Format format = FORMAT_ND) {
    EsCTensor *made = EsCreateEsCTensor(value.data(), dims.data(), static_cast<int64_t>(dims.size()),
                                        static_cast<C_DataType>(dt), static_cast<C_Format>(format));
    return std::unique_ptr<Tensor>(static_cast<Tensor *>(static_cast<void *>(made)));
  }

  std::unique_ptr<Tensor> CreateBoolTensor(const std::vector<bool> &value, const std::vector<int64_t> &dims,
                                           Format format = FORMAT_ND) {
    std::vector<uint8_t> bytes;
    bytes.reserve(value.size());
    for (const bool each : value) {
      bytes.push_back(each ? 1U : 0U);
    }
    EsCTensor *made = EsCreateEsCTensor(bytes.data(), dims.data(), static_cast<int64_t>(dims.size()),
                                        static_cast<C_DataType>(ge::DT_BOOL), static_cast<C_Format>(format));
    return std::unique_ptr<Tensor>(static_cast<Tensor *>(static_cast<void *>(made)));
  }

  EsTensorHolder CreateInput(int64_t index, const char *name, const char *type) {
    return EsCreateGraphInputWithDetails(graph_builder_.get(), index, name, type, C_DT_FLOAT, C_FORMAT_ND, nullptr, 0);
  }

  template <size_t inputs_num>
  std::array<EsTensorHolder, inputs_num> CreateInputs(size_t start_index = 0) {
    std::array<EsTensorHolder, inputs_num> made;
    for (size_t i = 0; i < inputs_num; ++i) {
      made[i] = CreateInput(static_cast<int64_t>(start_index + i));
    }
    return made;
  }

  std::vector<EsTensorHolder> CreateInputs(size_t inputs_num, size_t start_index = 0) {
    std::vector<EsTensorHolder> made;
    made.reserve(inputs_num);
    for (size_t i = 0; i < inputs_num; ++i) {
      made.emplace_back(CreateInput(static_cast<int64_t>(start_index + i)));
    }
    return made;
  }

  EsTensorHolder CreateInput(int64_t index) {
    return EsCreateGraphInput(graph_builder_.get(), index);
  }

  EsTensorHolder CreateInput(int64_t index, const char *name) {
    return EsCreateGraphInputWithDetails(graph_builder_.get(), index, name, nullptr, C_DT_FLOAT, C_FORMAT_ND, nullptr,
                                         0);
  }

  EsTensorHolder CreateInput(int64_t index, const char *name, ge::DataType data_type, ge::Format format,
                             const std::vector<int64_t> &shape) {
    return EsCreateGraphInputWithDetails(graph_builder_.get(), index, name, nullptr, static_cast<C_DataType>(data_type),
                                         static_cast<C_Format>(format), shape.data(),
                                         static_cast<int64_t>(shape.size()));
  }

  EsTensorHolder CreateConst(const std::vector<int64_t> &value, const std::vector<int64_t> dims) {
    return EsCreateConstInt64(graph_builder_.get(), value.data(), dims.data(), static_cast<int64_t>(dims.size()));
  }
  EsTensorHolder CreateConst(const std::vector<int32_t> &value, const std::vector<int64_t> dims) {
    return EsCreateConstInt32(graph_builder_.get(), value.data(), dims.data(), static_cast<int64_t>(dims.size()));
  }
  EsTensorHolder CreateConst(const std::vector<uint64_t> &value, const std::vector<int64_t> dims) {
    return EsCreateConstUInt64(graph_builder_.get(), value.data(), dims.data(), static_cast<int64_t>(dims.size()));
  }
  EsTensorHolder CreateConst(const std::vector<uint32_t> &value, const std::vector<int64_t> dims) {
    return EsCreateConstUInt32(graph_builder_.get(), value.data(), dims.data(), static_cast<int64_t>(dims.size()));
  }
  EsTensorHolder CreateConst(const std::vector<float> &value, const std::vector<int64_t> dims) {
    return EsCreateConstFloat(graph_builder_.get(), value.data(), dims.data(), static_cast<int64_t>(dims.size()));
  }

  template <typename T>
  EsTensorHolder CreateConst(const std::vector<T> &value, const std::vector<int64_t> &dims, ge::DataType dt,
                             ge::Format format = FORMAT_ND) {
    return EsTensorHolder(EsCreateConst<T>(graph_builder_.get(), value.data(), dims.data(),
                                           static_cast<int64_t>(dims.size()), dt, format));
  }

  template <typename T>
  EsTensorHolder CreateConstV2(const std::vector<T> &value, const std::vector<int64_t> &dims, ge::DataType dt,
                               ge::Format format = FORMAT_ND) {
    return EsTensorHolder(EsCreateConstV2<T>(graph_builder_.get(), value.data(), dims.data(),
                                             static_cast<int64_t>(dims.size()), dt, format));
  }

  EsTensorHolder CreateVector(const std::vector<int64_t> &value) {
    return EsCreateVectorInt64(graph_builder_.get(), value.data(), static_cast<int64_t>(value.size()));
  }
  EsTensorHolder CreateVector(const std::vector<int32_t> &value) {
    return EsCreateVectorInt32(graph_builder_.get(), value.data(), static_cast<int64_t>(value.size()));
  }
  EsTensorHolder CreateVector(const std::vector<uint64_t> &value) {
    return EsCreateVectorUInt64(graph_builder_.get(), value.data(), static_cast<int64_t>(value.size()));
  }
  EsTensorHolder CreateVector(const std::vector<uint32_t> &value) {
    return EsCreateVectorUInt32(graph_builder_.get(), value.data(), static_cast<int64_t>(value.size()));
  }
  EsTensorHolder CreateVector(const std::vector<float> &value) {
    return EsCreateVectorFloat(graph_builder_.get(), value.data(), static_cast<int64_t>(value.size()));
  }

  EsTensorHolder CreateScalar(int64_t value) {
    return EsCreateScalarInt64(graph_builder_.get(), value);
  }
  EsTensorHolder CreateScalar(int32_t value) {
    return EsCreateScalarInt32(graph_builder_.get(), value);
  }
  EsTensorHolder CreateScalar(uint64_t value) {
    return EsCreateScalarUInt64(graph_builder_.get(), value);
  }
  EsTensorHolder CreateScalar(uint32_t value) {
    return EsCreateScalarUInt32(graph_builder_.get(), value);
  }
  EsTensorHolder CreateScalar(float value) {
    return EsCreateScalarFloat(graph_builder_.get(), value);
  }

  EsTensorHolder CreateVariable(int32_t index, const char *name) {
    return EsCreateVariable(graph_builder_.get(), index, name);
  }

  Status SetAttr(const char *attr_name, int64_t value) {
    return static_cast<Status>(EsSetInt64AttrForGraph(graph_builder_.get(), attr_name, value));
  }
  Status SetAttr(const char *attr_name, const char *value) {
    return static_cast<Status>(EsSetStringAttrForGraph(graph_builder_.get(), attr_name, value));
  }
  Status SetAttr(const char *attr_name, bool value) {
    return static_cast<Status>(EsSetBoolAttrForGraph(graph_builder_.get(), attr_name, value));
  }

  static int64_t SetOutput(const EsTensorHolder &tensor, int64_t index) {
    return EsSetGraphOutput(tensor.tensor_holder_, index);
  }

  std::unique_ptr<Graph> BuildAndReset() const {
    return std::unique_ptr<Graph>(static_cast<Graph *>(static_cast<void *>(EsBuildGraphAndReset(graph_builder_.get()))));
  }

  std::unique_ptr<Graph> BuildAndReset(const std::vector<EsTensorHolder> &outputs) {
    for (size_t i = 0; i < outputs.size(); ++i) {
      SetOutput(outputs[i], static_cast<int64_t>(i));
    }
    return BuildAndReset();
  }

  EsCGraphBuilder *GetCGraphBuilder() const {
    return graph_builder_.get();
  }

 private:
  std::unique_ptr<EsCGraphBuilder, decltype(&EsDestroyGraphBuilder)> graph_builder_;
};

inline std::vector<EsCTensorHolder *> TensorsToEsCTensorHolders(const std::vector<EsTensorHolder> &tensors) {
  std::vector<EsCTensorHolder *> holders;
  holders.reserve(tensors.size());
  for (const auto &each : tensors) {
    holders.push_back(each.GetCTensorHolder());
  }
  return holders;
}

inline std::vector<C_DataType> DataTypesToEsCDataTypes(const std::vector<ge::DataType> &data_types) {
  std::vector<C_DataType> converted;
  converted.reserve(data_types.size());
  for (const auto each : data_types) {
    converted.push_back(static_cast<C_DataType>(each));
  }
  return converted;
}

// The inner lists' data pointers and sizes, for a C list_list parameter.
template <typename T>
std::pair<std::vector<const T *>, std::vector<int64_t>> ListListTypeToPtrAndCounts(
    const std::vector<std::vector<T>> &list_list_type) {
  std::pair<std::vector<const T *>, std::vector<int64_t>> result;
  result.first.reserve(list_list_type.size());
  result.second.reserve(list_list_type.size());
  for (const auto &inner : list_list_type) {
    result.first.push_back(inner.data());
    result.second.push_back(static_cast<int64_t>(inner.size()));
  }
  return result;
}

// Releases the graphs into C handles (the op that takes them owns them).
inline std::vector<EsCGraph *> GeGraphsToEsCGraphs(std::vector<std::unique_ptr<ge::Graph>> graphs) {
  std::vector<EsCGraph *> handles;
  handles.reserve(graphs.size());
  for (auto &each : graphs) {
    handles.push_back(static_cast<EsCGraph *>(static_cast<void *>(each.release())));
  }
  return handles;
}
}  // namespace es
}  // namespace ge

#endif  // AIR_CXX_COMPILER_GRAPH_EAGER_STYLE_GRAPH_BUILDER_ES_GRAPH_H_
