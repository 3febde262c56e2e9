// ge-ops' ES runtime library: AscendString, Shape, TensorDesc, Tensor,
// AttrValue, GNode and Graph over the graph model of esrt_internal.h.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "esrt_internal.h"
#include "graph/ascend_string.h"

namespace ge {
// -- AscendString ---------------------------------------------------------------------

AscendString::AscendString(const char_t *const name)
    : name_(std::make_shared<std::string>(name == nullptr ? "" : name)) {}
AscendString::AscendString(const char_t *const name, size_t length)
    : name_(std::make_shared<std::string>(name == nullptr ? std::string() : std::string(name, length))) {}
const char_t *AscendString::GetString() const {
  return name_ == nullptr ? "" : name_->c_str();
}
size_t AscendString::GetLength() const {
  return name_ == nullptr ? 0U : name_->size();
}
size_t AscendString::Find(const AscendString &ascend_string) const {
  return std::string(GetString()).find(ascend_string.GetString());
}
size_t AscendString::Hash() const {
  return std::hash<std::string>()(std::string(GetString(), GetLength()));
}
static int Compare(const AscendString &a, const AscendString &b) {
  return std::string(a.GetString(), a.GetLength()).compare(std::string(b.GetString(), b.GetLength()));
}
bool AscendString::operator<(const AscendString &d) const {
  return Compare(*this, d) < 0;
}
bool AscendString::operator>(const AscendString &d) const {
  return Compare(*this, d) > 0;
}
bool AscendString::operator<=(const AscendString &d) const {
  return Compare(*this, d) <= 0;
}
bool AscendString::operator>=(const AscendString &d) const {
  return Compare(*this, d) >= 0;
}
bool AscendString::operator==(const AscendString &d) const {
  return Compare(*this, d) == 0;
}
bool AscendString::operator!=(const AscendString &d) const {
  return Compare(*this, d) != 0;
}
bool AscendString::operator==(const char_t *const d) const {
  return d != nullptr && std::strcmp(GetString(), d) == 0;
}
bool AscendString::operator!=(const char_t *const d) const {
  return !(*this == d);
}

// -- Shape, TensorDesc, Tensor ----------------------------------------------------------

class ShapeImpl {
 public:
  std::vector<int64_t> dims;
};

Shape::Shape() : impl_(std::make_shared<ShapeImpl>()) {}
Shape::Shape(const std::vector<int64_t> &dims) : impl_(std::make_shared<ShapeImpl>()) {
  impl_->dims = dims;
}
size_t Shape::GetDimNum() const {
  return impl_->dims.size();
}
int64_t Shape::GetDim(size_t idx) const {
  return idx < impl_->dims.size() ? impl_->dims[idx] : 0;
}
graphStatus Shape::SetDim(size_t idx, int64_t value) {
  if (idx >= impl_->dims.size()) {
    return GRAPH_FAILED;
  }
  auto copy = std::make_shared<ShapeImpl>(*impl_);  // copies never alias
  copy->dims[idx] = value;
  impl_ = copy;
  return GRAPH_SUCCESS;
}
std::vector<int64_t> Shape::GetDims() const {
  return impl_->dims;
}
int64_t Shape::GetShapeSize() const {
  if (impl_->dims.empty()) {
    return 0;  // GE's rule: a scalar shape's size is 0
  }
  int64_t size = 1;
  for (const int64_t dim : impl_->dims) {
    if (dim < 0) {
      return -1;
    }
    if (dim != 0 && size > std::numeric_limits<int64_t>::max() / dim) {
      return -1;
    }
    size *= dim;
  }
  return size;
}

class TensorDescImpl {
 public:
  Shape shape;
  Shape origin_shape;
  Format format = FORMAT_ND;
  Format origin_format = FORMAT_ND;
  DataType dtype = DT_FLOAT;
};

TensorDesc::TensorDesc() : impl(std::make_shared<TensorDescImpl>()) {}
TensorDesc::TensorDesc(Shape shape, Format format, DataType dt) : impl(std::make_shared<TensorDescImpl>()) {
  impl->shape = shape;
  impl->origin_shape = shape;
  impl->format = format;
  impl->origin_format = format;
  impl->dtype = dt;
}
TensorDesc::TensorDesc(const TensorDesc &desc) : impl(std::make_shared<TensorDescImpl>(*desc.impl)) {}
TensorDesc::TensorDesc(TensorDesc &&desc) : impl(std::make_shared<TensorDescImpl>(*desc.impl)) {}
TensorDesc &TensorDesc::operator=(const TensorDesc &desc) {
  if (this != &desc) {
    impl = std::make_shared<TensorDescImpl>(*desc.impl);
  }
  return *this;
}
TensorDesc &TensorDesc::operator=(TensorDesc &&desc) {
  if (this != &desc) {
    impl = std::make_shared<TensorDescImpl>(*desc.impl);
  }
  return *this;
}
void TensorDesc::Update(const Shape &shape, Format format, DataType dt) {
  impl->shape = shape;
  impl->format = format;
  impl->dtype = dt;
}
Shape TensorDesc::GetShape() const {
  return impl->shape;
}
void TensorDesc::SetShape(const Shape &shape) {
  impl->shape = shape;
}
Format TensorDesc::GetFormat() const {
  return impl->format;
}
void TensorDesc::SetFormat(Format format) {
  impl->format = format;
}
Shape TensorDesc::GetOriginShape() const {
  return impl->origin_shape;
}
void TensorDesc::SetOriginShape(const Shape &origin_shape) {
  impl->origin_shape = origin_shape;
}
Format TensorDesc::GetOriginFormat() const {
  return impl->origin_format;
}
void TensorDesc::SetOriginFormat(Format origin_format) {
  impl->origin_format = origin_format;
}
DataType TensorDesc::GetDataType() const {
  return impl->dtype;
}
void TensorDesc::SetDataType(DataType dt) {
  impl->dtype = dt;
}

class TensorImpl {
 public:
  TensorDesc desc;
  std::vector<uint8_t> data;
};

Tensor::Tensor() : impl(std::make_shared<TensorImpl>()) {}
Tensor::Tensor(const TensorDesc &tensor_desc) : impl(std::make_shared<TensorImpl>()) {
  impl->desc = tensor_desc;
}
Tensor::Tensor(const TensorDesc &tensor_desc, const std::vector<uint8_t> &data) : impl(std::make_shared<TensorImpl>()) {
  impl->desc = tensor_desc;
  impl->data = data;
}
Tensor::Tensor(const TensorDesc &tensor_desc, const uint8_t *data, size_t size) : impl(std::make_shared<TensorImpl>()) {
  impl->desc = tensor_desc;
  if (data != nullptr) {
    impl->data.assign(data, data + size);
  }
}
Tensor::Tensor(TensorDesc &&tensor_desc, std::vector<uint8_t> &&data) : impl(std::make_shared<TensorImpl>()) {
  impl->desc = tensor_desc;
  impl->data = std::move(data);
}
TensorDesc Tensor::GetTensorDesc() const {
  return impl->desc;
}
graphStatus Tensor::SetTensorDesc(const TensorDesc &tensor_desc) {
  impl->desc = tensor_desc;
  return GRAPH_SUCCESS;
}
const uint8_t *Tensor::GetData() const {
  return impl->data.data();
}
uint8_t *Tensor::GetData() {
  return impl->data.data();
}
size_t Tensor::GetSize() const {
  return impl->data.size();
}
graphStatus Tensor::SetData(std::vector<uint8_t> &&data) {
  impl->data = std::move(data);
  return GRAPH_SUCCESS;
}
graphStatus Tensor::SetData(const std::vector<uint8_t> &data) {
  impl->data = data;
  return GRAPH_SUCCESS;
}
graphStatus Tensor::SetData(const uint8_t *data, size_t size) {
  if (data == nullptr && size != 0U) {
    return GRAPH_FAILED;
  }
  impl->data.assign(data, data + size);
  return GRAPH_SUCCESS;
}
graphStatus Tensor::SetFormat(const ge::Format &format) {
  impl->desc.SetFormat(format);
  return GRAPH_SUCCESS;
}
ge::Format Tensor::GetFormat() const {
  return impl->desc.GetFormat();
}
graphStatus Tensor::SetDataType(const ge::DataType &dtype) {
  impl->desc.SetDataType(dtype);
  return GRAPH_SUCCESS;
}
ge::DataType Tensor::GetDataType() const {
  return impl->desc.GetDataType();
}

// -- names and sizes --------------------------------------------------------------------

const char *DataTypeName(DataType dtype) {
  static const char *const kNames[] = {
      "DT_FLOAT",         "DT_FLOAT16",        "DT_INT8",         "DT_INT32",          "DT_UINT8",
      nullptr,            "DT_INT16",          "DT_UINT16",       "DT_UINT32",         "DT_INT64",
      "DT_UINT64",        "DT_DOUBLE",         "DT_BOOL",         "DT_STRING",         "DT_DUAL_SUB_INT8",
      "DT_DUAL_SUB_UINT8", "DT_COMPLEX64",     "DT_COMPLEX128",   "DT_QINT8",          "DT_QINT16",
      "DT_QINT32",        "DT_QUINT8",         "DT_QUINT16",      "DT_RESOURCE",       "DT_STRING_REF",
      "DT_DUAL",          "DT_VARIANT",        "DT_BF16",         "DT_UNDEFINED",      "DT_INT4",
      "DT_UINT1",         "DT_INT2",           "DT_UINT2",        "DT_COMPLEX32",      "DT_HIFLOAT8",
      "DT_FLOAT8_E5M2",   "DT_FLOAT8_E4M3FN",  "DT_FLOAT8_E8M0",  "DT_FLOAT6_E3M2",    "DT_FLOAT6_E2M3",
      "DT_FLOAT4_E2M1",   "DT_FLOAT4_E1M2",    "DT_HIFLOAT4",     "DT_MAX"};
  const auto index = static_cast<size_t>(dtype);
  return index < sizeof(kNames) / sizeof(kNames[0]) ? kNames[index] : nullptr;
}

const char *FormatName(Format format) {
  static const char *const kNames[] = {"FORMAT_NCHW",
                                       "FORMAT_NHWC",
                                       "FORMAT_ND",
                                       "FORMAT_NC1HWC0",
                                       "FORMAT_FRACTAL_Z",
                                       "FORMAT_NC1C0HWPAD",
                                       "FORMAT_NHWC1C0",
                                       "FORMAT_FSR_NCHW",
                                       "FORMAT_FRACTAL_DECONV",
                                       "FORMAT_C1HWNC0",
                                       "FORMAT_FRACTAL_DECONV_TRANSPOSE",
                                       "FORMAT_FRACTAL_DECONV_SP_STRIDE_TRANS",
                                       "FORMAT_NC1HWC0_C04",
                                       "FORMAT_FRACTAL_Z_C04",
                                       "FORMAT_CHWN",
                                       "FORMAT_FRACTAL_DECONV_SP_STRIDE8_TRANS",
                                       "FORMAT_HWCN",
                                       "FORMAT_NC1KHKWHWC0",
                                       "FORMAT_BN_WEIGHT",
                                       "FORMAT_FILTER_HWCK",
                                       "FORMAT_HASHTABLE_LOOKUP_LOOKUPS",
                                       "FORMAT_HASHTABLE_LOOKUP_KEYS",
                                       "FORMAT_HASHTABLE_LOOKUP_VALUE",
                                       "FORMAT_HASHTABLE_LOOKUP_OUTPUT",
                                       "FORMAT_HASHTABLE_LOOKUP_HITS",
                                       "FORMAT_C1HWNCoC0",
                                       "FORMAT_MD",
                                       "FORMAT_NDHWC",
                                       "FORMAT_FRACTAL_ZZ",
                                       "FORMAT_FRACTAL_NZ",
                                       "FORMAT_NCDHW",
                                       "FORMAT_DHWCN",
                                       "FORMAT_NDC1HWC0",
                                       "FORMAT_FRACTAL_Z_3D",
                                       "FORMAT_CN",
                                       "FORMAT_NC",
                                       "FORMAT_DHWNC",
                                       "FORMAT_FRACTAL_Z_3D_TRANSPOSE",
                                       "FORMAT_FRACTAL_ZN_LSTM",
                                       "FORMAT_FRACTAL_Z_G",
                                       "FORMAT_RESERVED",
                                       "FORMAT_ALL",
                                       "FORMAT_NULL",
                                       "FORMAT_ND_RNN_BIAS",
                                       "FORMAT_FRACTAL_ZN_RNN",
                                       "FORMAT_NYUV",
                                       "FORMAT_NYUV_A",
                                       "FORMAT_NCL",
                                       "FORMAT_FRACTAL_Z_WINO",
                                       "FORMAT_C1HWC0",
                                       "FORMAT_FRACTAL_NZ_C0_16",
                                       "FORMAT_FRACTAL_NZ_C0_32",
                                       "FORMAT_FRACTAL_NZ_C0_2",
                                       "FORMAT_FRACTAL_NZ_C0_4",
                                       "FORMAT_FRACTAL_NZ_C0_8",
                                       "FORMAT_END"};
  if (format == FORMAT_MAX) {
    return "FORMAT_MAX";
  }
  const auto index = static_cast<size_t>(format);
  return index < sizeof(kNames) / sizeof(kNames[0]) ? kNames[index] : nullptr;
}

size_t DataTypeSize(DataType dtype) {
  switch (dtype) {
    case DT_INT8:
    case DT_UINT8:
    case DT_BOOL:
    case DT_QINT8:
    case DT_QUINT8:
    case DT_HIFLOAT8:
    case DT_FLOAT8_E5M2:
    case DT_FLOAT8_E4M3FN:
    case DT_FLOAT8_E8M0:
      return 1U;
    case DT_FLOAT16:
    case DT_BF16:
    case DT_INT16:
    case DT_UINT16:
    case DT_QINT16:
    case DT_QUINT16:
      return 2U;
    case DT_FLOAT:
    case DT_INT32:
    case DT_UINT32:
    case DT_QINT32:
    case DT_COMPLEX32:
      return 4U;
    case DT_INT64:
    case DT_UINT64:
    case DT_DOUBLE:
    case DT_COMPLEX64:
      return 8U;
    case DT_COMPLEX128:
      return 16U;
    default:
      return 0U;
  }
}

void Complain(const std::string &message) {
  std::cerr << "esrt: " << message << std::endl;
}

// -- AttrValue ----------------------------------------------------------------------------

namespace {
void AppendJsonString(std::string &out, const std::string &text) {
  out += '"';
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (byte < 0x20U) {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\u%04x", byte);
      out += escaped;
    } else {
      out += c;
    }
  }
  out += '"';
}

// A float as the graph file writes it (Python's float.hex, read with
// float.fromhex; a NaN as "nan:" and its 64 bits).
std::string FloatText(double value) {
  char text[64];
  if (value != value) {
    uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof(bits));
    std::snprintf(text, sizeof(text), "\"nan:%016llx\"", static_cast<unsigned long long>(bits));
  } else {
    std::snprintf(text, sizeof(text), "\"%a\"", value);
  }
  return text;
}

