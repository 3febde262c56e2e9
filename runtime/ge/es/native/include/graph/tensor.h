// GE's Shape, TensorDesc and Tensor ("graph/tensor.h"): the members the ES
// runtime library and ES users call, with GE's signatures; defined in ge-ops'
// ES runtime library (runtime/ge/es/native/src). Left out: shape ranges,
// names, sizes, placement, string data, Clone.
#ifndef GE_OPS_ESRT_GRAPH_TENSOR_H_
#define GE_OPS_ESRT_GRAPH_TENSOR_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "graph/ascend_string.h"
#include "graph/error_codes.h"
#include "graph/types.h"

namespace ge {
class ShapeImpl;
class GE_FUNC_DEV_VISIBILITY GE_FUNC_HOST_VISIBILITY Shape {
 public:
  Shape();
  ~Shape() = default;
  explicit Shape(const std::vector<int64_t> &dims);

  size_t GetDimNum() const;
  int64_t GetDim(size_t idx) const;
  graphStatus SetDim(size_t idx, int64_t value);
  std::vector<int64_t> GetDims() const;
  int64_t GetShapeSize() const;

 private:
  std::shared_ptr<ShapeImpl> impl_;
};

class TensorDescImpl;
class GE_FUNC_DEV_VISIBILITY GE_FUNC_HOST_VISIBILITY TensorDesc {
 public:
  TensorDesc();
  ~TensorDesc() = default;
  explicit TensorDesc(Shape shape, Format format = FORMAT_ND, DataType dt = DT_FLOAT);
  TensorDesc(const TensorDesc &desc);
  TensorDesc(TensorDesc &&desc);
  TensorDesc &operator=(const TensorDesc &desc);
  TensorDesc &operator=(TensorDesc &&desc);

  void Update(const Shape &shape, Format format = FORMAT_ND, DataType dt = DT_FLOAT);
  Shape GetShape() const;
  void SetShape(const Shape &shape);
  Format GetFormat() const;
  void SetFormat(Format format);
  Shape GetOriginShape() const;
  void SetOriginShape(const Shape &origin_shape);
  Format GetOriginFormat() const;
  void SetOriginFormat(Format origin_format);
  DataType GetDataType() const;
  void SetDataType(DataType dt);

 private:
  std::shared_ptr<TensorDescImpl> impl;
};

class TensorImpl;
class GE_FUNC_DEV_VISIBILITY GE_FUNC_HOST_VISIBILITY Tensor {
 public:
  Tensor();
  ~Tensor() = default;
  explicit Tensor(const TensorDesc &tensor_desc);
  Tensor(const TensorDesc &tensor_desc, const std::vector<uint8_t> &data);
  Tensor(const TensorDesc &tensor_desc, const uint8_t *data, size_t size);
  Tensor(TensorDesc &&tensor_desc, std::vector<uint8_t> &&data);

  TensorDesc GetTensorDesc() const;
  graphStatus SetTensorDesc(const TensorDesc &tensor_desc);
  const uint8_t *GetData() const;
  uint8_t *GetData();
  size_t GetSize() const;
  graphStatus SetData(std::vector<uint8_t> &&data);
  graphStatus SetData(const std::vector<uint8_t> &data);
  graphStatus SetData(const uint8_t *data, size_t size);
  graphStatus SetFormat(const ge::Format &format);
  ge::Format GetFormat() const;
  graphStatus SetDataType(const ge::DataType &dtype);
  ge::DataType GetDataType() const;

 private:
  std::shared_ptr<TensorImpl> impl;
};
}  // namespace ge

#endif  // GE_OPS_ESRT_GRAPH_TENSOR_H_
