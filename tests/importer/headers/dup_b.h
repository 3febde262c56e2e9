#include "graph/operator_reg.h"

namespace ge {
/**
 * @brief The same op as in dup_a.h, with another doc comment.
 */
REG_OP(SameDemo)
    .INPUT(x, TensorType({DT_FLOAT}))
    .OUTPUT(y, TensorType({DT_FLOAT}))
    .ATTR(alpha, Float, 1.0)
    .OP_END_FACTORY_REG(SameDemo)

/** @brief Declared differently in dup_a.h and dup_b.h: float16 here. */
REG_OP(DiffDemo)
    .INPUT(x, TensorType({DT_FLOAT16}))
    .OUTPUT(y, TensorType({DT_FLOAT16}))
    .OP_END_FACTORY_REG(DiffDemo)
}  // namespace ge
