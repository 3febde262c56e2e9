// ge-ops' ES runtime library: EsCTensorHolder, EsCGraphBuilder, the C API of
// esb_funcs.h, and the out-of-line members of EsTensorHolder and
// EsTensorLike.
#include <cstdio>
#include <fstream>
#include <functional>
#include <iterator>
#include <list>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "es_c_graph_builder.h"
#include "es_c_tensor_holder.h"
#include "es_graph_builder.h"
#include "es_tensor_holder.h"
#include "es_tensor_like.h"
#include "esb_funcs.h"
#include "esrt_internal.h"

// -- EsCTensorHolder ---------------------------------------------------------------------

struct EsCTensorHolder::EsCTensorHolderImpl {
  EsCGraphBuilder *owner;
  ge::GNode producer;
  int32_t index;
};

EsCTensorHolder::EsCTensorHolder(EsCGraphBuilder &owner, const ge::GNode &producer, int32_t index)
    : impl_(new EsCTensorHolderImpl{&owner, producer, index}) {}
EsCTensorHolder::~EsCTensorHolder() = default;
EsCTensorHolder::EsCTensorHolder(EsCTensorHolder &&) noexcept = default;
EsCTensorHolder &EsCTensorHolder::operator=(EsCTensorHolder &&) noexcept = default;

namespace {
ge::OutputMeta *MetaOf(EsCTensorHolder &holder) {
  ge::NodeData *node = ge::NodeAdapter::Data(holder.GetProducer());
  const int32_t index = holder.GetOutIndex();
  if (node == nullptr || index < 0 || static_cast<size_t>(index) >= node->outputs.size()) {
    return nullptr;
  }
  return &node->outputs[static_cast<size_t>(index)];
}
}  // namespace

ge::Status EsCTensorHolder::SetDataType(const ge::DataType data_type) {
  ge::OutputMeta *meta = MetaOf(*this);
  if (meta == nullptr || ge::DataTypeName(data_type) == nullptr || data_type == ge::DT_MAX) {
    return ge::FAILED;
  }
  meta->dtype = data_type;
  return ge::SUCCESS;
}
ge::Status EsCTensorHolder::SetFormat(const ge::Format format) {
  ge::OutputMeta *meta = MetaOf(*this);
  if (meta == nullptr || ge::FormatName(format) == nullptr) {
    return ge::FAILED;
  }
  meta->format = format;
  return ge::SUCCESS;
}
// The graph file has one format and one shape per output: the origin and
// storage variants set the same.
ge::Status EsCTensorHolder::SetOriginFormat(const ge::Format format) {
  return SetFormat(format);
}
ge::Status EsCTensorHolder::SetStorageFormat(const ge::Format format) {
  return SetFormat(format);
}
ge::Status EsCTensorHolder::SetShape(const ge::Shape &shape) {
  ge::OutputMeta *meta = MetaOf(*this);
  if (meta == nullptr) {
    return ge::FAILED;
  }
  for (const int64_t dim : shape.GetDims()) {
    if (dim < -2) {
      return ge::FAILED;
    }
  }
  meta->known_shape = true;
  meta->dims = shape.GetDims();
  return ge::SUCCESS;
}
ge::Status EsCTensorHolder::SetOriginShape(const ge::Shape &shape) {
  return SetShape(shape);
}
ge::Status EsCTensorHolder::SetStorageShape(const ge::Shape &shape) {
  return SetShape(shape);
}
ge::Status EsCTensorHolder::SetOriginSymbolShape(const char *const *, const int64_t) {
  ge::Complain("SetOriginSymbolShape: symbolic shapes are not supported by this runtime");
  return ge::FAILED;
}
ge::GNode &EsCTensorHolder::GetProducer() {
  return impl_->producer;
}
int32_t EsCTensorHolder::GetOutIndex() const {
  return impl_->index;
}
EsCGraphBuilder &EsCTensorHolder::GetOwnerBuilder() {
  return *impl_->owner;
}

// -- EsCGraphBuilder ---------------------------------------------------------------------

struct EsCGraphBuilder::EsCGraphBuilderImpl {
  std::string name;
  std::unique_ptr<ge::Graph> graph;
  std::map<std::string, int64_t> counters;
  std::map<int64_t, EsCTensorHolder *> outputs;
  std::list<std::unique_ptr<EsCTensorHolder>> holders;
  std::list<std::unique_ptr<std::vector<EsCTensorHolder *>>> holder_lists;
  std::list<std::pair<void *, std::function<void(void *)>>> resources;

