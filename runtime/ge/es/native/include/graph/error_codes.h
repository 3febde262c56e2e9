// The declarations of GE's "graph/error_codes.h" that op prototype headers
// meet: the visibility and deprecation macros and graphStatus with its two
// common values. Written for ge-ops' ES runtime library; the names and values are GE's.
// ATTRIBUTED_DEPRECATED marks GE's superseded overloads, so a REG_OP
// expansion that picked one would fail under -Werror, as it warns with GE.
#ifndef GE_OPS_ESRT_GRAPH_ERROR_CODES_H_
#define GE_OPS_ESRT_GRAPH_ERROR_CODES_H_

#include <cstddef>
#include <cstdint>

#ifndef GE_FUNC_VISIBILITY
#define GE_FUNC_VISIBILITY
#endif
#ifndef GE_FUNC_HOST_VISIBILITY
#define GE_FUNC_HOST_VISIBILITY
#endif
#ifndef GE_FUNC_DEV_VISIBILITY
#define GE_FUNC_DEV_VISIBILITY
#endif

#ifdef NO_METADEF_ABI_COMPATIABLE
#define ATTRIBUTED_DEPRECATED(replacement)
#define ATTRIBUTED_NOT_SUPPORT()
#else
#define ATTRIBUTED_DEPRECATED(replacement) \
  __attribute__((deprecated("Please use " #replacement " instead.")))
#define ATTRIBUTED_NOT_SUPPORT() \
  __attribute__((deprecated("The method will not be supported in the future.")))
#endif

namespace ge {
using graphStatus = uint32_t;
const graphStatus GRAPH_SUCCESS = 0;
const graphStatus GRAPH_FAILED = 0xFFFFFFFF;
const graphStatus GRAPH_NOT_CHANGED = 1343242304;
const graphStatus GRAPH_PARAM_INVALID = 50331649;
}  // namespace ge

#endif  // GE_OPS_ESRT_GRAPH_ERROR_CODES_H_
