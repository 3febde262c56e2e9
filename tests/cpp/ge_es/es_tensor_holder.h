// GE's "es_tensor_holder.h", abridged: EsTensorHolder over EsCTensorHolder.
#ifndef GE_OPS_TESTS_GE_ES_ES_TENSOR_HOLDER_H_
#define GE_OPS_TESTS_GE_ES_ES_TENSOR_HOLDER_H_
#include "graph/types.h"
#include "graph/gnode.h"
#include "esb_funcs.h"
namespace ge {
namespace es {
class EsTensorHolder {
 public:
  EsTensorHolder(EsCTensorHolder *tensor) : tensor_holder_(tensor) {}
  EsTensorHolder() = default;
  EsCTensorHolder *GetCTensorHolder() const {
    return tensor_holder_;
  }

 private:
  EsCTensorHolder *tensor_holder_ = nullptr;
};
}  // namespace es
}  // namespace ge
#endif  // GE_OPS_TESTS_GE_ES_ES_TENSOR_HOLDER_H_
