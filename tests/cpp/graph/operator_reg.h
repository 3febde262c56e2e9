// A stand-in for GE's "graph/operator_reg.h", for syntax-checking the REG_OP
// headers that gen-ops writes (g++ -std=c++17 -fsyntax-only -Wall -Werror).
//
// Written from the facts of GE's macro grammar, not from GE's source: each
// macro expands to the same C++ shape as GE's, so what compiles here compiles
// against GE and what GE rejects fails here. The types are empty shells; only
// their names, constructors and conversions matter.
//
// REG_OP(Op) opens `namespace op` and class Op, whose constructors call a
// private method whose body starts an `OpReg()` chain. Each `.ELEMENT(...)`
// after it is a member call on that chain, and expands to
//     N(); reg_<kind>_<x>(); }     end the chain statement, call this
//                                  element's private method, close the
//                                  current method;
//     public: <accessors>          names pasted from x;
//     private: void reg_<kind>_<x>() { <register>; (void)OpReg()
// so the next `.ELEMENT(...)` continues a fresh chain. Two elements that paste
// the same member name (two inputs x, two attrs x) fail as a redeclared member.
// Element arguments are only used with # and ##, as in GE, so an element name
// or a dtype text is never macro-expanded.
#ifndef GE_OPS_TESTS_CPP_GRAPH_OPERATOR_REG_H_
#define GE_OPS_TESTS_CPP_GRAPH_OPERATOR_REG_H_

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <vector>

namespace ge {

// GE's DataType numbering (5 is unused). Unscoped: `DT_FLOAT` is ge::DT_FLOAT,
// and an int does not convert to it (ATTR(x, Type, 1) fails).
enum DataType {
  DT_FLOAT = 0, DT_FLOAT16 = 1, DT_INT8 = 2, DT_INT32 = 3, DT_UINT8 = 4,
  DT_INT16 = 6, DT_UINT16 = 7, DT_UINT32 = 8, DT_INT64 = 9, DT_UINT64 = 10,
  DT_DOUBLE = 11, DT_BOOL = 12, DT_STRING = 13, DT_DUAL_SUB_INT8 = 14,
  DT_DUAL_SUB_UINT8 = 15, DT_COMPLEX64 = 16, DT_COMPLEX128 = 17, DT_QINT8 = 18,
  DT_QINT16 = 19, DT_QINT32 = 20, DT_QUINT8 = 21, DT_QUINT16 = 22,
  DT_RESOURCE = 23, DT_STRING_REF = 24, DT_DUAL = 25, DT_VARIANT = 26,
  DT_BF16 = 27, DT_UNDEFINED = 28, DT_INT4 = 29, DT_UINT1 = 30, DT_INT2 = 31,
  DT_UINT2 = 32, DT_COMPLEX32 = 33, DT_HIFLOAT8 = 34, DT_FLOAT8_E5M2 = 35,
  DT_FLOAT8_E4M3FN = 36, DT_FLOAT8_E8M0 = 37, DT_FLOAT6_E3M2 = 38,
  DT_FLOAT6_E2M3 = 39, DT_FLOAT4_E2M1 = 40, DT_FLOAT4_E1M2 = 41,
  DT_HIFLOAT4 = 42, DT_MAX = 43,
};

// Implicit from a C string, as GE's is.
class AscendString {
 public:
  AscendString() = default;
  AscendString(const char *text) : text_(text == nullptr ? "" : text) {}
  const char *GetString() const { return text_.c_str(); }

 private:
  std::string text_;
};

class Tensor {};
class NamedAttrs {};
class TensorDesc {};
class Graph {};
using SubgraphBuilder = std::function<Graph()>;

// A set of dtypes. As in GE, the brace-list constructor is implicit and the
// one-dtype constructor explicit. The named sets have GE's members.
struct TensorType {
  explicit TensorType(DataType dt) : types{dt} {}
  TensorType(std::initializer_list<DataType> dts) : types(dts) {}

