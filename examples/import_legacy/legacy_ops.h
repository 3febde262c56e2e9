/*
 * legacy_ops.h: a small operator library declared the way REG_OP headers
 * have been written for years, for the import_legacy example of ge-ops.
 * Written for this example; it is no real project's header.
 *
 * It holds the forms `gen-ops import` reads (doc blocks, named sets,
 * TensorType written without braces, a bare DT_ name, DATATYPE with
 * Promote, a ref pair, dynamic inputs and outputs, an Int attr defaulting
 * to a DT_ enumerator, an op named with a leading _ and one whose file stem
 * is a Python keyword) and two defects GE never notices: DT_FLOAT32 and
 * DT_BFLOAT16 are not DataType enumerators. `gen-ops import --fix-dtypes`
 * reads them as GE's string table does.
 */
#ifndef LEGACY_OPS_H_
#define LEGACY_OPS_H_

#include "graph/operator_reg.h"

namespace ge {
/**
*@brief Scales and shifts a tensor: y = x * alpha + beta. \n

*@par Inputs:
*One input, including:
*@li x: A tensor of type float32 or float16.

*@par Attributes:
*@li alpha: An optional float, the scale. Defaults to 1.0.
*@li beta: An optional float, the shift. Defaults to 0.

*@par Outputs:
*@li y: A tensor of the type and shape of "x". \n

*@attention Constraints:
* Computed in the dtype of "x".
*/
REG_OP(LegacyScale)
    .INPUT(x, TensorType({DT_FLOAT, DT_FLOAT16}))
    .OUTPUT(y, TensorType({DT_FLOAT32, DT_FLOAT16}))  /* DT_FLOAT32: a defect */
    .ATTR(alpha, Float, 1.0)
    .ATTR(beta, Float, 0.0f)
    .OP_END_FACTORY_REG(LegacyScale)

/**
*@brief Multiplies two tensors element-wise, in the dtype they promote to.

*@par Inputs:
*@li x1: A tensor.
*@li x2: A tensor, broadcast against "x1".

*@par Outputs:
*@li y: The product, of the promoted dtype.
*/
REG_OP(LegacyMul)
    .INPUT(x1, "T1")
    .INPUT(x2, "T2")
    .OUTPUT(y, "T3")
    .DATATYPE(T1, TensorType({DT_FLOAT, DT_FLOAT16, DT_INT32, DT_INT8}))
    .DATATYPE(T2, TensorType({DT_FLOAT, DT_FLOAT16, DT_INT32, DT_INT8}))
    .DATATYPE(T3, Promote({"T1", "T2"}))
    .OP_END_FACTORY_REG(LegacyMul)

/**
*@brief Rectified linear unit: max(x, 0).

*@par Inputs:
*@li x: A tensor of type float32, float16 or bfloat16.

*@par Outputs:
*@li y: A tensor of the type and shape of "x".
*/
REG_OP(LegacyRelu)
    .INPUT(x, TensorType(DT_FLOAT, DT_FLOAT16, DT_BFLOAT16))
    .OUTPUT(y, TensorType(DT_FLOAT, DT_FLOAT16, DT_BFLOAT16))
    .OP_END_FACTORY_REG(LegacyRelu)

/**
*@brief Adds all input tensors element-wise.

*@par Inputs:
*@li x: A list of tensors of one shape and type. It's a dynamic input.

*@par Attributes:
*@li N: The number of tensors in "x".

*@par Outputs:
*@li y: The sum.
*/
REG_OP(LegacyAddN)
    .DYNAMIC_INPUT(x, TensorType::NumberType())
    .OUTPUT(y, TensorType::NumberType())
    .REQUIRED_ATTR(N, Int)
    .OP_END_FACTORY_REG(LegacyAddN)

/**
*@brief Adds "value" to "ref" in place.

*@par Inputs:
*@li ref: The tensor updated in place.
*@li value: A tensor of the shape of "ref".

*@par Attributes:
*@li use_locking: Ignored; kept for compatibility.

*@par Outputs:
*@li ref: "ref" after the update.
*/
REG_OP(LegacyAssignAdd)
    .INPUT(ref, TensorType::BasicType())
    .INPUT(value, TensorType::BasicType())
    .OUTPUT(ref, TensorType::BasicType())
    .ATTR(use_locking, Bool, false)
    .OP_END_FACTORY_REG(LegacyAssignAdd)

#ifndef LEGACY_LITE
/**
*@brief Returns its input unchanged; the runtime's own copy of Identity.

*@par Inputs:
*@li x: Any tensor.

*@par Outputs:
*@li y: "x".
*/
REG_OP(_LegacyIdentity)
    .INPUT(x, TensorType({BasicType(), DT_BOOL}))
    .OUTPUT(y, TensorType({BasicType(), DT_BOOL}))
    .OP_END_FACTORY_REG(_LegacyIdentity)
#endif  // LEGACY_LITE

/**
*@brief Returns the index of the largest value along "dimension".

*@par Inputs:
*@li x: A tensor of real numbers.
*@li dimension: A scalar int32, the axis.

*@par Attributes:
*@li dtype: The type of "y", as a DataType number. Defaults to DT_INT32.

*@par Outputs:
*@li y: The indices.
*/
REG_OP(LegacyArgMax)
    .INPUT(x, TensorType::RealNumberType())
    .INPUT(dimension, DT_INT32)
    .OUTPUT(y, TensorType({DT_INT32, DT_INT64}))
    .ATTR(dtype, Int, DT_INT32)
    .OP_END_FACTORY_REG(LegacyArgMax)

/**
*@brief Splits "x" into "num_split" tensors along "split_dim".
*/
REG_OP(LegacySplit)
    .INPUT(x, TensorType({DT_FLOAT, DT_FLOAT16, DT_INT8, DT_INT16, \
                          DT_INT32, DT_INT64, DT_UINT8, DT_BOOL}))
    // split_dim is an attr here, not an input as in TensorFlow's Split
    .DYNAMIC_OUTPUT(y, TensorType({DT_FLOAT, DT_FLOAT16, DT_INT8, DT_INT16, \
                                   DT_INT32, DT_INT64, DT_UINT8, DT_BOOL}))
    .REQUIRED_ATTR(split_dim, Int)
    .REQUIRED_ATTR(num_split, Int)
    .OP_END_FACTORY_REG(LegacySplit)

/**
*@brief Pads "x" with "constant_values" or by reflection.

*@par Attributes:
*@li paddings: Before and after counts, one pair per dimension.
*@li mode: "constant" or "reflect".
*@li constant_values: The value padded with in constant mode.
*/
REG_OP(LegacyPad)
    .INPUT(x, TensorType({RealNumberType, DT_BOOL}))
    .OUTPUT(y, TensorType({RealNumberType, DT_BOOL}))
    .ATTR(paddings, ListListInt, {{0, 0}, {1, 1}})
    .ATTR(mode, String, "constant")
    .ATTR(constant_values, Float, 0.0)
    .OP_END_FACTORY_REG(LegacyPad)

/**
*@brief Stops the run with "message" when "condition" is false.

*@par Inputs:
*@li condition: A scalar bool.
*@li data: Tensors printed with the message.
*/
REG_OP(Assert)
    .INPUT(condition, TensorType{DT_BOOL})
    .DYNAMIC_INPUT(data, TensorType::ALL())
    .ATTR(message, String, "assertion failed")
    .ATTR(summarize, Int, 3)
    .OP_END_FACTORY_REG(Assert)
}  // namespace ge

#endif  // LEGACY_OPS_H_
