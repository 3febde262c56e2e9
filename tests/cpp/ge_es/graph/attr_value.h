// GE's class AttrValue ("graph/attr_value.h", GE inc/graph_metadef/external/
// graph/attr_value.h at ffdcbc9f74): every public member with GE's
// signature, written for ge-ops' tests (see ../README.md). Its overloads of
// SetAttrValue decide which C++ values an attr accepts: no `const char *`,
// no std::string, no list of C strings. Declarations only (the two member
// templates keep bodies of one line).
#ifndef GE_OPS_TESTS_GE_ES_GRAPH_ATTR_VALUE_H_
#define GE_OPS_TESTS_GE_ES_GRAPH_ATTR_VALUE_H_

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
class AttrValue {
 public:
  using INT = int64_t;
  using FLOAT = float;
  using STR = std::string;

  AttrValue();
  ~AttrValue() = default;

  template <typename T, typename DT>
  graphStatus GetValue(DT &val) const {
    T got;
    const auto status = GetValue(got);
    if (status == GRAPH_SUCCESS) {
      val = DT(got);
    }
    return status;
  }
  template <typename T, typename DT>
  static T CreateFrom(DT &&val) {
    return val;
  }
  graphStatus GetValue(AscendString &val);

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

 private:
  friend class AttrValueImpl;
  graphStatus GetValue(STR &val) const;
  graphStatus GetValue(INT &val) const;
  graphStatus GetValue(FLOAT &val) const;
};
}  // namespace ge

#endif  // GE_OPS_TESTS_GE_ES_GRAPH_ATTR_VALUE_H_
