// GE's "graph/gnode.h", abridged for ge-ops' tests to what graph.h names:
// GNode (declared only) and its pointer type.
#ifndef GE_OPS_TESTS_GE_EXTERNAL_GRAPH_GNODE_H_
#define GE_OPS_TESTS_GE_EXTERNAL_GRAPH_GNODE_H_

#include <memory>

namespace ge {
class GNode;
using GNodePtr = std::shared_ptr<GNode>;
}  // namespace ge

#endif  // GE_OPS_TESTS_GE_EXTERNAL_GRAPH_GNODE_H_
