// GE's "ge/ge_api_types.h", the one name the ES base API headers take from
// it: ge::Status (declared in GE's inc/graph_metadef/external/ge_common/
// ge_common_api_types.h, which ge_api_types.h includes; GE ffdcbc9f74).
// Written for ge-ops' tests (see ../README.md).
#ifndef GE_OPS_TESTS_GE_ES_GE_GE_API_TYPES_H_
#define GE_OPS_TESTS_GE_ES_GE_GE_API_TYPES_H_
#include <cstdint>
namespace ge {
using Status = uint32_t;
}  // namespace ge
#endif  // GE_OPS_TESTS_GE_ES_GE_GE_API_TYPES_H_
