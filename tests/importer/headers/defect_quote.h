#include "graph/operator_reg.h"

namespace ge {
REG_OP(OpenQuoteDemo)
    .INPUT(x, TensorType({DT_FLOAT}))
    .OUTPUT(y, TensorType({DT_FLOAT}))
    .ATTR(mode, String, "fast)
    .OP_END_FACTORY_REG(OpenQuoteDemo)
}  // namespace ge