std::string Base64(const uint8_t *data, size_t size) {
  static const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((size + 2U) / 3U * 4U);
  for (size_t i = 0; i < size; i += 3U) {
    const uint32_t b0 = data[i];
    const uint32_t b1 = i + 1U < size ? data[i + 1U] : 0U;
    const uint32_t b2 = i + 2U < size ? data[i + 2U] : 0U;
    const uint32_t triple = (b0 << 16U) | (b1 << 8U) | b2;
    out += kAlphabet[(triple >> 18U) & 63U];
    out += kAlphabet[(triple >> 12U) & 63U];
    out += i + 1U < size ? kAlphabet[(triple >> 6U) & 63U] : '=';
    out += i + 2U < size ? kAlphabet[triple & 63U] : '=';
  }
  return out;
}

bool TensorJson(const Tensor &tensor, std::string &out) {
  const TensorDesc desc = tensor.GetTensorDesc();
  const char *dtype = DataTypeName(desc.GetDataType());
  const char *format = FormatName(desc.GetFormat());
  if (dtype == nullptr || format == nullptr) {
    return false;
  }
  out += "{\"data\":\"" + Base64(tensor.GetData(), tensor.GetSize()) + "\",\"dtype\":\"" + dtype +
         "\",\"format\":\"" + format + "\",\"shape\":[";
  const std::vector<int64_t> dims = desc.GetShape().GetDims();
  for (size_t i = 0; i < dims.size(); ++i) {
    out += (i == 0U ? "" : ",") + std::to_string(dims[i]);
  }
  out += "]}";
  return true;
}