  void Start() {
    graph.reset(new ge::Graph(name.c_str()));
    counters.clear();
    outputs.clear();
  }
};

EsCGraphBuilder::EsCGraphBuilder() : EsCGraphBuilder("graph") {}
EsCGraphBuilder::EsCGraphBuilder(const char *name) : impl_(new EsCGraphBuilderImpl()) {
  impl_->name = (name == nullptr || *name == '\0') ? "graph" : name;
  impl_->Start();
}
EsCGraphBuilder::~EsCGraphBuilder() {
  if (impl_ == nullptr) {
    return;
  }
  // Resources in reverse order of arrival (a later one may refer to an
  // earlier one); holders go with the impl.
  for (auto it = impl_->resources.rbegin(); it != impl_->resources.rend(); ++it) {
    if (it->second) {
      it->second(it->first);
    }
  }
}
EsCGraphBuilder::EsCGraphBuilder(EsCGraphBuilder &&) noexcept = default;
EsCGraphBuilder &EsCGraphBuilder::operator=(EsCGraphBuilder &&) noexcept = default;

EsCTensorHolder *EsCGraphBuilder::GetTensorHolderFromNode(const ge::GNode &node, int32_t output_index) {
  return GetTensorHolderFromNodeInner(node, output_index);
}

EsCTensorHolder *EsCGraphBuilder::GetTensorHolderFromNodeInner(const ge::GNode &node, int32_t output_index) {
  const ge::NodeData *data = ge::NodeAdapter::Data(node);
  if (data == nullptr) {
    return nullptr;  // Build failed (and said why)
  }
  if (output_index < 0 || static_cast<size_t>(output_index) >= data->outputs.size()) {
    ge::Complain("node " + data->name + " has no output " + std::to_string(output_index));
    return nullptr;
  }
  impl_->holders.emplace_back(new EsCTensorHolder(*this, node, output_index));
  return impl_->holders.back().get();
}

EsCTensorHolder *EsCGraphBuilder::AppendGraphInput(const ge::char_t *name, const ge::char_t *type) {
  int32_t next = 0;
  for (const auto &node : ge::GraphAdapter::Impl(*impl_->graph)->nodes) {
    int64_t index = 0;
    const ge::AttrValue *attr = node->FindAttr("index");
    if (node->type != "Variable" && node->type != "Const" && attr != nullptr &&
        attr->GetAttrValue(index) == ge::GRAPH_SUCCESS && index >= next) {
      next = static_cast<int32_t>(index + 1);
    }
  }
  return AddGraphInput(next, name, type);
}

EsCTensorHolder *EsCGraphBuilder::AddGraphInput(int32_t index, const ge::char_t *name, const ge::char_t *type,
                                                C_DataType data_type, C_Format format, const int64_t *dims,
                                                int64_t dim_num) {
  if (index < 0) {
    ge::Complain("graph input index must be >= 0, got " + std::to_string(index));
    return nullptr;
  }
  const std::string kind = (type == nullptr || *type == '\0') ? "Data" : type;
  if (kind != "Data" && kind != "RefData" && kind != "AippData" && kind != "AnyData") {
    ge::Complain("graph input type must be Data, RefData, AippData or AnyData, got " + kind);
    return nullptr;
  }
  const auto graph = ge::GraphAdapter::Impl(*impl_->graph);
  for (const auto &node : graph->nodes) {
    int64_t existing = -1;
    const ge::AttrValue *attr = node->FindAttr("index");
    if ((node->type == "Data" || node->type == "RefData" || node->type == "AippData" || node->type == "AnyData") &&
        attr != nullptr && attr->GetAttrValue(existing) == ge::GRAPH_SUCCESS && existing == index) {
      ge::Complain("graph " + graph->name + " already has input " + std::to_string(index));
      return nullptr;
    }
  }
  if (ge::DataTypeName(static_cast<ge::DataType>(data_type)) == nullptr ||
      ge::FormatName(static_cast<ge::Format>(format)) == nullptr || dim_num < 0 ||
      (dims == nullptr && dim_num > 0)) {
    ge::Complain("graph input " + std::to_string(index) + ": bad dtype, format or shape");
    return nullptr;
  }
  std::vector<int64_t> shape;
  if (dims != nullptr) {
    shape.assign(dims, dims + dim_num);
  }
  const std::string node_name = (name == nullptr || *name == '\0') ? "input_" + std::to_string(index) : name;
  ge::GNode node = ge::es::CompliantNodeBuilder(impl_->graph.get())
                       .OpType(kind.c_str())
                       .Name(node_name.c_str())
                       .IrDefOutputs({{"y", ge::es::CompliantNodeBuilder::kEsIrOutputRequired, ""}})
                       .IrDefAttrs({{"index", ge::es::CompliantNodeBuilder::kEsAttrRequired, "Int",
                                     ge::es::CreateFrom(static_cast<int64_t>(index))}})
                       .InstanceOutputShape("y", shape)
                       .InstanceOutputDataType("y", static_cast<ge::DataType>(data_type))
                       .InstanceOutputFormat("y", static_cast<ge::Format>(format))
                       .Build();
  return GetTensorHolderFromNodeInner(node, 0);
}

