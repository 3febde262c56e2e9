// GE's AscendString ("graph/ascend_string.h"): GE's declarations, implicit
// from a C string; defined in ge-ops' ES runtime library (runtime/ge/es/native).
// Left out: the std::hash specialisation.
#ifndef GE_OPS_ESRT_GRAPH_ASCEND_STRING_H_
#define GE_OPS_ESRT_GRAPH_ASCEND_STRING_H_

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

#endif  // GE_OPS_ESRT_GRAPH_ASCEND_STRING_H_