graphStatus Store(const AttrValue &av, const char *type, std::string json) {
  av.impl->set = true;
  av.impl->type = type;
  av.impl->json = std::move(json);
  return GRAPH_SUCCESS;
}

template <typename T, typename F>
std::string JsonList(const std::vector<T> &values, F &&encode) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i != 0U) {
      out += ',';
    }
    out += encode(values[i]);
  }
  return out + "]";
}

std::string QuotedName(const char *name) {
  return name == nullptr ? std::string() : std::string("\"") + name + "\"";
}
}  // namespace

AttrValue::AttrValue() : impl(std::make_shared<AttrValueImpl>()) {}

graphStatus AttrValue::SetAttrValue(const int64_t &attr_value) const {
  impl->int_value = attr_value;
  return Store(*this, "int", std::to_string(attr_value));
}
graphStatus AttrValue::GetAttrValue(int64_t &attr_value) const {
  if (!impl->set || impl->type != "int") {
    return GRAPH_FAILED;
  }
  attr_value = impl->int_value;
  return GRAPH_SUCCESS;
}
graphStatus AttrValue::SetAttrValue(const float32_t &attr_value) const {
  impl->float_value = static_cast<double>(attr_value);
  return Store(*this, "float", FloatText(static_cast<double>(attr_value)));
}
graphStatus AttrValue::GetAttrValue(float32_t &attr_value) const {
  if (!impl->set || impl->type != "float") {
    return GRAPH_FAILED;
  }
  attr_value = static_cast<float32_t>(impl->float_value);
  return GRAPH_SUCCESS;
}
graphStatus AttrValue::SetAttrValue(const AscendString &attr_value) const {
  std::string json;
  impl->str_value.assign(attr_value.GetString(), attr_value.GetLength());
  AppendJsonString(json, impl->str_value);
  return Store(*this, "str", json);
}
graphStatus AttrValue::GetAttrValue(AscendString &attr_value) const {
  if (!impl->set || impl->type != "str") {
    return GRAPH_FAILED;
  }
  attr_value = AscendString(impl->str_value.c_str(), impl->str_value.size());
  return GRAPH_SUCCESS;
}
graphStatus AttrValue::SetAttrValue(const bool &attr_value) const {
  impl->bool_value = attr_value;
  return Store(*this, "bool", attr_value ? "true" : "false");
}
graphStatus AttrValue::GetAttrValue(bool &attr_value) const {
  if (!impl->set || impl->type != "bool") {
    return GRAPH_FAILED;
  }
  attr_value = impl->bool_value;
  return GRAPH_SUCCESS;
}
graphStatus AttrValue::SetAttrValue(const Tensor &attr_value) const {
  std::string json;
  if (!TensorJson(attr_value, json)) {
    return GRAPH_FAILED;
  }
  return Store(*this, "tensor", json);
}
graphStatus AttrValue::GetAttrValue(Tensor &) const {
  return GRAPH_FAILED;  // write-only here (Note [The graph model])
}
graphStatus AttrValue::SetAttrValue(const std::vector<int64_t> &attr_value) const {
  return Store(*this, "list_int", JsonList(attr_value, [](int64_t v) { return std::to_string(v); }));
}
graphStatus AttrValue::GetAttrValue(std::vector<int64_t> &) const {
  return GRAPH_FAILED;
}
graphStatus AttrValue::SetAttrValue(const std::vector<float32_t> &attr_value) const {
  return Store(*this, "list_float",
               JsonList(attr_value, [](float32_t v) { return FloatText(static_cast<double>(v)); }));
}
graphStatus AttrValue::GetAttrValue(std::vector<float32_t> &) const {
  return GRAPH_FAILED;
}
graphStatus AttrValue::SetAttrValue(const std::vector<AscendString> &attr_values) const {
  return Store(*this, "list_str", JsonList(attr_values, [](const AscendString &v) {
                 std::string json;
                 AppendJsonString(json, std::string(v.GetString(), v.GetLength()));
                 return json;
               }));
}
graphStatus AttrValue::GetAttrValue(std::vector<AscendString> &) const {
  return GRAPH_FAILED;
}
graphStatus AttrValue::SetAttrValue(const std::vector<bool> &attr_value) const {
  std::string out = "[";
  for (size_t i = 0; i < attr_value.size(); ++i) {
    out += std::string(i == 0U ? "" : ",") + (attr_value[i] ? "true" : "false");
  }
  return Store(*this, "list_bool", out + "]");
}
graphStatus AttrValue::GetAttrValue(std::vector<bool> &) const {
  return GRAPH_FAILED;
}
graphStatus AttrValue::SetAttrValue(const std::vector<Tensor> &attr_value) const {
  std::string out = "[";
  for (size_t i = 0; i < attr_value.size(); ++i) {
    if (i != 0U) {
      out += ',';
    }
    if (!TensorJson(attr_value[i], out)) {
      return GRAPH_FAILED;
    }
  }
  return Store(*this, "list_tensor", out + "]");
}
graphStatus AttrValue::GetAttrValue(std::vector<Tensor> &) const {
  return GRAPH_FAILED;
}
graphStatus AttrValue::SetAttrValue(const std::vector<std::vector<int64_t>> &attr_value) const {
  return Store(*this, "list_list_int", JsonList(attr_value, [](const std::vector<int64_t> &inner) {
                 return JsonList(inner, [](int64_t v) { return std::to_string(v); });
               }));
}
graphStatus AttrValue::GetAttrValue(std::vector<std::vector<int64_t>> &) const {
  return GRAPH_FAILED;
}
graphStatus AttrValue::SetAttrValue(const std::vector<ge::DataType> &attr_value) const {
  for (const DataType each : attr_value) {
    if (DataTypeName(each) == nullptr || each == DT_UNDEFINED || each == DT_MAX) {
      return GRAPH_FAILED;
    }
  }
  return Store(*this, "list_dtype", JsonList(attr_value, [](DataType v) { return QuotedName(DataTypeName(v)); }));
}
graphStatus AttrValue::GetAttrValue(std::vector<ge::DataType> &) const {
  return GRAPH_FAILED;
}
graphStatus AttrValue::SetAttrValue(const ge::DataType &attr_value) const {
  if (DataTypeName(attr_value) == nullptr || attr_value == DT_UNDEFINED || attr_value == DT_MAX) {
    return GRAPH_FAILED;
  }
  impl->dtype_value = attr_value;
  return Store(*this, "dtype", QuotedName(DataTypeName(attr_value)));
}
graphStatus AttrValue::GetAttrValue(ge::DataType &attr_value) const {
  if (!impl->set || impl->type != "dtype") {
    return GRAPH_FAILED;
  }
  attr_value = impl->dtype_value;
  return GRAPH_SUCCESS;
}

