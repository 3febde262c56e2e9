// GE's "utils/extern_math_util.h", abridged: IntegerChecker::Compat.
#ifndef GE_OPS_TESTS_GE_ES_UTILS_EXTERN_MATH_UTIL_H_
#define GE_OPS_TESTS_GE_ES_UTILS_EXTERN_MATH_UTIL_H_

#include <cstdint>
#include <limits>

namespace ge {
template <typename T>
struct IntegerChecker {
  template <typename T1>
  static bool Compat(const T1 v) {
    return v >= static_cast<T1>(std::numeric_limits<T>::min()) &&
           v <= static_cast<T1>(std::numeric_limits<T>::max());
  }
};
}  // namespace ge

#endif  // GE_OPS_TESTS_GE_ES_UTILS_EXTERN_MATH_UTIL_H_
