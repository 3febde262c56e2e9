#include "graph/operator_reg.h"

namespace ge {
REG_OP(BeforeCommentDemo)
    .INPUT(x, TensorType({DT_FLOAT}))
    .OUTPUT(y, TensorType({DT_FLOAT}))
    .OP_END_FACTORY_REG(BeforeCommentDemo)

/* This comment is never closed, so the rest of the header is a comment.
REG_OP(AfterCommentDemo)
    .INPUT(x, TensorType({DT_FLOAT}))
    .OUTPUT(y, TensorType({DT_FLOAT}))
    .OP_END_FACTORY_REG(AfterCommentDemo)
}  // namespace ge
