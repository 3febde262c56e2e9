// The part of GE's "ge/ge_api_error_codes.h" the ES API uses: ge::Status's two
// common values (GE's numbers). Written for ge-ops' ES runtime library.
#ifndef GE_OPS_ESRT_GE_GE_API_ERROR_CODES_H_
#define GE_OPS_ESRT_GE_GE_API_ERROR_CODES_H_

#include "ge/ge_api_types.h"

namespace ge {
constexpr Status SUCCESS = 0U;
constexpr Status FAILED = 0xFFFFFFFFU;
}  // namespace ge

#endif  // GE_OPS_ESRT_GE_GE_API_ERROR_CODES_H_