// -- the graph model -----------------------------------------------------------------------

void NodeData::SetAttr(const std::string &key, const AttrValue &value) {
  for (auto &entry : attrs) {
    if (entry.first == key) {
      entry.second = value;
      return;
    }
  }
  attrs.emplace_back(key, value);
}

const AttrValue *NodeData::FindAttr(const std::string &key) const {
  for (const auto &entry : attrs) {
    if (entry.first == key) {
      return &entry.second;
    }
  }
  return nullptr;
}

bool GraphImpl::Owns(const NodeData *node) const {
  for (const auto &each : nodes) {
    if (each.get() == node) {
      return true;
    }
  }
  return false;
}

bool GraphImpl::HasNodeNamed(const std::string &node_name) const {
  for (const auto &each : nodes) {
    if (each->name == node_name) {
      return true;
    }
  }
  return false;
}

NodeData *GraphImpl::AddNode(std::unique_ptr<NodeData> node) {
  nodes.push_back(std::move(node));
  return nodes.back().get();
}

GNode NodeAdapter::Wrap(std::shared_ptr<GraphImpl> graph, NodeData *node, bool net_output) {
  GNode handle;
  handle.impl_ = std::make_shared<NodeImpl>();
  handle.impl_->graph = std::move(graph);
  handle.impl_->node = node;
  handle.impl_->net_output = net_output;
  return handle;
}

