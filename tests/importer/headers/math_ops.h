/**
 * Copyright (c) ge-ops test corpus. Written for the importer's tests.
 *
 * A licence block like this one documents the file, not an op.
 */

/*!
 * \file math_ops.h
 * \brief Everyday declarations: doc blocks, wrappers, splices, comments.
 */
#ifndef GE_OPS_TESTS_MATH_OPS_H_
#define GE_OPS_TESTS_MATH_OPS_H_

#include "graph/operator_reg.h"
#include "nn_norm.h"

namespace ge {
/**
*@brief Returns x1 + x2 element-wise . \n

*@par Inputs:
*Two inputs, including:
* @li x1: A Tensor. Must be one of the following types: float16, float32,
*     int32, int64.
* @li x2: A Tensor of the same type as "x1". \n

*@par Outputs:
*y: A Tensor. Has the same type as "x1". \n

*@attention Constraints:
* @li The shapes of "x1" and "x2" must broadcast.
* @li Overflow wraps for integer types.

*@see Sub

*@par Third-party framework compatibility
*Compatible with the TensorFlow operator Add.

*@par Restrictions:
*Warning: THIS FUNCTION IS EXPERIMENTAL. Please do not use.
*/
REG_OP(AddDemo)
    .INPUT(x1, TensorType({DT_FLOAT16, DT_FLOAT, DT_INT32, DT_INT64}))
    .INPUT(x2, TensorType({DT_FLOAT16, DT_FLOAT, DT_INT32, DT_INT64}))
    .OUTPUT(y, TensorType({DT_FLOAT16, DT_FLOAT, DT_INT32, DT_INT64}))
    .OP_END_FACTORY_REG(AddDemo)

/**
* @brief Adds all input tensors element-wise.
* Each input has the same shape.

* @par Inputs:
* Dynamic inputs, including:
* @li x: A list of Tensor objects, each with same shape and type.

* @par Attributes:
* @li N: The number of inputs.

* @par Outputs:
* @li y: A Tensor. Has the same shape and type as the elements of "x".
*/
REG_OP(AddNDemo)
    .DYNAMIC_INPUT(x, TensorType::NumberType())
    .OUTPUT(y, TensorType::NumberType())
    .REQUIRED_ATTR(N, Int)
    .OP_END_FACTORY_REG(AddNDemo);

/** @brief Updates "ref" by adding "value" to it, in place. */
REG_OP(AssignAddDemo)
    .INPUT(ref, "T")
    .INPUT(value, "T")
    .OUTPUT(ref, "T")
    .ATTR(use_locking, Bool, false)
    .DATATYPE(T, TensorType({DT_FLOAT16, DT_FLOAT, DT_INT32, DT_INT64, \
                             DT_INT8, DT_UINT8}))
    .OP_END_FACTORY_REG(AssignAddDemo)

/**
*@brief Splits a tensor into "num_split" tensors along one dimension.

*@par Inputs:
* @li split_dim: The dimension to split along.
* @li x: The tensor to split.

*@par Attributes:
*num_split: The number of outputs.

*@par Outputs:
*y: The parts, in order.
*/
REG_OP(SplitDemo)
    .INPUT(split_dim, TensorType::IndexNumberType())  // a scalar
    .INPUT(x, TensorType::BasicType())
    // the outputs: one per part
    .DYNAMIC_OUTPUT(y, TensorType::BasicType())
    /* num_split must divide the dimension */
    .REQUIRED_ATTR(num_split, Int)
    .OP_END_FACTORY_REG(SplitDemo)

#ifndef BUILD_LITE
/**
 * @brief Layer normalisation, with optional scale and shift.
 *
 * Computes over the dimensions from begin_norm_axis on.
 *
 * @par Inputs:
 * @li x: The input.
 * @li gamma: Optional scale.
 * @li beta: Optional shift.
 *
 * @par Outputs:
 * @li y: The result.
 * @li mean: The mean of each row.
 * @li rstd: The reciprocal standard deviation of each row.
 *
 * @par Attributes:
 * @li begin_norm_axis: The first normalised dimension.
 * @li epsilon: Added to the variance.
 */
REG_OP(LayerNormDemo)
    .INPUT(x, "T")
    .OPTIONAL_INPUT(gamma, "T")
    .OPTIONAL_INPUT(beta, \
                    "T")
    .OUTPUT(y, "T")
    .OUTPUT(mean, TensorType({DT_FLOAT}))
    .OUTPUT(rstd, TensorType({DT_FLOAT}))
    .ATTR(begin_norm_axis, Int, -1)
    .ATTR(epsilon, Float, 1e-5f)
    .DATATYPE(T, TensorType::FLOAT())
    .OP_END_FACTORY_REG(LayerNormDemo)
#endif  // BUILD_LITE

#if 0
/** @brief Never compiled: the importer skips #if 0. */
REG_OP(DeadDemo)
    .INPUT(x, TensorType({DT_FLOAT32}))
    .OP_END_FACTORY_REG(DeadDemo)
#else
/**
 * @brief Casts x to dst_type.
 */
REG_OP(CastDemo)
    .INPUT(x, TensorType::ALL())
    .OUTPUT(y, TensorType::ALL())
    .REQUIRED_ATTR(dst_type, Type)
    .ATTR(truncate, Bool, false)
    .INFER_SHAPE_AND_TYPE()
    .OP_END_FACTORY_REG(CastDemo)
#endif

// A declaration without a doc comment, and the C++ around it that the
// importer does not read.
REG_OP(ReluDemo)
    .INPUT(x, TensorType::RealNumberType())
    .OUTPUT(y, TensorType::RealNumberType())
    .OP_END_FACTORY_REG(ReluDemo)

struct DemoHelper {
  int value = 1;
  int Get() const { return (value + 1) * 2; }
};
}  // namespace ge

#endif  // GE_OPS_TESTS_MATH_OPS_H_
