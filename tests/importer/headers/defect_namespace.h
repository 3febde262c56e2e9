#ifndef GE_OPS_TESTS_DEFECT_NAMESPACE_H_
#define GE_OPS_TESTS_DEFECT_NAMESPACE_H_
#include "graph/operator_reg.h"

namespace ge {
REG_OP(OpenNamespaceDemo)
    .INPUT(x, TensorType({DT_FLOAT}))
    .OUTPUT(y, TensorType({DT_FLOAT}))
    .OP_END_FACTORY_REG(OpenNamespaceDemo)

#endif  // GE_OPS_TESTS_DEFECT_NAMESPACE_H_
