// A header in a subdirectory, with nested namespaces and a splice inside a
// line comment \
   that swallows this line, so REG_OP(NotAnOp) here is comment.
#pragma once
#include "graph/operator_reg.h"

namespace ge {
namespace {
constexpr int kUnused = 0;
}  // namespace

/**
 * @brief Identity, declared after an anonymous namespace.
 */
REG_OP(IdentityDemo)
    .INPUT(x, TensorType::ALL())
    .OUTPUT(y, TensorType::ALL())
    .OP_END_FACTORY_REG(IdentityDemo)
}  // namespace ge
