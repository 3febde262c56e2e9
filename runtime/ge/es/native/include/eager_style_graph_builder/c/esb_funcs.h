// GE's ES C base API ("esb_funcs.h"): every declaration of GE's header, with
// GE's names and signatures, written for ge-ops' ES runtime library, which
// defines them (runtime/ge/es/native/src). docs/es-c-cpp.md says what each
// does here and what is not implemented.
//
// Ownership: tensor holders belong to their graph builder (never free them);
// EsBuildGraphAndReset, EsCreateEsCTensor and EsCreateEsCTensorFromFile hand
// their result to the caller. Status results: 0 is success.
#ifndef AIR_CXX_COMPILER_GRAPH_EAGER_STYLE_GRAPH_BUILDER_ESB_FUNCS_H_
#define AIR_CXX_COMPILER_GRAPH_EAGER_STYLE_GRAPH_BUILDER_ESB_FUNCS_H_
#include <stdint.h>
#ifdef __cplusplus
#include <cstdint>
#else
#include <stdbool.h>
#endif
#include "graph/c_types.h"

#ifdef __cplusplus
extern "C" {
#endif

struct EsCTensorHolder;
struct EsCGraphBuilder;
struct EsCTensor;
struct EsCGraph;
struct EsCNode;
#ifndef __cplusplus
typedef struct EsCTensorHolder EsCTensorHolder;
typedef struct EsCGraphBuilder EsCGraphBuilder;
typedef struct EsCTensor EsCTensor;
typedef struct EsCGraph EsCGraph;
typedef struct EsCNode EsCNode;
#endif

/* Builders: name NULL is "graph". */
EsCGraphBuilder *EsCreateGraphBuilder(const char *name);
void EsDestroyGraphBuilder(EsCGraphBuilder *graph);

/* Graph inputs: input `index` (0, 1, ...); name NULL is "input_<index>",
 * type NULL is "Data"; shape NULL is a scalar. */
EsCTensorHolder *EsCreateGraphInputWithDetails(EsCGraphBuilder *graph, int64_t index, const char *name,
                                               const char *type, C_DataType data_type, C_Format format,
                                               const int64_t *shape, int64_t dim_num);
EsCTensorHolder *EsCreateGraphInput(EsCGraphBuilder *graph, int64_t index);
uint32_t EsSetDataType(EsCTensorHolder *tensor, C_DataType data_type);
uint32_t EsSetFormat(EsCTensorHolder *tensor, C_Format format);
uint32_t EsSetShape(EsCTensorHolder *tensor, const int64_t *shape, int64_t dim_num);
uint32_t EsSetOriginSymbolShape(EsCTensorHolder *tensor, const char *const *shape, int64_t dim_num);

/* Const nodes; the values are copied. dims NULL is a scalar. */
EsCTensorHolder *EsCreateConstInt64(EsCGraphBuilder *graph, const int64_t *value, const int64_t *dims, int64_t dim_num);
EsCTensorHolder *EsCreateConstInt32(EsCGraphBuilder *graph, const int32_t *value, const int64_t *dims, int64_t dim_num);
EsCTensorHolder *EsCreateConstUInt64(EsCGraphBuilder *graph, const uint64_t *value, const int64_t *dims,
                                     int64_t dim_num);
EsCTensorHolder *EsCreateConstUInt32(EsCGraphBuilder *graph, const uint32_t *value, const int64_t *dims,
                                     int64_t dim_num);
EsCTensorHolder *EsCreateConstFloat(EsCGraphBuilder *graph, const float *value, const int64_t *dims, int64_t dim_num);

EsCTensorHolder *EsCreateVectorInt64(EsCGraphBuilder *graph, const int64_t *value, int64_t dim);
EsCTensorHolder *EsCreateVectorInt32(EsCGraphBuilder *graph, const int32_t *value, int64_t dim);
EsCTensorHolder *EsCreateVectorUInt64(EsCGraphBuilder *graph, const uint64_t *value, int64_t dim);
EsCTensorHolder *EsCreateVectorUInt32(EsCGraphBuilder *graph, const uint32_t *value, int64_t dim);
EsCTensorHolder *EsCreateVectorFloat(EsCGraphBuilder *graph, const float *value, int64_t dim);

EsCTensorHolder *EsCreateScalarInt64(EsCGraphBuilder *graph, int64_t value);
EsCTensorHolder *EsCreateScalarInt32(EsCGraphBuilder *graph, int32_t value);
EsCTensorHolder *EsCreateScalarUInt64(EsCGraphBuilder *graph, uint64_t value);
EsCTensorHolder *EsCreateScalarUInt32(EsCGraphBuilder *graph, uint32_t value);
EsCTensorHolder *EsCreateScalarFloat(EsCGraphBuilder *graph, float value);

/* A Variable node named `name` (shared by name between a session's graphs). */
EsCTensorHolder *EsCreateVariable(EsCGraphBuilder *graph, int32_t index, const char *name);

/* Output `output_index` of the graph (0, 1, ...). */
uint32_t EsSetGraphOutput(EsCTensorHolder *tensor, int64_t output_index);

/* Borrowed views: the builder keeps ownership. */
EsCGraphBuilder *EsGetOwnerBuilder(EsCTensorHolder *tensor);
EsCNode *EsGetProducer(EsCTensorHolder *tensor);

/* The built graph (a ge::Graph *), owned by the caller; the builder is empty
 * afterwards. */
EsCGraph *EsBuildGraphAndReset(EsCGraphBuilder *graph);

/* dest_ctrl_tensor's node runs after the nodes of src_ctrl_tensors. */
uint32_t EsAddControlEdge(EsCTensorHolder *dest_ctrl_tensor, EsCTensorHolder **src_ctrl_tensors,
                          int64_t ctrl_tensors_num);

/* Tensors (a ge::Tensor *), owned by the caller until passed to an op. */
EsCTensor *EsCreateEsCTensor(const void *data, const int64_t *dim, int64_t dim_num, C_DataType data_type,
                             C_Format format);
EsCTensor *EsCreateEsCTensorFromFile(const char *data_file_path, const int64_t *dim, int64_t dim_num,
                                     C_DataType data_type, C_Format format);

/* Attributes of the graph, of a tensor (its producer's output) and of a node. */
uint32_t EsSetInt64AttrForGraph(EsCGraphBuilder *graph, const char *attr_name, int64_t value);
uint32_t EsSetStringAttrForGraph(EsCGraphBuilder *graph, const char *attr_name, const char *value);
uint32_t EsSetBoolAttrForGraph(EsCGraphBuilder *graph, const char *attr_name, bool value);

uint32_t EsSetInt64AttrForTensor(EsCTensorHolder *tensor, const char *attr_name, int64_t value);
uint32_t EsSetStringAttrForTensor(EsCTensorHolder *tensor, const char *attr_name, const char *value);
uint32_t EsSetBoolAttrForTensor(EsCTensorHolder *tensor, const char *attr_name, bool value);

uint32_t EsSetInt64AttrForNode(EsCTensorHolder *tensor, const char *attr_name, int64_t value);
uint32_t EsSetStringAttrForNode(EsCTensorHolder *tensor, const char *attr_name, const char *value);
uint32_t EsSetBoolAttrForNode(EsCTensorHolder *tensor, const char *attr_name, bool value);

#ifdef __cplusplus
}
#endif
#endif  // AIR_CXX_COMPILER_GRAPH_EAGER_STYLE_GRAPH_BUILDER_ESB_FUNCS_H_
