// GE's ES C base API ("esb_funcs.h"), abridged: the opaque handles.
#ifndef GE_OPS_TESTS_GE_ES_ESB_FUNCS_H_
#define GE_OPS_TESTS_GE_ES_ESB_FUNCS_H_
#include <stdint.h>
#include "graph/c_types.h"
#ifdef __cplusplus
extern "C" {
#endif
struct EsCTensorHolder;
struct EsCGraphBuilder;
struct EsCTensor;
struct EsCGraph;
struct EsCNode;
EsCGraphBuilder *EsCreateGraphBuilder(const char *name);
void EsDestroyGraphBuilder(EsCGraphBuilder *graph);
#ifdef __cplusplus
}
#endif
#endif  // GE_OPS_TESTS_GE_ES_ESB_FUNCS_H_
