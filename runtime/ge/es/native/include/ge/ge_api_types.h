// The part of GE's "ge/ge_api_types.h" the ES API uses: ge::Status. Written for
// ge-ops' ES runtime library; GE's header also holds the session options.
#ifndef GE_OPS_ESRT_GE_GE_API_TYPES_H_
#define GE_OPS_ESRT_GE_GE_API_TYPES_H_

#include <cstdint>

#include "graph/tensor.h"
#include "graph/types.h"

namespace ge {
using Status = uint32_t;
}  // namespace ge

#endif  // GE_OPS_ESRT_GE_GE_API_TYPES_H_
