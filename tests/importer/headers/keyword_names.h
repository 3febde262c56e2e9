// Op names GE's own headers use that are awkward elsewhere: GE declares
// REG_OP(Shape) and REG_OP(If) and compiles them.
#include "graph/operator_reg.h"

namespace ge {
/** @brief The shape of x, as a 1-D tensor. */
REG_OP(Shape)
    .INPUT(x, TensorType::ALL())
    .OUTPUT(y, TensorType({DT_INT32, DT_INT64}))
    .ATTR(dtype, Int, DT_INT32)
    .OP_END_FACTORY_REG(Shape)

/** @brief If, by the name GE gives it; its file stem is a Python keyword. */
REG_OP(If)
    .INPUT(cond, TensorType::ALL())
    .DYNAMIC_INPUT(input, TensorType::ALL())
    .DYNAMIC_OUTPUT(output, TensorType::ALL())
    .GRAPH(then_branch)
    .GRAPH(else_branch)
    .OP_END_FACTORY_REG(If)
}  // namespace ge