ge::Status EsCGraphBuilder::SetGraphOutput(EsCTensorHolder *tensor, int64_t output_index) {
  if (tensor == nullptr || &tensor->GetOwnerBuilder() != this || output_index < 0) {
    ge::Complain("SetGraphOutput: a tensor of this builder and an index >= 0 are needed");
    return ge::FAILED;
  }
  const ge::NodeImpl *node = ge::NodeAdapter::Impl(tensor->GetProducer());
  if (node == nullptr || node->graph != ge::GraphAdapter::Impl(*impl_->graph)) {
    ge::Complain("SetGraphOutput: the tensor belongs to a graph this builder has already built");
    return ge::FAILED;
  }
  impl_->outputs[output_index] = tensor;
  return ge::SUCCESS;
}

ge::Graph *EsCGraphBuilder::GetGraph() {
  return impl_->graph.get();
}

std::unique_ptr<ge::Graph> EsCGraphBuilder::BuildGraphAndReset() {
  const auto graph = ge::GraphAdapter::Impl(*impl_->graph);
  int64_t expected = 0;
  for (const auto &entry : impl_->outputs) {
    if (entry.first != expected++) {
      ge::Complain("graph " + graph->name + ": outputs must be numbered 0..n-1 (output " + std::to_string(expected - 1) +
                   " is missing)");
      return nullptr;
    }
  }
  graph->outputs.clear();
  for (const auto &entry : impl_->outputs) {
    graph->outputs.emplace_back(ge::NodeAdapter::Data(entry.second->GetProducer()), entry.second->GetOutIndex());
  }
  graph->built = true;
  std::unique_ptr<ge::Graph> built = std::move(impl_->graph);
  impl_->Start();
  return built;
}

ge::AscendString EsCGraphBuilder::GenerateNodeName(const ge::char_t *node_type) {
  const std::string type = node_type == nullptr ? "node" : node_type;
  const auto graph = ge::GraphAdapter::Impl(*impl_->graph);
  while (true) {
    const std::string candidate = type + "_" + std::to_string(impl_->counters[type]++);
    if (!graph->HasNodeNamed(candidate)) {
      return ge::AscendString(candidate.c_str());
    }
  }
}

std::vector<EsCTensorHolder *> *EsCGraphBuilder::CreateDynamicTensorHolderFromNode(const ge::GNode &node,
                                                                                   int32_t start_idx,
                                                                                   int32_t output_num) {
  impl_->holder_lists.emplace_back(new std::vector<EsCTensorHolder *>());
  std::vector<EsCTensorHolder *> &made = *impl_->holder_lists.back();
  for (int32_t i = 0; i < output_num; ++i) {
    EsCTensorHolder *holder = GetTensorHolderFromNodeInner(node, start_idx + i);
    if (holder == nullptr) {
      made.clear();
      break;
    }
    made.push_back(holder);
  }
  return &made;
}

void *EsCGraphBuilder::AddResource(void *resource_ptr, std::function<void(void *)> deleter) {
  if (resource_ptr != nullptr) {
    impl_->resources.emplace_back(resource_ptr, std::move(deleter));
  }
  return resource_ptr;
}

