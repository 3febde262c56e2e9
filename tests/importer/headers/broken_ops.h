// Declarations the importer cannot import; the others of the header are.
#include "graph/operator_reg.h"

namespace ge {
REG_OP(WrongEndDemo)
    .INPUT(x, TensorType({DT_FLOAT}))
    .OP_END_FACTORY_REG(WrongEnd)

REG_OP(UnknownElementDemo)
    .INPUT(x, TensorType({DT_FLOAT}))
    .INPUTS(y, TensorType({DT_FLOAT}))
    .OP_END_FACTORY_REG(UnknownElementDemo)

REG_OP(ArityDemo)
    .INPUT(x)
    .OP_END_FACTORY_REG(ArityDemo)

REG_OP(NotANameDemo)
    .INPUT("x", TensorType({DT_FLOAT}))
    .OP_END_FACTORY_REG(NotANameDemo)

REG_OP(AttrTypeDemo)
    .ATTR(x, Float32, 1.0)
    .OP_END_FACTORY_REG(AttrTypeDemo)

REG_OP(UndeclaredDemo)
    .INPUT(x, "T")
    .OP_END_FACTORY_REG(UndeclaredDemo)

REG_OP(UnreadableDemo)
    .INPUT(x, TensorType({DT_FLOAT} + 1))
    .OP_END_FACTORY_REG(UnreadableDemo)

REG_OP(NeverEndedDemo)
    .INPUT(x, TensorType({DT_FLOAT}))

/**
 * @brief Imported: its doc names an input it does not have.
 *
 * @par Inputs:
 * @li x: The input.
 * @li z: No such input.
 */
REG_OP(DocMismatchDemo)
    .INPUT(x, TensorType({DT_FLOAT}))
    .OUTPUT(y, TensorType({DT_FLOAT}))
    .OP_END_FACTORY_REG(DocMismatchDemo)
}  // namespace ge
