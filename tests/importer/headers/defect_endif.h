#include "graph/operator_reg.h"

namespace ge {
REG_OP(StrayEndifDemo)
    .INPUT(x, TensorType({DT_FLOAT}))
    .OUTPUT(y, TensorType({DT_FLOAT}))
    .OP_END_FACTORY_REG(StrayEndifDemo)
}  // namespace ge
#endif  // a guard whose #ifndef was deleted
