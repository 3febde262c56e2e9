// GE's "graph/operator_factory.h", written for ge-ops' tests: the creator
// types, OperatorFactory, and the registrars that OP_END_FACTORY_REG and the
// inference macros of operator_reg.h define statics of. Declarations only.
#ifndef GE_OPS_TESTS_GE_EXTERNAL_GRAPH_OPERATOR_FACTORY_H_
#define GE_OPS_TESTS_GE_EXTERNAL_GRAPH_OPERATOR_FACTORY_H_

#include <functional>
#include <string>
#include <vector>

#include "graph/ascend_string.h"
#include "graph/error_codes.h"
#include "graph/operator.h"
#include "graph/types.h"

namespace ge {
using OpCreator = std::function<Operator(const std::string &)>;
using OpCreatorV2 = std::function<Operator(const AscendString &)>;
using InferShapeFunc = std::function<graphStatus(Operator &)>;
using InferFormatFunc = std::function<graphStatus(Operator &)>;
using InferValueRangeFunc = std::function<graphStatus(Operator &)>;
using VerifyFunc = std::function<graphStatus(Operator &)>;

enum WHEN_CALL { INPUT_IS_DYNAMIC = 0, INPUT_HAS_VALUE_RANGE = 1 };

class GE_FUNC_DEV_VISIBILITY GE_FUNC_HOST_VISIBILITY OperatorFactory {
 public:
  static Operator CreateOperator(const char_t *const operator_name,
                                 const char_t *const operator_type);
  static graphStatus GetOpsTypeList(std::vector<AscendString> &all_ops);
  static bool IsExistOp(const char_t *const operator_type);
};

class GE_FUNC_DEV_VISIBILITY GE_FUNC_HOST_VISIBILITY OperatorCreatorRegister {
 public:
  ATTRIBUTED_DEPRECATED(OperatorCreatorRegister(const char_t *, OpCreatorV2 const &))
  OperatorCreatorRegister(const std::string &operator_type, OpCreator const &op_creator);
  OperatorCreatorRegister(const char_t *const operator_type, OpCreatorV2 const &op_creator);
  ~OperatorCreatorRegister() = default;
};

class GE_FUNC_DEV_VISIBILITY GE_FUNC_HOST_VISIBILITY InferShapeFuncRegister {
 public:
  ATTRIBUTED_DEPRECATED(InferShapeFuncRegister(const char_t *, const InferShapeFunc &))
  InferShapeFuncRegister(const std::string &operator_type, const InferShapeFunc &infer_shape_func);
  InferShapeFuncRegister(const char_t *const operator_type, const InferShapeFunc &infer_shape_func);
  ~InferShapeFuncRegister() = default;
};

class GE_FUNC_DEV_VISIBILITY GE_FUNC_HOST_VISIBILITY InferFormatFuncRegister {
 public:
  ATTRIBUTED_DEPRECATED(InferFormatFuncRegister(const char_t *, const InferFormatFunc &))
  InferFormatFuncRegister(const std::string &operator_type,
                          const InferFormatFunc &infer_format_func);
  InferFormatFuncRegister(const char_t *const operator_type,
                          const InferFormatFunc &infer_format_func);
  ~InferFormatFuncRegister() = default;
};

class GE_FUNC_DEV_VISIBILITY GE_FUNC_HOST_VISIBILITY InferValueRangeFuncRegister {
 public:
  InferValueRangeFuncRegister(const char_t *const operator_type, const WHEN_CALL when_call,
                              const InferValueRangeFunc &infer_value_range_func);
  InferValueRangeFuncRegister(const char_t *const operator_type);
  ~InferValueRangeFuncRegister() = default;
};

class GE_FUNC_DEV_VISIBILITY GE_FUNC_HOST_VISIBILITY VerifyFuncRegister {
 public:
  ATTRIBUTED_DEPRECATED(VerifyFuncRegister(const char_t *, const VerifyFunc &))
  VerifyFuncRegister(const std::string &operator_type, const VerifyFunc &verify_func);
  VerifyFuncRegister(const char_t *const operator_type, const VerifyFunc &verify_func);
  ~VerifyFuncRegister() = default;
};
}  // namespace ge

#endif  // GE_OPS_TESTS_GE_EXTERNAL_GRAPH_OPERATOR_FACTORY_H_
