#include "graph/operator_reg.h"

namespace ge {
REG_OP(BeforeBraceDemo)
    .INPUT(x, TensorType({DT_FLOAT}))
    .OUTPUT(y, TensorType({DT_FLOAT}))
    .OP_END_FACTORY_REG(BeforeBraceDemo)

struct Options {
  int level = 0;

REG_OP(AfterBraceDemo)
    .INPUT(x, TensorType({DT_FLOAT}))
    .OUTPUT(y, TensorType({DT_FLOAT}))
    .OP_END_FACTORY_REG(AfterBraceDemo)
}  // namespace ge
