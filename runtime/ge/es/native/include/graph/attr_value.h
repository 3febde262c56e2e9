// GE's AttrValue ("graph/attr_value.h"): GE's Set/GetAttrValue overloads for
// the attr types the ES API passes; defined in ge-ops' ES runtime library.
// Left out: the GetValue/CreateFrom templates and the std names GE's header
// brings into the global namespace.
#ifndef GE_OPS_ESRT_GRAPH_ATTR_VALUE_H_
#define GE_OPS_ESRT_GRAPH_ATTR_VALUE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "graph/ascend_string.h"
#include "graph/error_codes.h"
#include "graph/tensor.h"
#include "graph/types.h"

namespace ge {
class AttrValueImpl;
class GE_FUNC_DEV_VISIBILITY GE_FUNC_HOST_VISIBILITY AttrValue {
 public:
  using INT = int64_t;
  using FLOAT = float;
  using STR = std::string;

  AttrValue();
  ~AttrValue() = default;

  graphStatus SetAttrValue(const int64_t &attr_value) const;
  graphStatus GetAttrValue(int64_t &attr_value) const;
  graphStatus SetAttrValue(const float32_t &attr_value) const;
  graphStatus GetAttrValue(float32_t &attr_value) const;
  graphStatus SetAttrValue(const AscendString &attr_value) const;
  graphStatus GetAttrValue(AscendString &attr_value) const;
  graphStatus SetAttrValue(const bool &attr_value) const;
  graphStatus GetAttrValue(bool &attr_value) const;
  graphStatus SetAttrValue(const Tensor &attr_value) const;
  graphStatus GetAttrValue(Tensor &attr_value) const;
  graphStatus SetAttrValue(const std::vector<int64_t> &attr_value) const;
  graphStatus GetAttrValue(std::vector<int64_t> &attr_value) const;
  graphStatus SetAttrValue(const std::vector<float32_t> &attr_value) const;
  graphStatus GetAttrValue(std::vector<float32_t> &attr_value) const;
  graphStatus SetAttrValue(const std::vector<AscendString> &attr_values) const;
  graphStatus GetAttrValue(std::vector<AscendString> &attr_values) const;
  graphStatus SetAttrValue(const std::vector<bool> &attr_value) const;
  graphStatus GetAttrValue(std::vector<bool> &attr_value) const;
  graphStatus SetAttrValue(const std::vector<Tensor> &attr_value) const;
  graphStatus GetAttrValue(std::vector<Tensor> &attr_value) const;
  graphStatus SetAttrValue(const std::vector<std::vector<int64_t>> &attr_value) const;
  graphStatus GetAttrValue(std::vector<std::vector<int64_t>> &attr_value) const;
  graphStatus SetAttrValue(const std::vector<ge::DataType> &attr_value) const;
  graphStatus GetAttrValue(std::vector<ge::DataType> &attr_value) const;
  graphStatus SetAttrValue(const ge::DataType &attr_value) const;
  graphStatus GetAttrValue(ge::DataType &attr_value) const;

  std::shared_ptr<AttrValueImpl> impl;
};
}  // namespace ge

#endif  // GE_OPS_ESRT_GRAPH_ATTR_VALUE_H_
