// GE's AscendString ("graph/ascend_string.h"), declarations only, written for
// ge-ops' tests: implicit from a C string, with GE's members and operators
// (defined in GE's library). Left out: the std::hash specialisation.
#ifndef GE_OPS_TESTS_GE_EXTERNAL_GRAPH_ASCEND_STRING_H_
#define GE_OPS_TESTS_GE_EXTERNAL_GRAPH_ASCEND_STRING_H_

#include <cstddef>
#include <memory>
#include <string>

#include "graph/types.h"

namespace ge {
class AscendStringImpl;

class AscendString {
 public:
  AscendString() = default;
  ~AscendString() = default;
  AscendString(const char_t *const name);
  AscendString(const char_t *const name, size_t length);

  const char_t *GetString() const;
  size_t GetLength() const;
  size_t Find(const AscendString &ascend_string) const;
  size_t Hash() const;

  bool operator<(const AscendString &d) const;
  bool operator>(const AscendString &d) const;
  bool operator<=(const AscendString &d) const;
  bool operator>=(const AscendString &d) const;
  bool operator==(const AscendString &d) const;
  bool operator!=(const AscendString &d) const;
  bool operator==(const char_t *const d) const;
  bool operator!=(const char_t *const d) const;

 private:
  std::shared_ptr<std::string> name_;
  friend class AscendStringImpl;
};
}  // namespace ge

#endif  // GE_OPS_TESTS_GE_EXTERNAL_GRAPH_ASCEND_STRING_H_