// -- the C API ---------------------------------------------------------------------------

namespace {
constexpr uint32_t kOk = 0U;
constexpr uint32_t kFailed = 0xFFFFFFFFU;

template <typename T>
EsCTensorHolder *MakeConst(EsCGraphBuilder *graph, const T *value, const int64_t *dims, int64_t dim_num,
                           ge::DataType dtype) {
  if (graph == nullptr || value == nullptr || dim_num < 0 || (dims == nullptr && dim_num > 0)) {
    ge::Complain("EsCreateConst: a builder, values and a shape are needed");
    return nullptr;
  }
  for (int64_t i = 0; i < dim_num; ++i) {
    if (dims[i] < 0) {
      ge::Complain("EsCreateConst: a constant's dims are >= 0");
      return nullptr;
    }
  }
  return ge::es::EsCreateConstV2<T>(graph, value, dims, dim_num, dtype);
}

ge::NodeData *NodeOf(EsCTensorHolder *tensor) {
  return tensor == nullptr ? nullptr : ge::NodeAdapter::Data(tensor->GetProducer());
}

uint32_t SetNodeAttr(EsCTensorHolder *tensor, const char *attr_name, const ge::AttrValue &value, bool per_output) {
  ge::NodeData *node = NodeOf(tensor);
  if (node == nullptr || attr_name == nullptr || *attr_name == '\0') {
    return kFailed;
  }
  // A tensor's attrs live on its producer as "<output index>:<name>", as the
  // Python builder stores them.
  const std::string key = per_output ? std::to_string(tensor->GetOutIndex()) + ":" + attr_name : attr_name;
  node->SetAttr(key, value);
  return kOk;
}

uint32_t SetGraphAttr(EsCGraphBuilder *graph, const char *attr_name, const ge::AttrValue &value) {
  if (graph == nullptr || attr_name == nullptr || *attr_name == '\0') {
    return kFailed;
  }
  return graph->GetGraph()->SetAttr(attr_name, value) == ge::GRAPH_SUCCESS ? kOk : kFailed;
}

ge::Tensor *MakeTensor(const void *data, size_t available, bool check_available, const int64_t *dim,
                       int64_t dim_num, C_DataType data_type, C_Format format) {
  const auto dtype = static_cast<ge::DataType>(data_type);
  const size_t element = ge::DataTypeSize(dtype);
  if (element == 0U || ge::FormatName(static_cast<ge::Format>(format)) == nullptr || dim_num < 0 ||
      (dim == nullptr && dim_num > 0)) {
    ge::Complain("EsCreateEsCTensor: unsupported dtype or format, or a bad shape");
    return nullptr;
  }
  std::vector<int64_t> dims;
  size_t count = 1U;
  for (int64_t i = 0; i < dim_num; ++i) {
    if (dim[i] < 0) {
      ge::Complain("EsCreateEsCTensor: a tensor's dims are >= 0");
      return nullptr;
    }
    dims.push_back(dim[i]);
    count *= static_cast<size_t>(dim[i]);
  }
  const size_t size = count * element;
  if ((data == nullptr && size != 0U) || (check_available && available != size)) {
    ge::Complain("EsCreateEsCTensor: the data does not hold " + std::to_string(size) + " bytes");
    return nullptr;
  }
  ge::TensorDesc desc(ge::Shape(dims), static_cast<ge::Format>(format), dtype);
  return new ge::Tensor(desc, static_cast<const uint8_t *>(data), size);
}
}  // namespace

