// GE's "es_c_tensor_holder.h", abridged: what generated sources call.
#ifndef GE_OPS_TESTS_GE_ES_ES_C_TENSOR_HOLDER_H_
#define GE_OPS_TESTS_GE_ES_ES_C_TENSOR_HOLDER_H_
#include <cstdint>
#include "graph/gnode.h"
struct EsCGraphBuilder;
struct EsCTensorHolder {
 public:
  EsCTensorHolder(EsCGraphBuilder &owner, const ge::GNode &producer, int32_t index);
  ~EsCTensorHolder();
  EsCTensorHolder(const EsCTensorHolder &) = delete;
  EsCTensorHolder &operator=(const EsCTensorHolder &) = delete;
  ge::GNode &GetProducer();
  int32_t GetOutIndex() const;
  EsCGraphBuilder &GetOwnerBuilder();
};
#endif  // GE_OPS_TESTS_GE_ES_ES_C_TENSOR_HOLDER_H_
