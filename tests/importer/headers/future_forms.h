// GE's forms beyond a TensorType per slot: Promote of type variables,
// ListTensorType, names with a leading _, DT_UNDEFINED; gen-ops renders each.
#include "graph/operator_reg.h"

namespace ge {
/** @brief x1 * x2 with type promotion between the inputs. */
REG_OP(MulDemo)
    .INPUT(x1, "T1")
    .INPUT(x2, "T2")
    .OUTPUT(y, "T3")
    .DATATYPE(T1, TensorType({DT_FLOAT, DT_FLOAT16, DT_INT32}))
    .DATATYPE(T2, TensorType({DT_FLOAT, DT_FLOAT16, DT_INT32}))
    .DATATYPE(T3, Promote({"T1", "T2"}))
    .OP_END_FACTORY_REG(MulDemo)

/** @brief A dynamic input whose instances each have their own type. */
REG_OP(IdentityNDemo)
    .DYNAMIC_INPUT(x, "T")
    .DYNAMIC_OUTPUT(y, "T")
    .DATATYPE(T, ListTensorType(TensorType::BasicType()))
    .OP_END_FACTORY_REG(IdentityNDemo)

/** @brief Names that start with an underscore, and DT_UNDEFINED. */
REG_OP(_IfDemo)
    .INPUT(cond, TensorType::ALL())
    .DYNAMIC_INPUT(input, TensorType::ALL())
    .DYNAMIC_OUTPUT(output, TensorType::ALL())
    .GRAPH(then_branch)
    .GRAPH(else_branch)
    .ATTR(_kernel, String, "")
    .ATTR(output_type, Type, DT_UNDEFINED)
    .ATTR(output_types, ListType, {DT_FLOAT, DT_INT32})
    .OP_END_FACTORY_REG(_IfDemo)

REG_OP(ListRangeDemo)
    .DYNAMIC_INPUT(x, "T")
    .OUTPUT(y, TensorType({DT_INT64}))
    .DATATYPE(T, ListTensorType(TensorType({DT_FLOAT, DT_INT32})))
    .OP_END_FACTORY_REG(ListRangeDemo)
}  // namespace ge