extern "C" {
EsCGraphBuilder *EsCreateGraphBuilder(const char *name) {
  return new EsCGraphBuilder(name);
}

void EsDestroyGraphBuilder(EsCGraphBuilder *graph) {
  delete graph;
}

EsCTensorHolder *EsCreateGraphInputWithDetails(EsCGraphBuilder *graph, int64_t index, const char *name,
                                               const char *type, C_DataType data_type, C_Format format,
                                               const int64_t *shape, int64_t dim_num) {
  if (graph == nullptr || index < 0 || index > INT32_MAX) {
    ge::Complain("EsCreateGraphInput: a builder and an index in 0..2^31-1 are needed");
    return nullptr;
  }
  return graph->AddGraphInput(static_cast<int32_t>(index), name, type, data_type, format, shape, dim_num);
}

EsCTensorHolder *EsCreateGraphInput(EsCGraphBuilder *graph, int64_t index) {
  return EsCreateGraphInputWithDetails(graph, index, nullptr, nullptr, C_DT_FLOAT, C_FORMAT_ND, nullptr, 0);
}

uint32_t EsSetDataType(EsCTensorHolder *tensor, C_DataType data_type) {
  return tensor == nullptr ? kFailed : tensor->SetDataType(static_cast<ge::DataType>(data_type));
}

uint32_t EsSetFormat(EsCTensorHolder *tensor, C_Format format) {
  return tensor == nullptr ? kFailed : tensor->SetFormat(static_cast<ge::Format>(format));
}

uint32_t EsSetShape(EsCTensorHolder *tensor, const int64_t *shape, int64_t dim_num) {
  if (tensor == nullptr || dim_num < 0 || (shape == nullptr && dim_num > 0)) {
    return kFailed;
  }
  std::vector<int64_t> dims;
  if (shape != nullptr) {
    dims.assign(shape, shape + dim_num);
  }
  return tensor->SetShape(ge::Shape(dims));
}

uint32_t EsSetOriginSymbolShape(EsCTensorHolder *tensor, const char *const *shape, int64_t dim_num) {
  return tensor == nullptr ? kFailed : tensor->SetOriginSymbolShape(shape, dim_num);
}

EsCTensorHolder *EsCreateConstInt64(EsCGraphBuilder *graph, const int64_t *value, const int64_t *dims,
                                    int64_t dim_num) {
  return MakeConst(graph, value, dims, dim_num, ge::DT_INT64);
}
EsCTensorHolder *EsCreateConstInt32(EsCGraphBuilder *graph, const int32_t *value, const int64_t *dims,
                                    int64_t dim_num) {
  return MakeConst(graph, value, dims, dim_num, ge::DT_INT32);
}
EsCTensorHolder *EsCreateConstUInt64(EsCGraphBuilder *graph, const uint64_t *value, const int64_t *dims,
                                     int64_t dim_num) {
  return MakeConst(graph, value, dims, dim_num, ge::DT_UINT64);
}
EsCTensorHolder *EsCreateConstUInt32(EsCGraphBuilder *graph, const uint32_t *value, const int64_t *dims,
                                     int64_t dim_num) {
  return MakeConst(graph, value, dims, dim_num, ge::DT_UINT32);
}
EsCTensorHolder *EsCreateConstFloat(EsCGraphBuilder *graph, const float *value, const int64_t *dims,
                                    int64_t dim_num) {
  return MakeConst(graph, value, dims, dim_num, ge::DT_FLOAT);
}

EsCTensorHolder *EsCreateVectorInt64(EsCGraphBuilder *graph, const int64_t *value, int64_t dim) {
  return MakeConst(graph, value, &dim, 1, ge::DT_INT64);
}
EsCTensorHolder *EsCreateVectorInt32(EsCGraphBuilder *graph, const int32_t *value, int64_t dim) {
  return MakeConst(graph, value, &dim, 1, ge::DT_INT32);
}
EsCTensorHolder *EsCreateVectorUInt64(EsCGraphBuilder *graph, const uint64_t *value, int64_t dim) {
  return MakeConst(graph, value, &dim, 1, ge::DT_UINT64);
}
EsCTensorHolder *EsCreateVectorUInt32(EsCGraphBuilder *graph, const uint32_t *value, int64_t dim) {
  return MakeConst(graph, value, &dim, 1, ge::DT_UINT32);
}
EsCTensorHolder *EsCreateVectorFloat(EsCGraphBuilder *graph, const float *value, int64_t dim) {
  return MakeConst(graph, value, &dim, 1, ge::DT_FLOAT);
}

EsCTensorHolder *EsCreateScalarInt64(EsCGraphBuilder *graph, int64_t value) {
  return MakeConst(graph, &value, nullptr, 0, ge::DT_INT64);
}
EsCTensorHolder *EsCreateScalarInt32(EsCGraphBuilder *graph, int32_t value) {
  return MakeConst(graph, &value, nullptr, 0, ge::DT_INT32);
}
EsCTensorHolder *EsCreateScalarUInt64(EsCGraphBuilder *graph, uint64_t value) {
  return MakeConst(graph, &value, nullptr, 0, ge::DT_UINT64);
}
EsCTensorHolder *EsCreateScalarUInt32(EsCGraphBuilder *graph, uint32_t value) {
  return MakeConst(graph, &value, nullptr, 0, ge::DT_UINT32);
}
EsCTensorHolder *EsCreateScalarFloat(EsCGraphBuilder *graph, float value) {
  return MakeConst(graph, &value, nullptr, 0, ge::DT_FLOAT);
}

EsCTensorHolder *EsCreateVariable(EsCGraphBuilder *graph, int32_t index, const char *name) {
  if (graph == nullptr || index < 0 || name == nullptr || *name == '\0') {
    ge::Complain("EsCreateVariable: a builder, an index >= 0 and a name are needed");
    return nullptr;
  }
  for (const auto &node : ge::GraphAdapter::Impl(*graph->GetGraph())->nodes) {
    int64_t existing = -1;
    const ge::AttrValue *attr = node->FindAttr("index");
    if (node->type == "Variable" && attr != nullptr && attr->GetAttrValue(existing) == ge::GRAPH_SUCCESS &&
        existing == index) {
      ge::Complain("EsCreateVariable: variable index " + std::to_string(index) + " is taken by " + node->name);
      return nullptr;
    }
  }
  ge::GNode node = ge::es::CompliantNodeBuilder(graph->GetGraph())
                       .OpType("Variable")
                       .Name(name)
                       .IrDefOutputs({{"y", ge::es::CompliantNodeBuilder::kEsIrOutputRequired, ""}})
                       .IrDefAttrs({{"index", ge::es::CompliantNodeBuilder::kEsAttrRequired, "Int",
                                     ge::es::CreateFrom(static_cast<int64_t>(index))}})
                       .InstanceOutputShape("y", {})
                       .InstanceOutputDataType("y", ge::DT_FLOAT)
                       .InstanceOutputFormat("y", ge::FORMAT_ND)
                       .Build();
  return graph->GetTensorHolderFromNode(node, 0);
}

uint32_t EsSetGraphOutput(EsCTensorHolder *tensor, int64_t output_index) {
  return tensor == nullptr ? kFailed : tensor->GetOwnerBuilder().SetGraphOutput(tensor, output_index);
}

EsCGraphBuilder *EsGetOwnerBuilder(EsCTensorHolder *tensor) {
  return tensor == nullptr ? nullptr : &tensor->GetOwnerBuilder();
}

EsCNode *EsGetProducer(EsCTensorHolder *tensor) {
  return tensor == nullptr ? nullptr : static_cast<EsCNode *>(static_cast<void *>(&tensor->GetProducer()));
}

EsCGraph *EsBuildGraphAndReset(EsCGraphBuilder *graph) {
  if (graph == nullptr) {
    return nullptr;
  }
  return static_cast<EsCGraph *>(static_cast<void *>(graph->BuildGraphAndReset().release()));
}

uint32_t EsAddControlEdge(EsCTensorHolder *dest_ctrl_tensor, EsCTensorHolder **src_ctrl_tensors,
                          int64_t ctrl_tensors_num) {
  if (dest_ctrl_tensor == nullptr || ctrl_tensors_num < 0 || (src_ctrl_tensors == nullptr && ctrl_tensors_num > 0)) {
    return kFailed;
  }
  ge::Graph *graph = dest_ctrl_tensor->GetOwnerBuilder().GetGraph();
  for (int64_t i = 0; i < ctrl_tensors_num; ++i) {
    if (src_ctrl_tensors[i] == nullptr ||
        graph->AddControlEdge(src_ctrl_tensors[i]->GetProducer(), dest_ctrl_tensor->GetProducer()) !=
            ge::GRAPH_SUCCESS) {
      return kFailed;
    }
  }
  return kOk;
}

EsCTensor *EsCreateEsCTensor(const void *data, const int64_t *dim, int64_t dim_num, C_DataType data_type,
                             C_Format format) {
  return static_cast<EsCTensor *>(
      static_cast<void *>(MakeTensor(data, 0U, false, dim, dim_num, data_type, format)));
}

EsCTensor *EsCreateEsCTensorFromFile(const char *data_file_path, const int64_t *dim, int64_t dim_num,
                                     C_DataType data_type, C_Format format) {
  if (data_file_path == nullptr) {
    return nullptr;
  }
  std::ifstream file(data_file_path, std::ios::binary);
  if (!file) {
    ge::Complain(std::string("EsCreateEsCTensorFromFile: cannot read ") + data_file_path);
    return nullptr;
  }
  const std::vector<char> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  return static_cast<EsCTensor *>(static_cast<void *>(
      MakeTensor(bytes.data(), bytes.size(), true, dim, dim_num, data_type, format)));
}

uint32_t EsSetInt64AttrForGraph(EsCGraphBuilder *graph, const char *attr_name, int64_t value) {
  return SetGraphAttr(graph, attr_name, ge::es::CreateFrom(value));
}
uint32_t EsSetStringAttrForGraph(EsCGraphBuilder *graph, const char *attr_name, const char *value) {
  return value == nullptr ? kFailed : SetGraphAttr(graph, attr_name, ge::es::CreateFrom(ge::AscendString(value)));
}
uint32_t EsSetBoolAttrForGraph(EsCGraphBuilder *graph, const char *attr_name, bool value) {
  return SetGraphAttr(graph, attr_name, ge::es::CreateFrom(value));
}

uint32_t EsSetInt64AttrForTensor(EsCTensorHolder *tensor, const char *attr_name, int64_t value) {
  return SetNodeAttr(tensor, attr_name, ge::es::CreateFrom(value), true);
}
uint32_t EsSetStringAttrForTensor(EsCTensorHolder *tensor, const char *attr_name, const char *value) {
  return value == nullptr ? kFailed
                          : SetNodeAttr(tensor, attr_name, ge::es::CreateFrom(ge::AscendString(value)), true);
}
uint32_t EsSetBoolAttrForTensor(EsCTensorHolder *tensor, const char *attr_name, bool value) {
  return SetNodeAttr(tensor, attr_name, ge::es::CreateFrom(value), true);
}

uint32_t EsSetInt64AttrForNode(EsCTensorHolder *tensor, const char *attr_name, int64_t value) {
  return SetNodeAttr(tensor, attr_name, ge::es::CreateFrom(value), false);
}
uint32_t EsSetStringAttrForNode(EsCTensorHolder *tensor, const char *attr_name, const char *value) {
  return value == nullptr ? kFailed
                          : SetNodeAttr(tensor, attr_name, ge::es::CreateFrom(ge::AscendString(value)), false);
}
uint32_t EsSetBoolAttrForNode(EsCTensorHolder *tensor, const char *attr_name, bool value) {
  return SetNodeAttr(tensor, attr_name, ge::es::CreateFrom(value), false);
}
}  // extern "C"

