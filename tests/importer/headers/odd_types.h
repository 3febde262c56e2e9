// Type expressions C++ never evaluates: the macros only stringify them, so
// GE compiles every one of these. Each is imported with its evident meaning.
#include "graph/operator_reg.h"

namespace ge {
/** @brief A named set inside braces, and one without TensorType:: and (). */
REG_OP(OddSetsDemo)
    .INPUT(x, TensorType({BasicType(), DT_BOOL}))
    .INPUT(scale, TensorType({FloatingDataType, DT_BF16}))
    .INPUT(alone, TensorType({IndexNumberType()}))
    .OUTPUT(y, TensorType({BasicType(), DT_BOOL}))
    .OP_END_FACTORY_REG(OddSetsDemo)

/** @brief Lists without their braces or parentheses. */
REG_OP(OddListsDemo)
    .INPUT(no_braces, TensorType(DT_FLOAT, DT_FLOAT16))
    .INPUT(no_parens, TensorType{DT_INT32, DT_INT64})
    .INPUT(bare, DT_INT32)
    .INPUT(one, TensorType(DT_UINT8))
    .INPUT(set_no_parens, TensorType::ALL)
    .INPUT(qualified, ge::TensorType({ge::DT_INT8, ge::DT_INT16}))
    .OUTPUT(y, TensorType({DT_FLOAT, DT_FLOAT16}))
    .OP_END_FACTORY_REG(OddListsDemo)

/** @brief Braces that do not balance, a repeat, a full-width comma. */
REG_OP(OddPunctuationDemo)
    .INPUT(missing, TensorType({DT_FLOAT, DT_FLOAT16))
    .INPUT(extra, TensorType({DT_INT32}}))
    .INPUT(repeated, TensorType({DT_INT8, DT_INT8, DT_UINT8}))
    .INPUT(wide, TensorType({DT_FLOAT，DT_DOUBLE}))
    .OUTPUT(y, TensorType({DT_FLOAT}))
    .OP_END_FACTORY_REG(OddPunctuationDemo)

/** @brief A type variable written without quotes. */
REG_OP(OddVarDemo)
    .INPUT(x, T)
    .OUTPUT(y, "T")
    .DATATYPE(T, TensorType({DT_FLOAT, DT_INT32}))
    .OP_END_FACTORY_REG(OddVarDemo)

/** @brief Attr spellings that are normalised. */
REG_OP(OddAttrsDemo)
    .INPUT(x, TensorType({DT_FLOAT}))
    .OUTPUT(y, TensorType({DT_FLOAT}))
    .ATTR(dtype, Int, DT_INT32)
    .ATTR(dtypes, ListInt, {DT_FLOAT, ge::DT_INT64})
    .ATTR(mode, AscendString, "fast")
    .ATTR(weird, Type, ge::DataType(-1))
    .ATTR(shift, Int, 1 << 3)
    .OP_END_FACTORY_REG(OddAttrsDemo)
}  // namespace ge