  static TensorType ALL() {
    return {DT_BOOL, DT_COMPLEX128, DT_COMPLEX64, DT_DOUBLE, DT_FLOAT, DT_FLOAT16, DT_INT16,
            DT_INT32, DT_INT64, DT_INT8, DT_QINT16, DT_QINT32, DT_QINT8, DT_QUINT16, DT_QUINT8,
            DT_RESOURCE, DT_STRING, DT_UINT16, DT_UINT32, DT_UINT64, DT_UINT8, DT_BF16,
            DT_COMPLEX32};
  }
  static TensorType QuantifiedType() {
    return {DT_QINT16, DT_QINT32, DT_QINT8, DT_QUINT16, DT_QUINT8};
  }
  static TensorType OrdinaryType() {
    return {DT_BOOL, DT_COMPLEX128, DT_COMPLEX64, DT_DOUBLE, DT_FLOAT, DT_FLOAT16, DT_INT16,
            DT_INT32, DT_INT64, DT_INT8, DT_UINT16, DT_UINT32, DT_UINT64, DT_UINT8, DT_BF16,
            DT_COMPLEX32};
  }
  static TensorType BasicType() {
    return {DT_COMPLEX128, DT_COMPLEX64, DT_DOUBLE, DT_FLOAT, DT_FLOAT16, DT_INT16, DT_INT32,
            DT_INT64, DT_INT8, DT_QINT16, DT_QINT32, DT_QINT8, DT_QUINT16, DT_QUINT8,
            DT_UINT16, DT_UINT32, DT_UINT64, DT_UINT8, DT_BF16, DT_COMPLEX32};
  }
  static TensorType NumberType() {
    return {DT_COMPLEX128, DT_COMPLEX64, DT_DOUBLE, DT_FLOAT, DT_FLOAT16, DT_INT16, DT_INT32,
            DT_INT64, DT_INT8, DT_QINT32, DT_QINT8, DT_QUINT8, DT_UINT16, DT_UINT32,
            DT_UINT64, DT_UINT8, DT_BF16, DT_COMPLEX32};
  }
  static TensorType RealNumberType() {
    return {DT_DOUBLE, DT_FLOAT, DT_FLOAT16, DT_INT16, DT_INT32, DT_INT64, DT_INT8,
            DT_UINT16, DT_UINT32, DT_UINT64, DT_UINT8, DT_BF16};
  }
  static TensorType ComplexDataType() { return {DT_COMPLEX128, DT_COMPLEX64, DT_COMPLEX32}; }
  static TensorType IntegerDataType() {
    return {DT_INT16, DT_INT32, DT_INT64, DT_INT8, DT_UINT16, DT_UINT32, DT_UINT64, DT_UINT8};
  }
  static TensorType SignedDataType() { return {DT_INT16, DT_INT32, DT_INT64, DT_INT8}; }
  static TensorType UnsignedDataType() { return {DT_UINT16, DT_UINT32, DT_UINT64, DT_UINT8}; }
  static TensorType FloatingDataType() { return {DT_DOUBLE, DT_FLOAT, DT_FLOAT16}; }
  static TensorType IndexNumberType() { return {DT_INT32, DT_INT64}; }
  static TensorType UnaryDataType() {
    return {DT_COMPLEX128, DT_COMPLEX64, DT_DOUBLE, DT_FLOAT, DT_FLOAT16, DT_BF16, DT_COMPLEX32};
  }
  static TensorType FLOAT() { return {DT_FLOAT, DT_FLOAT16, DT_BF16}; }

  std::vector<DataType> types;
};

// One dtype set for every tensor of a dynamic input or output.
struct ListTensorType {
  explicit ListTensorType(const TensorType &type) : tensor_type(type) {}
  TensorType tensor_type;
};

// A dtype promoted from type variables; move-only, as in GE.
class Promote {
 public:
  Promote(std::initializer_list<const char *> syms) : syms_(syms) {}
  Promote(const Promote &) = delete;
  Promote &operator=(const Promote &) = delete;
  Promote(Promote &&) = default;
  Promote &operator=(Promote &&) = default;

