// GE's "graph/inference_context.h", abridged for ge-ops' tests to what
// operator.h names: the class (declared only) and its pointer type.
#ifndef GE_OPS_TESTS_GE_EXTERNAL_GRAPH_INFERENCE_CONTEXT_H_
#define GE_OPS_TESTS_GE_EXTERNAL_GRAPH_INFERENCE_CONTEXT_H_

#include <memory>

namespace ge {
class InferenceContext;
using InferenceContextPtr = std::shared_ptr<InferenceContext>;
}  // namespace ge

#endif  // GE_OPS_TESTS_GE_EXTERNAL_GRAPH_INFERENCE_CONTEXT_H_
