// The declarations of GE's "graph/types.h" (metadef, inc/external/graph)
// that op prototype headers use, written for ge-ops' tests from the facts in
// docs/ge-compat.md: DataType and Format with GE's values (from c_types.h),
// TensorType with its two constructors and every named set as a static
// member function returning GE's members in GE's order, ListTensorType, and
// the move-only Promote. Only declarations: constructors that GE defines in
// its library are declared and not defined, as in GE. Left out: the shape
// constants, GetSizeByDataType and the sub-format helpers.
#ifndef GE_OPS_TESTS_GE_EXTERNAL_GRAPH_TYPES_H_
#define GE_OPS_TESTS_GE_EXTERNAL_GRAPH_TYPES_H_

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <vector>

#include "c_types.h"

#ifndef GE_FUNC_HOST_VISIBILITY
#define GE_FUNC_HOST_VISIBILITY
#endif
#ifndef GE_FUNC_DEV_VISIBILITY
#define GE_FUNC_DEV_VISIBILITY
#endif

namespace ge {
using char_t = char;
using float32_t = float;
using float64_t = double;

// Unscoped, as GE's: an enumerator converts to an integer, an integer does
// not convert to DataType.
enum DataType {
  DT_FLOAT = ::C_DT_FLOAT,
  DT_FLOAT16 = ::C_DT_FLOAT16,
  DT_INT8 = ::C_DT_INT8,
  DT_INT32 = ::C_DT_INT32,
  DT_UINT8 = ::C_DT_UINT8,
  DT_INT16 = ::C_DT_INT16,
  DT_UINT16 = ::C_DT_UINT16,
  DT_UINT32 = ::C_DT_UINT32,
  DT_INT64 = ::C_DT_INT64,
  DT_UINT64 = ::C_DT_UINT64,
  DT_DOUBLE = ::C_DT_DOUBLE,
  DT_BOOL = ::C_DT_BOOL,
  DT_STRING = ::C_DT_STRING,
  DT_DUAL_SUB_INT8 = ::C_DT_DUAL_SUB_INT8,
  DT_DUAL_SUB_UINT8 = ::C_DT_DUAL_SUB_UINT8,
  DT_COMPLEX64 = ::C_DT_COMPLEX64,
  DT_COMPLEX128 = ::C_DT_COMPLEX128,
  DT_QINT8 = ::C_DT_QINT8,
  DT_QINT16 = ::C_DT_QINT16,
  DT_QINT32 = ::C_DT_QINT32,
  DT_QUINT8 = ::C_DT_QUINT8,
  DT_QUINT16 = ::C_DT_QUINT16,
  DT_RESOURCE = ::C_DT_RESOURCE,
  DT_STRING_REF = ::C_DT_STRING_REF,
  DT_DUAL = ::C_DT_DUAL,
  DT_VARIANT = ::C_DT_VARIANT,
  DT_BF16 = ::C_DT_BF16,
  DT_UNDEFINED = ::C_DT_UNDEFINED,
  DT_INT4 = ::C_DT_INT4,
  DT_UINT1 = ::C_DT_UINT1,
  DT_INT2 = ::C_DT_INT2,
  DT_UINT2 = ::C_DT_UINT2,
  DT_COMPLEX32 = ::C_DT_COMPLEX32,
  DT_HIFLOAT8 = ::C_DT_HIFLOAT8,
  DT_FLOAT8_E5M2 = ::C_DT_FLOAT8_E5M2,
  DT_FLOAT8_E4M3FN = ::C_DT_FLOAT8_E4M3FN,
  DT_FLOAT8_E8M0 = ::C_DT_FLOAT8_E8M0,
  DT_FLOAT6_E3M2 = ::C_DT_FLOAT6_E3M2,
  DT_FLOAT6_E2M3 = ::C_DT_FLOAT6_E2M3,
  DT_FLOAT4_E2M1 = ::C_DT_FLOAT4_E2M1,
  DT_FLOAT4_E1M2 = ::C_DT_FLOAT4_E1M2,
  DT_HIFLOAT4 = ::C_DT_HIFLOAT4,
  DT_MAX = ::C_DT_MAX,
};

enum Format {
  FORMAT_NCHW = ::C_FORMAT_NCHW,
  FORMAT_NHWC = ::C_FORMAT_NHWC,
  FORMAT_ND = ::C_FORMAT_ND,
  FORMAT_NC1HWC0 = ::C_FORMAT_NC1HWC0,
  FORMAT_FRACTAL_Z = ::C_FORMAT_FRACTAL_Z,
  FORMAT_NC1C0HWPAD = ::C_FORMAT_NC1C0HWPAD,
  FORMAT_NHWC1C0 = ::C_FORMAT_NHWC1C0,
  FORMAT_FSR_NCHW = ::C_FORMAT_FSR_NCHW,
  FORMAT_FRACTAL_DECONV = ::C_FORMAT_FRACTAL_DECONV,
  FORMAT_C1HWNC0 = ::C_FORMAT_C1HWNC0,
  FORMAT_FRACTAL_DECONV_TRANSPOSE = ::C_FORMAT_FRACTAL_DECONV_TRANSPOSE,
  FORMAT_FRACTAL_DECONV_SP_STRIDE_TRANS = ::C_FORMAT_FRACTAL_DECONV_SP_STRIDE_TRANS,
  FORMAT_NC1HWC0_C04 = ::C_FORMAT_NC1HWC0_C04,
  FORMAT_FRACTAL_Z_C04 = ::C_FORMAT_FRACTAL_Z_C04,
  FORMAT_CHWN = ::C_FORMAT_CHWN,
  FORMAT_FRACTAL_DECONV_SP_STRIDE8_TRANS = ::C_FORMAT_FRACTAL_DECONV_SP_STRIDE8_TRANS,
  FORMAT_HWCN = ::C_FORMAT_HWCN,
  FORMAT_NC1KHKWHWC0 = ::C_FORMAT_NC1KHKWHWC0,
  FORMAT_BN_WEIGHT = ::C_FORMAT_BN_WEIGHT,
  FORMAT_FILTER_HWCK = ::C_FORMAT_FILTER_HWCK,
  FORMAT_HASHTABLE_LOOKUP_LOOKUPS = ::C_FORMAT_HASHTABLE_LOOKUP_LOOKUPS,
  FORMAT_HASHTABLE_LOOKUP_KEYS = ::C_FORMAT_HASHTABLE_LOOKUP_KEYS,
  FORMAT_HASHTABLE_LOOKUP_VALUE = ::C_FORMAT_HASHTABLE_LOOKUP_VALUE,
  FORMAT_HASHTABLE_LOOKUP_OUTPUT = ::C_FORMAT_HASHTABLE_LOOKUP_OUTPUT,
  FORMAT_HASHTABLE_LOOKUP_HITS = ::C_FORMAT_HASHTABLE_LOOKUP_HITS,
  FORMAT_C1HWNCoC0 = ::C_FORMAT_C1HWNCoC0,
  FORMAT_MD = ::C_FORMAT_MD,
  FORMAT_NDHWC = ::C_FORMAT_NDHWC,
  FORMAT_FRACTAL_ZZ = ::C_FORMAT_FRACTAL_ZZ,
  FORMAT_FRACTAL_NZ = ::C_FORMAT_FRACTAL_NZ,
  FORMAT_NCDHW = ::C_FORMAT_NCDHW,
  FORMAT_DHWCN = ::C_FORMAT_DHWCN,
  FORMAT_NDC1HWC0 = ::C_FORMAT_NDC1HWC0,
  FORMAT_FRACTAL_Z_3D = ::C_FORMAT_FRACTAL_Z_3D,
  FORMAT_CN = ::C_FORMAT_CN,
  FORMAT_NC = ::C_FORMAT_NC,
  FORMAT_DHWNC = ::C_FORMAT_DHWNC,
  FORMAT_FRACTAL_Z_3D_TRANSPOSE = ::C_FORMAT_FRACTAL_Z_3D_TRANSPOSE,
  FORMAT_FRACTAL_ZN_LSTM = ::C_FORMAT_FRACTAL_ZN_LSTM,
  FORMAT_FRACTAL_Z_G = ::C_FORMAT_FRACTAL_Z_G,
  FORMAT_RESERVED = ::C_FORMAT_RESERVED,
  FORMAT_ALL = ::C_FORMAT_ALL,
  FORMAT_NULL = ::C_FORMAT_NULL,
  FORMAT_ND_RNN_BIAS = ::C_FORMAT_ND_RNN_BIAS,
  FORMAT_FRACTAL_ZN_RNN = ::C_FORMAT_FRACTAL_ZN_RNN,
  FORMAT_NYUV = ::C_FORMAT_NYUV,
  FORMAT_NYUV_A = ::C_FORMAT_NYUV_A,
  FORMAT_NCL = ::C_FORMAT_NCL,
  FORMAT_FRACTAL_Z_WINO = ::C_FORMAT_FRACTAL_Z_WINO,
  FORMAT_C1HWC0 = ::C_FORMAT_C1HWC0,
  FORMAT_FRACTAL_NZ_C0_16 = ::C_FORMAT_FRACTAL_NZ_C0_16,
  FORMAT_FRACTAL_NZ_C0_32 = ::C_FORMAT_FRACTAL_NZ_C0_32,
  FORMAT_FRACTAL_NZ_C0_2 = ::C_FORMAT_FRACTAL_NZ_C0_2,
  FORMAT_FRACTAL_NZ_C0_4 = ::C_FORMAT_FRACTAL_NZ_C0_4,
  FORMAT_FRACTAL_NZ_C0_8 = ::C_FORMAT_FRACTAL_NZ_C0_8,
  FORMAT_END = ::C_FORMAT_END,
  FORMAT_MAX = ::C_FORMAT_MAX,
};

enum Placement {
  kPlacementHost = 0,
  kPlacementDevice = 1,
  kPlacementEnd,
};

GE_FUNC_DEV_VISIBILITY GE_FUNC_HOST_VISIBILITY const char_t *GetFormatName(Format format);

// A set of dtypes. The one-dtype constructor is explicit and the list one
// is not, so `TensorType({DT_A, DT_B})` and a braced return both construct
// one; both are defined in GE's library. The named sets return their members
// in GE's order (docs/ge-compat.md, "Named TensorType sets").
class TensorTypeImpl;
struct TensorType {
  explicit TensorType(DataType dt);
  TensorType(const std::initializer_list<DataType> &initial_types);