 private:
  std::vector<const char *> syms_;
};

// The base of every prototype class. It holds the attr value types, one
// Op<Type> per REG_OP attr type name (there is no OpListListFloat, and
// ATTR(x, Foo, ...) fails because OpFoo is not declared), and the
// registration calls that the element macros make.
class Operator {
 public:
  using OpInt = int64_t;
  using OpFloat = float;
  using OpString = std::string;
  using OpAscendString = AscendString;
  using OpBool = bool;
  using OpTensor = Tensor;
  using OpType = DataType;
  using OpNamedAttrs = NamedAttrs;
  using OpListInt = std::vector<int64_t>;
  using OpListFloat = std::vector<float>;
  using OpListString = std::vector<std::string>;
  using OpListAscendString = std::vector<AscendString>;
  using OpListBool = std::vector<bool>;
  using OpListTensor = std::vector<Tensor>;
  using OpBytes = std::vector<uint8_t>;
  using OpListListInt = std::vector<std::vector<int64_t>>;
  using OpListType = std::vector<DataType>;
  using OpListNamedAttrs = std::vector<NamedAttrs>;

  Operator() = default;
  explicit Operator(const char *) {}
  Operator(const char *, const char *) {}
  Operator(const AscendString &, const AscendString &) {}
  virtual ~Operator() = default;

 protected:
  void InputRegister(const char *, const char *) {}
  void OptionalInputRegister(const char *, const char *) {}
  void DynamicInputRegister(const char *, uint32_t, const char *, bool) {}
  void OutputRegister(const char *, const char *) {}
  void DynamicOutputRegister(const char *, uint32_t, const char *, bool) {}
  template <typename T> void AttrRegister(const char *, const T &) {}
  template <typename T> void SetAttr(const char *, const T &) {}
  void RequiredAttrWithTypeRegister(const char *, const char *) {}
  void SubgraphRegister(const char *, bool) {}
  void SubgraphCountRegister(const char *, uint32_t) {}
  // DATATYPE's range must be one of these three (an implicit conversion to
  // one is fine, as in GE).
  void DataTypeRegister(const char *, const TensorType &) {}
  void DataTypeRegister(const char *, const ListTensorType &) {}
  void DataTypeRegister(const char *, const Promote &) {}
  void SetInput(const char *, const Operator &) {}
  TensorDesc GetTensorDesc(const char *) const { return TensorDesc(); }
};

// The chain: N() ends a chain statement; INFER_SHAPE_AND_TYPE() is a no-op.
class OpReg {
 public:
  OpReg &N() { return *this; }
  OpReg &INFER_SHAPE_AND_TYPE() { return *this; }
};

// Holds an op's creator; OP_END_FACTORY_REG defines one static per op.
class OpCreatorRegister {
 public:
  OpCreatorRegister(const char *, std::function<Operator(const AscendString &)>) {}
};

}  // namespace ge