// -- GNode ---------------------------------------------------------------------------------

GNode::GNode() = default;

graphStatus GNode::GetType(AscendString &type) const {
  if (impl_ == nullptr) {
    return GRAPH_FAILED;
  }
  type = AscendString(impl_->net_output ? "NetOutput" : impl_->node->type.c_str());
  return GRAPH_SUCCESS;
}

graphStatus GNode::GetName(AscendString &name) const {
  if (impl_ == nullptr) {
    return GRAPH_FAILED;
  }
  name = AscendString(impl_->net_output ? "NetOutput" : impl_->node->name.c_str());
  return GRAPH_SUCCESS;
}

size_t GNode::GetInputsSize() const {
  if (impl_ == nullptr) {
    return 0U;
  }
  return impl_->net_output ? impl_->graph->outputs.size() : impl_->node->inputs.size();
}

size_t GNode::GetOutputsSize() const {
  if (impl_ == nullptr || impl_->net_output) {
    return 0U;
  }
  return impl_->node->outputs.size();
}

graphStatus GNode::GetAttr(const AscendString &name, int64_t &attr_value) const {
  const NodeData *node = NodeAdapter::Data(*this);
  const AttrValue *found = node == nullptr ? nullptr : node->FindAttr(name.GetString());
  return found == nullptr ? GRAPH_FAILED : found->GetAttrValue(attr_value);
}

