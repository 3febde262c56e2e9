#include "graph/operator_reg.h"

namespace ge {
/** @brief Declared the same in dup_a.h and dup_b.h. */
REG_OP(SameDemo)
    .INPUT(x, TensorType({DT_FLOAT}))
    .OUTPUT(y, TensorType({DT_FLOAT}))
    .ATTR(alpha, Float, 1.0)
    .OP_END_FACTORY_REG(SameDemo)

/** @brief Declared differently in dup_a.h and dup_b.h: float32 here. */
REG_OP(DiffDemo)
    .INPUT(x, TensorType({DT_FLOAT}))
    .OUTPUT(y, TensorType({DT_FLOAT}))
    .OP_END_FACTORY_REG(DiffDemo)
}  // namespace ge
