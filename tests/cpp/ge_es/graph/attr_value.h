// GE's "graph/attr_value.h", abridged: AttrValue and the SetAttrValue
// overloads of the attr types the ES API sets. Declarations only.
#ifndef GE_OPS_TESTS_GE_ES_GRAPH_ATTR_VALUE_H_
#define GE_OPS_TESTS_GE_ES_GRAPH_ATTR_VALUE_H_

#include <cstdint>
#include <vector>

#include "graph/ascend_string.h"
#include "graph/error_codes.h"
#include "graph/tensor.h"
#include "graph/types.h"

namespace ge {
class AttrValue {
 public:
  AttrValue();
  ~AttrValue();
  AttrValue(const AttrValue &other);
  AttrValue(AttrValue &&other);
  AttrValue &operator=(const AttrValue &other);
  AttrValue &operator=(AttrValue &&other);
  graphStatus SetAttrValue(const int64_t &attr_value) const;
  graphStatus SetAttrValue(const float32_t &attr_value) const;
  graphStatus SetAttrValue(const AscendString &attr_value) const;
  graphStatus SetAttrValue(const bool &attr_value) const;
  graphStatus SetAttrValue(const Tensor &attr_value) const;
  graphStatus SetAttrValue(const DataType &attr_value) const;
  graphStatus SetAttrValue(const std::vector<int64_t> &attr_value) const;
  graphStatus SetAttrValue(const std::vector<float32_t> &attr_value) const;
  graphStatus SetAttrValue(const std::vector<AscendString> &attr_values) const;
  graphStatus SetAttrValue(const std::vector<bool> &attr_value) const;
  graphStatus SetAttrValue(const std::vector<DataType> &attr_value) const;
  graphStatus SetAttrValue(const std::vector<std::vector<int64_t>> &attr_value) const;
};
}  // namespace ge

#endif  // GE_OPS_TESTS_GE_ES_GRAPH_ATTR_VALUE_H_