graphStatus GNode::GetAttr(const AscendString &name, AscendString &attr_value) const {
  const NodeData *node = NodeAdapter::Data(*this);
  const AttrValue *found = node == nullptr ? nullptr : node->FindAttr(name.GetString());
  return found == nullptr ? GRAPH_FAILED : found->GetAttrValue(attr_value);
}

graphStatus GNode::GetAttr(const AscendString &name, AttrValue &attr_value) const {
  const NodeData *node = NodeAdapter::Data(*this);
  const AttrValue *found = node == nullptr ? nullptr : node->FindAttr(name.GetString());
  if (found == nullptr) {
    return GRAPH_FAILED;
  }
  attr_value = *found;
  return GRAPH_SUCCESS;
}

graphStatus GNode::SetAttr(const AscendString &name, AttrValue &attr_value) const {
  NodeData *node = NodeAdapter::Data(*this);
  if (node == nullptr || attr_value.impl == nullptr || !attr_value.impl->set) {
    return GRAPH_FAILED;
  }
  node->SetAttr(name.GetString(), attr_value);
  return GRAPH_SUCCESS;
}

bool GNode::HasAttr(const AscendString &name) {
  const NodeData *node = NodeAdapter::Data(*this);
  return node != nullptr && node->FindAttr(name.GetString()) != nullptr;
}

