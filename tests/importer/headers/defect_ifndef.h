#ifndef GE_OPS_TESTS_DEFECT_IFNDEF_H_
#define GE_OPS_TESTS_DEFECT_IFNDEF_H_
#include "graph/operator_reg.h"

namespace ge {
REG_OP(UnterminatedIfndefDemo)
    .INPUT(x, TensorType({DT_FLOAT}))
    .OUTPUT(y, TensorType({DT_FLOAT}))
    .OP_END_FACTORY_REG(UnterminatedIfndefDemo)
}  // namespace ge