  static TensorType ALL() {
    return TensorType{DT_BOOL,    DT_COMPLEX128, DT_COMPLEX64, DT_DOUBLE, DT_FLOAT,
                      DT_FLOAT16, DT_INT16,      DT_INT32,     DT_INT64,  DT_INT8,
                      DT_QINT16,  DT_QINT32,     DT_QINT8,     DT_QUINT16, DT_QUINT8,
                      DT_RESOURCE, DT_STRING,    DT_UINT16,    DT_UINT32, DT_UINT64,
                      DT_UINT8,   DT_BF16,       DT_COMPLEX32};
  }
  static TensorType QuantifiedType() {
    return TensorType{DT_QINT16, DT_QINT32, DT_QINT8, DT_QUINT16, DT_QUINT8};
  }
  static TensorType OrdinaryType() {
    return TensorType{DT_BOOL,   DT_COMPLEX128, DT_COMPLEX64, DT_DOUBLE,
                      DT_FLOAT,  DT_FLOAT16,    DT_INT16,     DT_INT32,
                      DT_INT64,  DT_INT8,       DT_UINT16,    DT_UINT32,
                      DT_UINT64, DT_UINT8,      DT_BF16,      DT_COMPLEX32};
  }
  static TensorType BasicType() {
    return TensorType{DT_COMPLEX128, DT_COMPLEX64, DT_DOUBLE, DT_FLOAT,   DT_FLOAT16,
                      DT_INT16,      DT_INT32,     DT_INT64,  DT_INT8,    DT_QINT16,
                      DT_QINT32,     DT_QINT8,     DT_QUINT16, DT_QUINT8, DT_UINT16,
                      DT_UINT32,     DT_UINT64,    DT_UINT8,  DT_BF16,    DT_COMPLEX32};
  }
  static TensorType NumberType() {
    return TensorType{DT_COMPLEX128, DT_COMPLEX64, DT_DOUBLE, DT_FLOAT,  DT_FLOAT16,
                      DT_INT16,      DT_INT32,     DT_INT64,  DT_INT8,   DT_QINT32,
                      DT_QINT8,      DT_QUINT8,    DT_UINT16, DT_UINT32, DT_UINT64,
                      DT_UINT8,      DT_BF16,      DT_COMPLEX32};
  }
  static TensorType RealNumberType() {
    return TensorType{DT_DOUBLE, DT_FLOAT,  DT_FLOAT16, DT_INT16,  DT_INT32, DT_INT64,
                      DT_INT8,   DT_UINT16, DT_UINT32,  DT_UINT64, DT_UINT8, DT_BF16};
  }
  static TensorType ComplexDataType() {
    return TensorType{DT_COMPLEX128, DT_COMPLEX64, DT_COMPLEX32};
  }
  static TensorType IntegerDataType() {
    return TensorType{DT_INT16,  DT_INT32,  DT_INT64,  DT_INT8,
                      DT_UINT16, DT_UINT32, DT_UINT64, DT_UINT8};
  }
  static TensorType SignedDataType() {
    return TensorType{DT_INT16, DT_INT32, DT_INT64, DT_INT8};
  }
  static TensorType UnsignedDataType() {
    return TensorType{DT_UINT16, DT_UINT32, DT_UINT64, DT_UINT8};
  }
  static TensorType FloatingDataType() {
    return TensorType{DT_DOUBLE, DT_FLOAT, DT_FLOAT16};
  }
  static TensorType IndexNumberType() { return TensorType{DT_INT32, DT_INT64}; }
  static TensorType UnaryDataType() {
    return TensorType{DT_COMPLEX128, DT_COMPLEX64, DT_DOUBLE,   DT_FLOAT,
                      DT_FLOAT16,    DT_BF16,      DT_COMPLEX32};
  }
  static TensorType FLOAT() { return TensorType{DT_FLOAT, DT_FLOAT16, DT_BF16}; }

  std::shared_ptr<TensorTypeImpl> tensor_type_impl_;
};

// One dtype set for every tensor of a dynamic input or output.
struct ListTensorType {
  explicit ListTensorType(const TensorType &type) : tensor_type(type) {}
  TensorType tensor_type;
};

// The promoted dtype of the named type variables or inputs. Move-only.
class Promote {
 public:
  friend class PromoteImpl;
  Promote(const std::initializer_list<const char *> &syms);
  std::vector<const char *> Syms() const;

  Promote(const Promote &other) = delete;
  Promote &operator=(const Promote &other) = delete;
  Promote(Promote &&other) noexcept;
  Promote &operator=(Promote &&other) noexcept;

 private:
  std::shared_ptr<void> data_;
};
}  // namespace ge

#endif  // GE_OPS_TESTS_GE_EXTERNAL_GRAPH_TYPES_H_
