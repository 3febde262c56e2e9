// ge-ops' ES runtime library: CompliantNodeBuilder (V1 and V2 IR
// definitions) and AddEdgeAndUpdatePeerDesc.
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "compliant_node_builder.h"
#include "esrt_internal.h"

namespace ge {
namespace es {
// -- V2 definitions --------------------------------------------------------------------

class CompliantNodeBuilder::IrInputDefV2::Impl {
 public:
  std::string name;
  IrInputType type = kEsIrInputRequired;
  std::string symbol_id;
};
CompliantNodeBuilder::IrInputDefV2::IrInputDefV2() : impl_(new Impl()) {}
CompliantNodeBuilder::IrInputDefV2::IrInputDefV2(const char_t *name, IrInputType ir_input_type,
                                                 const char_t *symbol_id)
    : impl_(new Impl()) {
  Name(name).InputType(ir_input_type).SymbolId(symbol_id);
}
CompliantNodeBuilder::IrInputDefV2::~IrInputDefV2() {
  delete impl_;
}
CompliantNodeBuilder::IrInputDefV2::IrInputDefV2(const IrInputDefV2 &other) : impl_(new Impl(*other.impl_)) {}
CompliantNodeBuilder::IrInputDefV2 &CompliantNodeBuilder::IrInputDefV2::operator=(const IrInputDefV2 &other) {
  if (this != &other) {
    *impl_ = *other.impl_;
  }
  return *this;
}
CompliantNodeBuilder::IrInputDefV2::IrInputDefV2(IrInputDefV2 &&other) noexcept : impl_(other.impl_) {
  other.impl_ = nullptr;
}
CompliantNodeBuilder::IrInputDefV2 &CompliantNodeBuilder::IrInputDefV2::operator=(IrInputDefV2 &&other) noexcept {
  std::swap(impl_, other.impl_);
  return *this;
}
CompliantNodeBuilder::IrInputDefV2 &CompliantNodeBuilder::IrInputDefV2::Name(const char_t *name) {
  impl_->name = name == nullptr ? "" : name;
  return *this;
}
CompliantNodeBuilder::IrInputDefV2 &CompliantNodeBuilder::IrInputDefV2::InputType(IrInputType ir_input_type) {
  impl_->type = ir_input_type;
  return *this;
}
CompliantNodeBuilder::IrInputDefV2 &CompliantNodeBuilder::IrInputDefV2::SymbolId(const char_t *symbol_id) {
  impl_->symbol_id = symbol_id == nullptr ? "" : symbol_id;
  return *this;
}
const char_t *CompliantNodeBuilder::IrInputDefV2::GetName() const {
  return impl_->name.c_str();
}
CompliantNodeBuilder::IrInputType CompliantNodeBuilder::IrInputDefV2::GetInputType() const {
  return impl_->type;
}
const char_t *CompliantNodeBuilder::IrInputDefV2::GetSymbolId() const {
  return impl_->symbol_id.c_str();
}

class CompliantNodeBuilder::IrOutputDefV2::Impl {
 public:
  std::string name;
  IrOutputType type = kEsIrOutputRequired;
  std::string symbol_id;
};
CompliantNodeBuilder::IrOutputDefV2::IrOutputDefV2() : impl_(new Impl()) {}
CompliantNodeBuilder::IrOutputDefV2::IrOutputDefV2(const char_t *name, IrOutputType ir_output_type,
                                                   const char_t *symbol_id)
    : impl_(new Impl()) {
  Name(name).OutputType(ir_output_type).SymbolId(symbol_id);
}
CompliantNodeBuilder::IrOutputDefV2::~IrOutputDefV2() {
  delete impl_;
}
CompliantNodeBuilder::IrOutputDefV2::IrOutputDefV2(const IrOutputDefV2 &other) : impl_(new Impl(*other.impl_)) {}
CompliantNodeBuilder::IrOutputDefV2 &CompliantNodeBuilder::IrOutputDefV2::operator=(const IrOutputDefV2 &other) {
  if (this != &other) {
    *impl_ = *other.impl_;
  }
  return *this;
}
CompliantNodeBuilder::IrOutputDefV2::IrOutputDefV2(IrOutputDefV2 &&other) noexcept : impl_(other.impl_) {
  other.impl_ = nullptr;
}
CompliantNodeBuilder::IrOutputDefV2 &CompliantNodeBuilder::IrOutputDefV2::operator=(IrOutputDefV2 &&other) noexcept {
  std::swap(impl_, other.impl_);
  return *this;
}
CompliantNodeBuilder::IrOutputDefV2 &CompliantNodeBuilder::IrOutputDefV2::Name(const char_t *name) {
  impl_->name = name == nullptr ? "" : name;
  return *this;
}
CompliantNodeBuilder::IrOutputDefV2 &CompliantNodeBuilder::IrOutputDefV2::OutputType(IrOutputType ir_output_type) {
  impl_->type = ir_output_type;
  return *this;
}
CompliantNodeBuilder::IrOutputDefV2 &CompliantNodeBuilder::IrOutputDefV2::SymbolId(const char_t *symbol_id) {
  impl_->symbol_id = symbol_id == nullptr ? "" : symbol_id;
  return *this;
}
const char_t *CompliantNodeBuilder::IrOutputDefV2::GetName() const {
  return impl_->name.c_str();
}
CompliantNodeBuilder::IrOutputType CompliantNodeBuilder::IrOutputDefV2::GetOutputType() const {
  return impl_->type;
}
const char_t *CompliantNodeBuilder::IrOutputDefV2::GetSymbolId() const {
  return impl_->symbol_id.c_str();
}

class CompliantNodeBuilder::IrAttrDefV2::Impl {
 public:
  std::string name;
  IrAttrType type = kEsAttrRequired;
  std::string data_type;
  AttrValue default_value;
};
CompliantNodeBuilder::IrAttrDefV2::IrAttrDefV2() : impl_(new Impl()) {}
CompliantNodeBuilder::IrAttrDefV2::IrAttrDefV2(const char_t *attr_name, IrAttrType ir_attr_type,
                                               const char_t *attr_data_type, const AttrValue &attr_default_value)
    : impl_(new Impl()) {
  AttrName(attr_name).AttrType(ir_attr_type).AttrDataType(attr_data_type).DefaultValue(attr_default_value);
}
CompliantNodeBuilder::IrAttrDefV2::~IrAttrDefV2() {
  delete impl_;
}
CompliantNodeBuilder::IrAttrDefV2::IrAttrDefV2(const IrAttrDefV2 &other) : impl_(new Impl(*other.impl_)) {}
CompliantNodeBuilder::IrAttrDefV2 &CompliantNodeBuilder::IrAttrDefV2::operator=(const IrAttrDefV2 &other) {
  if (this != &other) {
    *impl_ = *other.impl_;
  }
  return *this;
}
CompliantNodeBuilder::IrAttrDefV2::IrAttrDefV2(IrAttrDefV2 &&other) noexcept : impl_(other.impl_) {
  other.impl_ = nullptr;
}
CompliantNodeBuilder::IrAttrDefV2 &CompliantNodeBuilder::IrAttrDefV2::operator=(IrAttrDefV2 &&other) noexcept {
  std::swap(impl_, other.impl_);
  return *this;
}
CompliantNodeBuilder::IrAttrDefV2 &CompliantNodeBuilder::IrAttrDefV2::AttrName(const char_t *attr_name) {
  impl_->name = attr_name == nullptr ? "" : attr_name;
  return *this;
}
CompliantNodeBuilder::IrAttrDefV2 &CompliantNodeBuilder::IrAttrDefV2::AttrType(IrAttrType ir_attr_type) {
  impl_->type = ir_attr_type;
  return *this;
}
CompliantNodeBuilder::IrAttrDefV2 &CompliantNodeBuilder::IrAttrDefV2::AttrDataType(const char_t *attr_data_type) {
  impl_->data_type = attr_data_type == nullptr ? "" : attr_data_type;
  return *this;
}
CompliantNodeBuilder::IrAttrDefV2 &CompliantNodeBuilder::IrAttrDefV2::DefaultValue(
    const AttrValue &attr_default_value) {
  impl_->default_value = attr_default_value;
  return *this;
}
const char_t *CompliantNodeBuilder::IrAttrDefV2::GetAttrName() const {
  return impl_->name.c_str();
}
CompliantNodeBuilder::IrAttrType CompliantNodeBuilder::IrAttrDefV2::GetAttrType() const {
  return impl_->type;
}
const char_t *CompliantNodeBuilder::IrAttrDefV2::GetAttrDataType() const {
  return impl_->data_type.c_str();
}
const AttrValue &CompliantNodeBuilder::IrAttrDefV2::GetDefaultValue() const {
  return impl_->default_value;
}

// -- the builder -----------------------------------------------------------------------

class CompliantNodeBuilder::CompliantNodeBuilderImpl {
 public:
  struct OutputOverride {
    bool has_shape = false;
    std::vector<int64_t> shape;
    bool has_dtype = false;
    DataType dtype = DT_UNDEFINED;
    bool has_format = false;
    Format format = FORMAT_ND;
  };
  Graph *graph = nullptr;
  std::string type;
  std::string name;
  std::vector<std::pair<std::string, IrInputType>> inputs;
  std::vector<std::pair<std::string, IrOutputType>> outputs;
  std::vector<std::pair<std::string, AttrValue>> attrs;  // IR order; empty values are left off
  std::map<std::string, int32_t> dynamic_inputs;
  std::map<std::string, int32_t> dynamic_outputs;
  std::map<std::string, OutputOverride> overrides;
};

CompliantNodeBuilder::CompliantNodeBuilder(ge::Graph *graph) : impl_(new CompliantNodeBuilderImpl()) {
  impl_->graph = graph;
}
CompliantNodeBuilder::~CompliantNodeBuilder() = default;
CompliantNodeBuilder::CompliantNodeBuilder(CompliantNodeBuilder &&) noexcept = default;
CompliantNodeBuilder &CompliantNodeBuilder::operator=(CompliantNodeBuilder &&) noexcept = default;

CompliantNodeBuilder &CompliantNodeBuilder::OpType(const char_t *type) {
  impl_->type = type == nullptr ? "" : type;
  return *this;
}
CompliantNodeBuilder &CompliantNodeBuilder::Name(const char_t *name) {
  impl_->name = name == nullptr ? "" : name;
  return *this;
}
CompliantNodeBuilder &CompliantNodeBuilder::IrDefInputs(std::vector<IrInputDef> input_ir_def) {
  impl_->inputs.clear();
  for (const auto &each : input_ir_def) {
    impl_->inputs.emplace_back(each.name, each.ir_input_type);
  }
  return *this;
}
CompliantNodeBuilder &CompliantNodeBuilder::IrDefInputsV2(const IrInputDefV2 *input_ir_def, size_t input_ir_def_num) {
  impl_->inputs.clear();
  for (size_t i = 0; input_ir_def != nullptr && i < input_ir_def_num; ++i) {
    impl_->inputs.emplace_back(input_ir_def[i].GetName(), input_ir_def[i].GetInputType());
  }
  return *this;
}
CompliantNodeBuilder &CompliantNodeBuilder::IrDefOutputs(std::vector<IrOutputDef> output_ir_def) {
  impl_->outputs.clear();
  for (const auto &each : output_ir_def) {
    impl_->outputs.emplace_back(each.name, each.ir_output_type);
  }
  return *this;
}
CompliantNodeBuilder &CompliantNodeBuilder::IrDefOutputsV2(const IrOutputDefV2 *output_ir_def,
                                                           size_t output_ir_def_num) {
  impl_->outputs.clear();
  for (size_t i = 0; output_ir_def != nullptr && i < output_ir_def_num; ++i) {
    impl_->outputs.emplace_back(output_ir_def[i].GetName(), output_ir_def[i].GetOutputType());
  }
  return *this;
}
CompliantNodeBuilder &CompliantNodeBuilder::IrDefAttrs(std::vector<IrAttrDef> attr_ir_def) {
  impl_->attrs.clear();
  for (const auto &each : attr_ir_def) {
    impl_->attrs.emplace_back(each.attr_name, each.attr_default_value);
  }
  return *this;
}
CompliantNodeBuilder &CompliantNodeBuilder::IrDefAttrsV2(const IrAttrDefV2 *attr_ir_def, size_t attr_ir_def_num) {
  impl_->attrs.clear();
  for (size_t i = 0; attr_ir_def != nullptr && i < attr_ir_def_num; ++i) {
    impl_->attrs.emplace_back(attr_ir_def[i].GetAttrName(), attr_ir_def[i].GetDefaultValue());
  }
  return *this;
}
CompliantNodeBuilder &CompliantNodeBuilder::InstanceDynamicInputNum(const char_t *ir_name, int32_t num) {
  impl_->dynamic_inputs[ir_name == nullptr ? "" : ir_name] = num;
  return *this;
}
CompliantNodeBuilder &CompliantNodeBuilder::InstanceDynamicOutputNum(const char_t *ir_name, int32_t num) {
  impl_->dynamic_outputs[ir_name == nullptr ? "" : ir_name] = num;
  return *this;
}
CompliantNodeBuilder &CompliantNodeBuilder::InstanceOutputDataType(const char_t *name, ge::DataType data_type) {
  auto &entry = impl_->overrides[name == nullptr ? "" : name];
  entry.has_dtype = true;
  entry.dtype = data_type;
  return *this;
}
CompliantNodeBuilder &CompliantNodeBuilder::InstanceOutputShape(const char_t *name,
                                                                const std::vector<int64_t> &shape) {
  auto &entry = impl_->overrides[name == nullptr ? "" : name];
  entry.has_shape = true;
  entry.shape = shape;
  return *this;
}
// One shape and one format per output in the graph file: origin and
// storage variants set the same.
CompliantNodeBuilder &CompliantNodeBuilder::InstanceOutputOriginShape(const char_t *name,
                                                                      const std::vector<int64_t> &shape) {
  return InstanceOutputShape(name, shape);
}
CompliantNodeBuilder &CompliantNodeBuilder::InstanceOutputStorageShape(const char_t *name,
                                                                       const std::vector<int64_t> &shape) {
  return InstanceOutputShape(name, shape);
}
CompliantNodeBuilder &CompliantNodeBuilder::InstanceOutputFormat(const char_t *name, ge::Format format) {
  auto &entry = impl_->overrides[name == nullptr ? "" : name];
  entry.has_format = true;
  entry.format = format;
  return *this;
}
CompliantNodeBuilder &CompliantNodeBuilder::InstanceOutputOriginFormat(const char_t *name, ge::Format format) {
  return InstanceOutputFormat(name, format);
}
CompliantNodeBuilder &CompliantNodeBuilder::InstanceOutputStorageFormat(const char_t *name, ge::Format format) {
  return InstanceOutputFormat(name, format);
}

ge::GNode CompliantNodeBuilder::Build() const {
  const CompliantNodeBuilderImpl &def = *impl_;
  std::shared_ptr<GraphImpl> graph = def.graph == nullptr ? nullptr : GraphAdapter::Impl(*def.graph);
  if (graph == nullptr) {
    Complain("CompliantNodeBuilder: no graph for node " + def.name);
    return GNode();
  }
  if (def.type.empty() || def.name.empty()) {
    Complain("CompliantNodeBuilder: a node needs a type and a name (type '" + def.type + "', name '" + def.name +
             "')");
    return GNode();
  }
  if (graph->HasNodeNamed(def.name)) {
    Complain("CompliantNodeBuilder: graph " + graph->name + " already has a node named " + def.name);
    return GNode();
  }
  auto count = [](const std::map<std::string, int32_t> &counts, const std::string &name) -> int64_t {
    const auto found = counts.find(name);
    return found == counts.end() ? 0 : found->second;
  };
  auto node = std::unique_ptr<NodeData>(new NodeData());
  node->name = def.name;
  node->type = def.type;
  std::map<std::string, std::pair<int32_t, int64_t>> input_slots;  // name -> (first slot, count)
  std::set<std::string> dynamic_inputs;
  int32_t slot = 0;
  for (const auto &each : def.inputs) {
    const char *kind = each.second == kEsIrInputDynamic    ? "dynamic"
                       : each.second == kEsIrInputOptional ? "optional"
                                                           : "required";
    const int64_t n = each.second == kEsIrInputDynamic ? count(def.dynamic_inputs, each.first) : 1;
    if (n < 0) {
      Complain("node " + def.name + ": dynamic input " + each.first + " has a negative count");
      return GNode();
    }
    node->ir_inputs.push_back({each.first, kind, n});
    input_slots[each.first] = {slot, n};
    if (each.second == kEsIrInputDynamic) {
      dynamic_inputs.insert(each.first);
    }
    slot += static_cast<int32_t>(n);
  }
  node->inputs.assign(static_cast<size_t>(slot), {nullptr, 0});
  int32_t out_index = 0;
  for (const auto &each : def.outputs) {
    const bool dynamic = each.second == kEsIrOutputDynamic;
    const int64_t n = dynamic ? count(def.dynamic_outputs, each.first) : 1;
    if (n < 0) {
      Complain("node " + def.name + ": dynamic output " + each.first + " has a negative count");
      return GNode();
    }
    node->ir_outputs.push_back({each.first, dynamic, n});
    OutputMeta meta;
    const auto found = def.overrides.find(each.first);
    if (found != def.overrides.end()) {
      meta.known_shape = found->second.has_shape;
      meta.dims = found->second.shape;
      meta.dtype = found->second.has_dtype ? found->second.dtype : meta.dtype;
      meta.format = found->second.has_format ? found->second.format : meta.format;
    }
    // GE's ref pairs: an output named like an input reuses its slots, when
    // both are dynamic or neither (a dynamic output's instances are named
    // x0, x1, ... in GE, so they do not pair with a single input x).
    const auto same = input_slots.find(each.first);
    const bool pairs = same != input_slots.end() && dynamic_inputs.count(each.first) == (dynamic ? 1U : 0U);
    for (int64_t i = 0; i < n; ++i) {
      node->outputs.push_back(meta);
      if (pairs && i < same->second.second) {
        node->ref_outputs.emplace_back(out_index, same->second.first + static_cast<int32_t>(i));
      }
      ++out_index;
    }
  }
  for (const auto &each : def.attrs) {
    if (each.second.impl != nullptr && each.second.impl->set) {
      node->attrs.emplace_back(each.first, each.second);
    }
  }
  NodeData *added = graph->AddNode(std::move(node));
  return NodeAdapter::Wrap(graph, added);
}

ge::graphStatus AddEdgeAndUpdatePeerDesc(Graph &graph, GNode &src_node, int32_t src_port_index, GNode &dst_node,
                                         int32_t dst_port_index) {
  return graph.AddDataEdge(src_node, src_port_index, dst_node, dst_port_index);
}
}  // namespace es
}  // namespace ge
