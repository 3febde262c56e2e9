// Dtype names GE never checks: the macros stringify them. Each op uses one.
#include "graph/operator_reg.h"

namespace ge {
REG_OP(Float32Demo)
    .INPUT(x, TensorType({DT_FLOAT32, DT_FLOAT16}))
    .OUTPUT(y, TensorType({DT_FLOAT32, DT_FLOAT16}))
    .OP_END_FACTORY_REG(Float32Demo)

REG_OP(Bfloat16Demo)
    .INPUT(x, TensorType({DT_BFLOAT16}))
    .OUTPUT(y, TensorType({DT_BFLOAT16}))
    .ATTR(dtype, Type, DT_BFLOAT16)
    .OP_END_FACTORY_REG(Bfloat16Demo)

REG_OP(Float64Demo)
    .INPUT(x, TensorType({DT_FLOAT64}))
    .OUTPUT(y, TensorType({DT_DOUBLE}))
    .OP_END_FACTORY_REG(Float64Demo)

REG_OP(Fp8Demo)
    .INPUT(x, TensorType({DT_FP8_E5M2, DT_FP8_E4M3FN}))
    .OUTPUT(y, TensorType({DT_FLOAT8_E4M3_FN}))
    .OP_END_FACTORY_REG(Fp8Demo)

REG_OP(TyposDemo)
    .INPUT(x, TensorType({DI_UINT16, DT_B16}))
    .INPUT(handle, TensorType({DT_RESOURSE}))
    .OUTPUT(y, TensorType({DT_Int32}))
    .OP_END_FACTORY_REG(TyposDemo)

REG_OP(NamesDemo)
    .INPUT(x, TensorType({REALNUMBERTYPE}))
    .OUTPUT(y, TensorType({float16}))
    .OP_END_FACTORY_REG(NamesDemo)

REG_OP(GoodDemo)
    .INPUT(x, TensorType({DT_FLOAT}))
    .OUTPUT(y, TensorType({DT_FLOAT}))
    .OP_END_FACTORY_REG(GoodDemo)
}  // namespace ge
