#include "graph/operator_reg.h"

namespace ge {
REG_OP(MissingParenDemo)
    .INPUT(x, TensorType({DT_FLOAT})
    .OUTPUT(y, TensorType({DT_FLOAT}))
    .OP_END_FACTORY_REG(MissingParenDemo)
}  // namespace ge
