/**
 * Subgraph ops and names that are any C identifier.
 */
#ifndef GE_OPS_TESTS_CONTROL_FLOW_H_
#define GE_OPS_TESTS_CONTROL_FLOW_H_

#include "graph/operator_reg.h"

namespace ge {
/**
*@brief Runs then_branch or else_branch by the value of cond.

*@par Inputs:
* @li cond: A scalar.
* @li input: The inputs of either branch.

*@par Graphs:
* @li then_branch: Runs when cond is non-zero.
* @li else_branch: Runs when cond is zero.

*@par Outputs:
* @li output: The outputs of the branch run.
*/
REG_OP(IfDemo)
    .INPUT(cond, TensorType::ALL())
    .DYNAMIC_INPUT(input, TensorType::ALL())
    .DYNAMIC_OUTPUT(output, TensorType::ALL())
    .GRAPH(then_branch)
    .GRAPH(else_branch)
    .OP_END_FACTORY_REG(IfDemo)

/**
*@brief Runs the branch that branch_index selects.

*@par Inputs:
* @li branch_index: A scalar index.
* @li input: The inputs of every branch.

*@par Attributes:
* @li branches: One subgraph per case.
*/
REG_OP(CaseDemo)
    .INPUT(branch_index, TensorType({DT_INT32}))
    .DYNAMIC_INPUT(input, TensorType::ALL())
    .DYNAMIC_OUTPUT(output, TensorType::ALL())
    .DYNAMIC_GRAPH(branches)
    .OP_END_FACTORY_REG(CaseDemo)

/**
* @brief Parses serialized examples; its first input is called "name".
*/
REG_OP(ParseExampleDemo)
    .INPUT(serialized, TensorType({DT_STRING}))
    .INPUT(name, TensorType({DT_STRING}))
    .DYNAMIC_OUTPUT(values, TensorType({DT_INT64, DT_FLOAT, DT_STRING}))
    .ATTR(num_sparse, Int, 0)
    .OP_END_FACTORY_REG(ParseExampleDemo)
}  // namespace ge

#endif  // GE_OPS_TESTS_CONTROL_FLOW_H_
