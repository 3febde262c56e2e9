// GE's ES C base API: declarations of "esb_funcs.h" (GE
// inc/external/ge/eager_style_graph_builder/c/esb_funcs.h at ffdcbc9f74),
// every function, with GE's names, parameter types and include guard,
// written for ge-ops' tests (see README.md). The handles are opaque.
#ifndef AIR_CXX_COMPILER_GRAPH_EAGER_STYLE_GRAPH_BUILDER_ESB_FUNCS_H_
#define AIR_CXX_COMPILER_GRAPH_EAGER_STYLE_GRAPH_BUILDER_ESB_FUNCS_H_
#include <cstdint>
#include "graph/c_types.h"
#ifdef __cplusplus
extern "C" {
#endif
struct EsCTensorHolder;
struct EsCGraphBuilder;
struct EsCTensor;
struct EsCGraph;
struct EsCNode;

// builders and graph inputs
EsCGraphBuilder *EsCreateGraphBuilder(const char *name);
void EsDestroyGraphBuilder(EsCGraphBuilder *graph);
EsCTensorHolder *EsCreateGraphInputWithDetails(EsCGraphBuilder *graph, int64_t index, const char *name,
                                               const char *type, C_DataType data_type, C_Format format,
                                               const int64_t *shape, int64_t dim_num);
EsCTensorHolder *EsCreateGraphInput(EsCGraphBuilder *graph, int64_t index);

// a holder's description
uint32_t EsSetDataType(EsCTensorHolder *tensor, C_DataType data_type);
uint32_t EsSetFormat(EsCTensorHolder *tensor, C_Format format);
uint32_t EsSetShape(EsCTensorHolder *tensor, const int64_t *shape, int64_t dim_num);
uint32_t EsSetOriginSymbolShape(EsCTensorHolder *tensor, const char *const *shape, int64_t dim_num);

// constants: tensors, vectors, scalars
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
EsCTensorHolder *EsCreateVariable(EsCGraphBuilder *graph, int32_t index, const char *name);

// outputs, owners, building
uint32_t EsSetGraphOutput(EsCTensorHolder *tensor, int64_t output_index);
EsCGraphBuilder *EsGetOwnerBuilder(EsCTensorHolder *tensor);
EsCNode *EsGetProducer(EsCTensorHolder *tensor);
EsCGraph *EsBuildGraphAndReset(EsCGraphBuilder *graph);
uint32_t EsAddControlEdge(EsCTensorHolder *dest_ctrl_tensor, EsCTensorHolder **src_ctrl_tensors,
                          int64_t ctrl_tensors_num);

// tensors for tensor attrs
EsCTensor *EsCreateEsCTensor(const void *data, const int64_t *dim, int64_t dim_num, C_DataType data_type,
                             C_Format format);
EsCTensor *EsCreateEsCTensorFromFile(const char *data_file_path, const int64_t *dim, int64_t dim_num,
                                     C_DataType data_type, C_Format format);

// graph, tensor and node attrs
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