graphStatus GNode::SetSubgraph(const AscendString &subgraph_ir_name, const Graph &subgraph) {
  return SetSubgraphs(subgraph_ir_name, std::vector<Graph>{subgraph});
}

graphStatus GNode::SetSubgraphs(const AscendString &subgraph_ir_name, const std::vector<Graph> &subgraphs) {
  NodeData *node = NodeAdapter::Data(*this);
  if (node == nullptr) {
    Complain("SetSubgraph on an invalid node");
    return GRAPH_FAILED;
  }
  std::vector<std::shared_ptr<GraphImpl>> impls;
  for (const Graph &each : subgraphs) {
    std::shared_ptr<GraphImpl> impl = GraphAdapter::Impl(each);
    if (impl == nullptr || impl == impl_->graph) {
      Complain(std::string("node ") + node->name + ": subgraph " + subgraph_ir_name.GetString() +
               " is not a graph of its own");
      return GRAPH_FAILED;
    }
    impls.push_back(impl);
  }
  for (auto &entry : node->subgraphs) {
    if (entry.first == subgraph_ir_name.GetString()) {
      entry.second = impls;
      return GRAPH_SUCCESS;
    }
  }
  node->subgraphs.emplace_back(subgraph_ir_name.GetString(), impls);
  return GRAPH_SUCCESS;
}

// -- Graph ---------------------------------------------------------------------------------

Graph::Graph(const char_t *name) : impl_(std::make_shared<GraphImpl>()) {
  impl_->name = (name == nullptr || *name == '\0') ? "graph" : name;
}

bool Graph::IsValid() const {
  return impl_ != nullptr;
}

graphStatus Graph::GetName(AscendString &name) const {
  if (impl_ == nullptr) {
    return GRAPH_FAILED;
  }
  name = AscendString(impl_->name.c_str());
  return GRAPH_SUCCESS;
}

std::vector<GNode> Graph::GetDirectNode() const {
  std::vector<GNode> out;
  if (impl_ == nullptr) {
    return out;
  }
  for (const auto &node : impl_->nodes) {
    out.push_back(NodeAdapter::Wrap(impl_, node.get()));
  }
  if (impl_->built) {
    out.push_back(NodeAdapter::Wrap(impl_, nullptr, true));
  }
  return out;
}

