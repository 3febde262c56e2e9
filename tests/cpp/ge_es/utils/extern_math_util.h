// GE's IntegerChecker ("utils/extern_math_util.h", metadef
// inc/external/utils/extern_math_util.h at 786891c02e), the one part of it
// generated sources call, written for ge-ops' tests (see ../README.md):
// Compat(v) says whether v fits T; both must be integers of at most 64
// bits. Left out: the overflow helpers (MulOverflow, AddOverflow, ...).
#ifndef GE_OPS_TESTS_GE_ES_UTILS_EXTERN_MATH_UTIL_H_
#define GE_OPS_TESTS_GE_ES_UTILS_EXTERN_MATH_UTIL_H_

#include <cstdint>
#include <iostream>
#include <limits>

namespace ge {
template <typename T>
class IntegerChecker {
 public:
  template <typename T1>
  static bool Compat(const T1 v) {
    static_assert(sizeof(T) <= sizeof(uint64_t) && sizeof(T1) <= sizeof(uint64_t),
                  "IntegerChecker checks integers of at most 64 bits");
    if (v >= static_cast<T1>(0)) {
      return static_cast<uint64_t>(v) <= static_cast<uint64_t>(std::numeric_limits<T>::max());
    }
    return static_cast<int64_t>(v) >= static_cast<int64_t>(std::numeric_limits<T>::min());
  }
};
}  // namespace ge

#endif  // GE_OPS_TESTS_GE_ES_UTILS_EXTERN_MATH_UTIL_H_
