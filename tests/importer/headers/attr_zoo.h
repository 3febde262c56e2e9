// Every attr type REG_OP knows, with the default spellings real headers use.
#ifndef GE_OPS_TESTS_ATTR_ZOO_H_
#define GE_OPS_TESTS_ATTR_ZOO_H_

#include "graph/operator_reg.h"

namespace ge {
/**
 * @brief One attr of every type, each with a default.
 *
 * @par Attributes:
 * @li i: An int.
 * @li f: A float spelled with a suffix.
 * @li s: A string with escapes.
 */
REG_OP(AttrZooDemo)
    .INPUT(x, TensorType({DT_FLOAT}))
    .OUTPUT(y, TensorType({DT_FLOAT}))
    .ATTR(i, Int, -1)
    .ATTR(i_hex, Int, 0x10)
    .ATTR(i_min, Int, (-9223372036854775807 - 1))
    .ATTR(f, Float, 1e-5f)
    .ATTR(f_plain, Float, 0.0001)
    .ATTR(f_negative, Float, -1.0)
    .ATTR(f_int, Float, 1)
    .ATTR(f_inf, Float, std::numeric_limits<float>::infinity())
    .ATTR(b, Bool, true)
    .ATTR(s, String, "tab\there \"quoted\" \\ caf\303\251")
    .ATTR(s_empty, String, "")
    .ATTR(s_joined, String, "two " "pieces")
    .ATTR(ascii, AscendString, "adam")
    .ATTR(dt, Type, DT_BF16)
    .ATTR(dt_qualified, Type, ge::DT_INT64)
    .ATTR(t, Tensor, Tensor())
    .ATTR(na, NamedAttrs, NamedAttrs())
    .ATTR(by, Bytes, {0x00, 0x01, 0x61, 0x62})
    .ATTR(li, ListInt, {1, 1, 1, 1})
    .ATTR(li_empty, ListInt, {})
    .ATTR(lf, ListFloat, {0.1, 2.5e-3f, -1.0})
    .ATTR(lb, ListBool, {false, true})
    .ATTR(ls, ListString, {"a", "b c", ""})
    .ATTR(ldt, ListType, {DT_FLOAT, DT_DOUBLE})
    .ATTR(lli, ListListInt, {{1, 2}, {3}})
    .ATTR(lli_empty, ListListInt, {{}, {2, 3}, {}})
    .ATTR(lt, ListTensor, {})
    .ATTR(lna, ListNamedAttrs, {})
    .OP_END_FACTORY_REG(AttrZooDemo)

/** @brief Every attr type, required. */
REG_OP(RequiredZooDemo)
    .INPUT(x, TensorType({DT_FLOAT}))
    .OUTPUT(y, TensorType({DT_FLOAT}))
    .REQUIRED_ATTR(i, Int)
    .REQUIRED_ATTR(f, Float)
    .REQUIRED_ATTR(b, Bool)
    .REQUIRED_ATTR(s, String)
    .REQUIRED_ATTR(dt, Type)
    .REQUIRED_ATTR(t, Tensor)
    .REQUIRED_ATTR(na, NamedAttrs)
    .REQUIRED_ATTR(by, Bytes)
    .REQUIRED_ATTR(li, ListInt)
    .REQUIRED_ATTR(lf, ListFloat)
    .REQUIRED_ATTR(lb, ListBool)
    .REQUIRED_ATTR(ls, ListString)
    .REQUIRED_ATTR(lsa, ListAscendString)
    .REQUIRED_ATTR(ldt, ListType)
    .REQUIRED_ATTR(lli, ListListInt)
    .REQUIRED_ATTR(lt, ListTensor)
    .REQUIRED_ATTR(lna, ListNamedAttrs)
    .OP_END_FACTORY_REG(RequiredZooDemo)
}  // namespace ge
#endif  // GE_OPS_TESTS_ATTR_ZOO_H_