// -- EsTensorHolder, EsTensorLike --------------------------------------------------------

namespace ge {
namespace es {
namespace {
// A two-input math node (GE's Add, Sub, Mul, Div: x1, x2 -> y).
EsTensorHolder Binary(const char *type, EsCTensorHolder *x1, EsCTensorHolder *x2) {
  if (x1 == nullptr || x2 == nullptr) {
    Complain(std::string(type) + ": both operands must be tensors");
    return EsTensorHolder();
  }
  EsCGraphBuilder &builder = x1->GetOwnerBuilder();
  if (&x2->GetOwnerBuilder() != &builder) {
    Complain(std::string(type) + ": the operands belong to different graph builders");
    return EsTensorHolder();
  }
  Graph *graph = builder.GetGraph();
  GNode node = CompliantNodeBuilder(graph)
                   .OpType(type)
                   .Name(builder.GenerateNodeName(type).GetString())
                   .IrDefInputs({{"x1", CompliantNodeBuilder::kEsIrInputRequired, ""},
                                 {"x2", CompliantNodeBuilder::kEsIrInputRequired, ""}})
                   .IrDefOutputs({{"y", CompliantNodeBuilder::kEsIrOutputRequired, ""}})
                   .Build();
  if (AddEdgeAndUpdatePeerDesc(*graph, x1->GetProducer(), x1->GetOutIndex(), node, 0) != GRAPH_SUCCESS ||
      AddEdgeAndUpdatePeerDesc(*graph, x2->GetProducer(), x2->GetOutIndex(), node, 1) != GRAPH_SUCCESS) {
    return EsTensorHolder();
  }
  return builder.GetTensorHolderFromNode(node, 0);
}
}  // namespace

EsTensorHolder EsTensorHolder::operator+(const EsTensorHolder &other) const {
  return Binary("Add", tensor_holder_, other.tensor_holder_);
}
EsTensorHolder EsTensorHolder::operator-(const EsTensorHolder &other) const {
  return Binary("Sub", tensor_holder_, other.tensor_holder_);
}
EsTensorHolder EsTensorHolder::operator*(const EsTensorHolder &other) const {
  return Binary("Mul", tensor_holder_, other.tensor_holder_);
}
EsTensorHolder EsTensorHolder::operator/(const EsTensorHolder &other) const {
  return Binary("Div", tensor_holder_, other.tensor_holder_);
}
int32_t EsTensorHolder::GetProducerOutIndex() const {
  return tensor_holder_ == nullptr ? -1 : tensor_holder_->GetOutIndex();
}
GNode *EsTensorHolder::GetProducer() const {
  return tensor_holder_ == nullptr ? nullptr : &tensor_holder_->GetProducer();
}
Status EsTensorHolder::AddControlEdge(const std::vector<EsTensorHolder> &ctrl_ins) const {
  std::vector<EsCTensorHolder *> sources = TensorsToEsCTensorHolders(ctrl_ins);
  return EsAddControlEdge(tensor_holder_, sources.data(), static_cast<int64_t>(sources.size()));
}

class EsTensorLike::EsTensorLikeImpl {
 public:
  enum class Kind { kTensor, kNull, kInt64, kFloat, kInt64s, kFloats };
  Kind kind = Kind::kNull;
  EsCTensorHolder *tensor = nullptr;
  int64_t int_value = 0;
  float float_value = 0.0F;
  std::vector<int64_t> ints;
  std::vector<float> floats;
};

EsTensorLike::EsTensorLike(const EsTensorHolder &tensor) : impl_(new EsTensorLikeImpl()) {
  impl_->kind = EsTensorLikeImpl::Kind::kTensor;
  impl_->tensor = tensor.GetCTensorHolder();
}
EsTensorLike::EsTensorLike(const std::nullptr_t) : impl_(new EsTensorLikeImpl()) {}
EsTensorLike::EsTensorLike(const int64_t value) : impl_(new EsTensorLikeImpl()) {
  impl_->kind = EsTensorLikeImpl::Kind::kInt64;
  impl_->int_value = value;
}
EsTensorLike::EsTensorLike(const float value) : impl_(new EsTensorLikeImpl()) {
  impl_->kind = EsTensorLikeImpl::Kind::kFloat;
  impl_->float_value = value;
}
EsTensorLike::EsTensorLike(const std::vector<int64_t> &values) : impl_(new EsTensorLikeImpl()) {
  impl_->kind = EsTensorLikeImpl::Kind::kInt64s;
  impl_->ints = values;
}
EsTensorLike::EsTensorLike(const std::vector<float> &values) : impl_(new EsTensorLikeImpl()) {
  impl_->kind = EsTensorLikeImpl::Kind::kFloats;
  impl_->floats = values;
}
EsTensorLike::~EsTensorLike() = default;

EsCGraphBuilder *EsTensorLike::GetOwnerBuilder() const {
  return impl_->tensor == nullptr ? nullptr : &impl_->tensor->GetOwnerBuilder();
}

EsTensorHolder EsTensorLike::ToTensorHolder(EsCGraphBuilder *graph) const {
  using Kind = EsTensorLikeImpl::Kind;
  switch (impl_->kind) {
    case Kind::kTensor:
      return impl_->tensor;
    case Kind::kNull:
      return EsTensorHolder();
    case Kind::kInt64:
      return EsCreateScalarInt64(graph, impl_->int_value);
    case Kind::kFloat:
      return EsCreateScalarFloat(graph, impl_->float_value);
    case Kind::kInt64s:
      return EsCreateVectorInt64(graph, impl_->ints.data(), static_cast<int64_t>(impl_->ints.size()));
    case Kind::kFloats:
      return EsCreateVectorFloat(graph, impl_->floats.data(), static_cast<int64_t>(impl_->floats.size()));
  }
  return EsTensorHolder();
}
}  // namespace es
}  // namespace ge