// REG_OP(x): `namespace op { class x`, constructors that run the chain, and
// the chain's first method. ThisType lets OP_END_FACTORY_REG check the name.
#define REG_OP(x)                                                             \
  namespace op {                                                              \
  class x : public Operator {                                                 \
    using ThisType = x;                                                       \
   public:                                                                    \
    x() : Operator(#x) { reg_op_##x(); }                                      \
    explicit x(const char *name) : Operator(name, #x) { reg_op_##x(); }       \
    explicit x(const std::string &name) : Operator(name.c_str(), #x) { reg_op_##x(); } \
    explicit x(const AscendString &name) : Operator(name, #x) { reg_op_##x(); } \
   private:                                                                   \
    void reg_op_##x() {                                                       \
      OpReg()

// The two halves of every element. `method` is already pasted (reg_in_x),
// so no element name is ever expanded.
#define GE_OPS_LEAVE_CHAIN_(method) N(); method(); } public:
#define GE_OPS_ENTER_METHOD_(method) private: void method() {

// Tensor elements: `t` is only stringified, so a quoted symbol ("T") or any
// one-argument expression (TensorType({DT_A, DT_B}), TensorType::ALL()) is
// fine, while a bare `{DT_A, DT_B}` splits into too many macro arguments.
// INPUT and OPTIONAL_INPUT paste name_in_/set_input_/get_input_desc_, so two
// inputs may not share a name; OUTPUT pastes name_out_/get_output_desc_, so an
// input and an output may (a ref pair).
#define INPUT(x, t)                                                           \
  GE_OPS_LEAVE_CHAIN_(reg_in_##x)                                             \
  static std::string name_in_##x() { return #x; }                             \
  ThisType &set_input_##x(Operator &v) { SetInput(#x, v); return *this; }     \
  TensorDesc get_input_desc_##x() const { return GetTensorDesc(#x); }         \
  GE_OPS_ENTER_METHOD_(reg_in_##x) InputRegister(#x, #t); (void)OpReg()

#define OPTIONAL_INPUT(x, t)                                                  \
  GE_OPS_LEAVE_CHAIN_(reg_optin_##x)                                          \
  static std::string name_in_##x() { return #x; }                             \
  ThisType &set_input_##x(Operator &v) { SetInput(#x, v); return *this; }     \
  TensorDesc get_input_desc_##x() const { return GetTensorDesc(#x); }         \
  GE_OPS_ENTER_METHOD_(reg_optin_##x) OptionalInputRegister(#x, #t); (void)OpReg()

#define OUTPUT(x, t)                                                          \
  GE_OPS_LEAVE_CHAIN_(reg_out_##x)                                            \
  static std::string name_out_##x() { return #x; }                            \
  TensorDesc get_output_desc_##x() const { return GetTensorDesc(#x); }        \
  GE_OPS_ENTER_METHOD_(reg_out_##x) OutputRegister(#x, #t); (void)OpReg()

// Dynamic tensor elements paste only create_dynamic_{input,output}_<x>: as in
// GE, they clash with another dynamic element of that name, not with an
// INPUT or OUTPUT.
#define DYNAMIC_INPUT(x, t)                                                   \
  GE_OPS_LEAVE_CHAIN_(reg_dynin_##x)                                          \
  ThisType &create_dynamic_input_##x(uint32_t num, bool push_back = true) {   \
    DynamicInputRegister(#x, num, #t, push_back);                             \
    return *this;                                                             \
  }                                                                           \
  GE_OPS_ENTER_METHOD_(reg_dynin_##x) DynamicInputRegister(#x, 0, #t, true); (void)OpReg()

#define DYNAMIC_OUTPUT(x, t)                                                  \
  GE_OPS_LEAVE_CHAIN_(reg_dynout_##x)                                         \
  ThisType &create_dynamic_output_##x(uint32_t num, bool push_back = true) {  \
    DynamicOutputRegister(#x, num, #t, push_back);                            \
    return *this;                                                             \
  }                                                                           \
  GE_OPS_ENTER_METHOD_(reg_dynout_##x) DynamicOutputRegister(#x, 0, #t, true); (void)OpReg()

// Attrs: Type must name an Op<Type> above. ATTR's default is the variadic
// tail, so a brace list with commas stays one default; it must both
// copy-initialise Op<Type> (`OpInt ret = "a";` fails, a brace list must fit
// the list type without narrowing) and construct it (`OpListInt({0, 1})`).
// ATTR and REQUIRED_ATTR both paste name_attr_/get_attr_/set_attr_, so an
// attr name may appear once.
#define ATTR(x, Type, ...)                                                    \
  GE_OPS_LEAVE_CHAIN_(reg_attr_##x)                                           \
  static std::string name_attr_##x() { return #x; }                           \
  Op##Type get_attr_##x() const {                                             \
    Op##Type ret = __VA_ARGS__;                                               \
    return ret;                                                               \
  }                                                                           \
  ThisType &set_attr_##x(const Op##Type &v) { SetAttr(#x, v); return *this; } \
  GE_OPS_ENTER_METHOD_(reg_attr_##x) AttrRegister(#x, Op##Type(__VA_ARGS__)); (void)OpReg()

#define REQUIRED_ATTR(x, Type)                                                \
  GE_OPS_LEAVE_CHAIN_(reg_reqattr_##x)                                        \
  static std::string name_attr_##x() { return #x; }                           \
  Op##Type get_attr_##x() const { return Op##Type(); }                        \
  ThisType &set_attr_##x(const Op##Type &v) { SetAttr(#x, v); return *this; } \
  GE_OPS_ENTER_METHOD_(reg_reqattr_##x)                                       \
  RequiredAttrWithTypeRegister(#x, #Type);                                    \
  (void)OpReg()

// Subgraphs: GRAPH and DYNAMIC_GRAPH both paste name_graph_ and reg_graph_,
// so a graph name may appear once.
#define GRAPH(x)                                                              \
  GE_OPS_LEAVE_CHAIN_(reg_graph_##x)                                          \
  static std::string name_graph_##x() { return #x; }                          \
  SubgraphBuilder get_subgraph_builder_##x() const { return {}; }             \
  GE_OPS_ENTER_METHOD_(reg_graph_##x)                                         \
  SubgraphRegister(#x, false);                                                \
  SubgraphCountRegister(#x, 1);                                               \
  (void)OpReg()

#define DYNAMIC_GRAPH(x)                                                      \
  GE_OPS_LEAVE_CHAIN_(reg_graph_##x)                                          \
  static std::string name_graph_##x() { return #x; }                          \
  ThisType &create_dynamic_subgraph_##x(uint32_t num) {                       \
    SubgraphCountRegister(#x, num);                                           \
    return *this;                                                             \
  }                                                                           \
  GE_OPS_ENTER_METHOD_(reg_graph_##x) SubgraphRegister(#x, true); (void)OpReg()

// DATATYPE(x, t): `auto type_range = t;` keeps t's own type, and
// DataTypeRegister takes only TensorType, ListTensorType or Promote, so an
// expression of any other type fails. A bare `{DT_A, DT_B}` splits into too
// many macro arguments. (A bare one-element `{DT_A}` becomes an
// initializer_list that converts implicitly to TensorType: GE accepts it too.)
#define DATATYPE(x, t)                                                        \
  N(); reg_dtype_##x(); }                                                     \
  GE_OPS_ENTER_METHOD_(reg_dtype_##x)                                         \
  auto type_range = t;                                                        \
  DataTypeRegister(#x, type_range);                                           \
  (void)OpReg()

// OP_END_FACTORY_REG(x): ends the chain and the last method, checks that x is
// the class REG_OP opened, closes the class, defines the op's creator in a
// static named uniquely with __COUNTER__, and closes `namespace op`. The `;`
// written after it is an empty declaration.
#define GE_OPS_CAT_(a, b) a##b
#define GE_OPS_END_OP_(x, n)                                                  \
  N();                                                                        \
  }                                                                           \
  static_assert(std::is_same<x, ThisType>::value,                             \
                "OP_END_FACTORY_REG(" #x ") must name the op of its REG_OP"); \
  };                                                                          \
  static const OpCreatorRegister GE_OPS_CAT_(op_creator_, n)(                 \
      #x, [](const AscendString &name) -> Operator { return x(name); });      \
  }
#define OP_END_FACTORY_REG(x) GE_OPS_END_OP_(x, __COUNTER__)

#endif  // GE_OPS_TESTS_CPP_GRAPH_OPERATOR_REG_H_