namespace {
void CollectNodes(const std::shared_ptr<GraphImpl> &graph, std::vector<GNode> &out) {
  for (const auto &node : graph->nodes) {
    out.push_back(NodeAdapter::Wrap(graph, node.get()));
    for (const auto &entry : node->subgraphs) {
      for (const auto &sub : entry.second) {
        CollectNodes(sub, out);
      }
    }
  }
  if (graph->built) {
    out.push_back(NodeAdapter::Wrap(graph, nullptr, true));
  }
}
}  // namespace

std::vector<GNode> Graph::GetAllNodes() const {
  std::vector<GNode> out;
  if (impl_ != nullptr) {
    CollectNodes(impl_, out);
  }
  return out;
}

graphStatus Graph::AddDataEdge(GNode &src_node, const int32_t src_port_index, GNode &dst_node,
                               const int32_t dst_port_index) {
  NodeData *src = NodeAdapter::Data(src_node);
  NodeData *dst = NodeAdapter::Data(dst_node);
  if (impl_ == nullptr || src == nullptr || dst == nullptr || !impl_->Owns(src) || !impl_->Owns(dst)) {
    Complain("AddDataEdge: both nodes must be nodes of this graph");
    return GRAPH_FAILED;
  }
  if (src_port_index < 0 || static_cast<size_t>(src_port_index) >= src->outputs.size() || dst_port_index < 0 ||
      static_cast<size_t>(dst_port_index) >= dst->inputs.size()) {
    Complain("AddDataEdge " + src->name + ":" + std::to_string(src_port_index) + " -> " + dst->name + ":" +
             std::to_string(dst_port_index) + ": no such port");
    return GRAPH_FAILED;
  }
  dst->inputs[static_cast<size_t>(dst_port_index)] = {src, src_port_index};
  return GRAPH_SUCCESS;
}

graphStatus Graph::AddControlEdge(GNode &src_node, GNode &dst_node) {
  NodeData *src = NodeAdapter::Data(src_node);
  NodeData *dst = NodeAdapter::Data(dst_node);
  if (impl_ == nullptr || src == nullptr || dst == nullptr || src == dst || !impl_->Owns(src) ||
      !impl_->Owns(dst)) {
    Complain("AddControlEdge: two different nodes of this graph are needed");
    return GRAPH_FAILED;
  }
  for (const NodeData *each : dst->control_inputs) {
    if (each == src) {
      return GRAPH_SUCCESS;
    }
  }
  dst->control_inputs.push_back(src);
  return GRAPH_SUCCESS;
}

graphStatus Graph::SetAttr(const AscendString &name, const AttrValue &attr_value) {
  if (impl_ == nullptr || attr_value.impl == nullptr || !attr_value.impl->set) {
    return GRAPH_FAILED;
  }
  for (auto &entry : impl_->attrs) {
    if (entry.first == name.GetString()) {
      entry.second = attr_value;
      return GRAPH_SUCCESS;
    }
  }
  impl_->attrs.emplace_back(name.GetString(), attr_value);
  return GRAPH_SUCCESS;
}

graphStatus Graph::GetAttr(const AscendString &name, AttrValue &attr_value) const {
  if (impl_ == nullptr) {
    return GRAPH_FAILED;
  }
  for (const auto &entry : impl_->attrs) {
    if (entry.first == name.GetString()) {
      attr_value = entry.second;
      return GRAPH_SUCCESS;
    }
  }
  return GRAPH_FAILED;
}

graphStatus Graph::SaveToFile(const char_t *file_name) const {
  if (impl_ == nullptr || file_name == nullptr) {
    Complain("SaveToFile: no graph or no file name");
    return GRAPH_FAILED;
  }
  std::string bytes;
  try {
    bytes = GraphFileBytes(*impl_);
  } catch (const std::exception &error) {
    Complain(std::string("SaveToFile ") + file_name + ": " + error.what());
    return GRAPH_FAILED;
  }
  FILE *file = std::fopen(file_name, "wb");
  if (file == nullptr) {
    Complain(std::string("SaveToFile: cannot open ") + file_name + ": " + std::strerror(errno));
    return GRAPH_FAILED;
  }
  const bool written = std::fwrite(bytes.data(), 1U, bytes.size(), file) == bytes.size();
  const bool closed = std::fclose(file) == 0;
  if (!written || !closed) {
    Complain(std::string("SaveToFile: cannot write ") + file_name);
    return GRAPH_FAILED;
  }
  return GRAPH_SUCCESS;
}
}  // namespace ge
