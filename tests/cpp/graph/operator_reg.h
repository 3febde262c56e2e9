// A stand-in for GE's "graph/operator_reg.h", to syntax-check the REG_OP
// headers gen-ops writes (g++ -std=c++17 -fsyntax-only -Wall -Werror). Written
// from the facts of GE's macro grammar, not from GE's source: each macro
// expands to the C++ shape GE's does, so what compiles here compiles against
// GE and what GE rejects fails here. Types are shells: only their names,
// constructors and conversions matter.
//
// REG_OP(Op) opens `namespace op` and class Op, whose constructors call a
// private method whose body starts an `OpReg()` chain. Each `.ELEMENT(...)`
// after it is a member call on that chain, and expands to
//   N(); __<kind>_<x>(); }   end the chain, call this element's method, close
//                            the current method,
//   public: <accessors>      names pasted from x, as GE pastes them,
//   private: void __<kind>_<x>() { <register>; (void)OpReg()
// so the next `.ELEMENT(...)` continues a fresh chain; elements that paste one
// member name (two inputs x, two attrs x) fail as a redeclared member. The
// private methods carry GE's names on purpose (__<Op>, __attr_<x>, ...): where
// one is a system macro (glibc's __P, __attr_access) GE breaks, so this must.
// Element arguments are used only with # and ##, so never macro-expanded.
#ifndef GE_OPS_TESTS_CPP_GRAPH_OPERATOR_REG_H_
#define GE_OPS_TESTS_CPP_GRAPH_OPERATOR_REG_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <vector>

namespace ge {

// GE's DataType numbering (5 is unused). Unscoped, and an int does not
// convert to it (ATTR(x, Type, 1) fails).
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

using graphStatus = uint32_t;

// Implicit from a C string, as GE's is.
struct AscendString {
  AscendString() = default;
  AscendString(const char *s) : text(s == nullptr ? "" : s) {}
  std::string text;
};

class TensorDesc {};
// GE's constructors: with them `Tensor({})` is ambiguous, as in GE.
struct Tensor {
  Tensor() = default;
  explicit Tensor(const TensorDesc &) {}
  Tensor(const TensorDesc &, const std::vector<uint8_t> &) {}
  Tensor(const TensorDesc &, const uint8_t *, size_t) {}
  Tensor(TensorDesc &&, std::vector<uint8_t> &&) {}
};
// Declared and never defined, as in GE's external headers: no NamedAttrs or
// ListNamedAttrs attr compiles.
class NamedAttrs;
class Graph {};
using SubgraphBuilder = std::function<Graph()>;

// A set of dtypes: the brace-list constructor is implicit and the one-dtype
// constructor explicit, as in GE. GE's named sets are here by name only:
// their members do not matter to a syntax check.
struct TensorType {
  explicit TensorType(DataType dt) : types{dt} {}
  TensorType(std::initializer_list<DataType> dts) : types(dts) {}
  static TensorType ALL() { return {}; }
  static TensorType QuantifiedType() { return {}; }    static TensorType OrdinaryType() { return {}; }
  static TensorType BasicType() { return {}; }         static TensorType NumberType() { return {}; }
  static TensorType RealNumberType() { return {}; }    static TensorType ComplexDataType() { return {}; }
  static TensorType IntegerDataType() { return {}; }   static TensorType SignedDataType() { return {}; }
  static TensorType UnsignedDataType() { return {}; }  static TensorType FloatingDataType() { return {}; }
  static TensorType IndexNumberType() { return {}; }   static TensorType UnaryDataType() { return {}; }
  static TensorType FLOAT() { return {}; }
  std::vector<DataType> types;
};

// One dtype set for every tensor of a dynamic input or output.
struct ListTensorType {
  explicit ListTensorType(const TensorType &type) : tensor_type(type) {}
  TensorType tensor_type;
};

// A dtype promoted from type variables; move-only, as in GE.
struct Promote {
  Promote(std::initializer_list<const char *> names) : syms(names) {}
  Promote(const Promote &) = delete;
  Promote(Promote &&) = default;
  std::vector<const char *> syms;
};

// The base of every prototype class: one Op<Type> per REG_OP attr type name
// (ATTR(x, Foo, ...) fails because OpFoo is not declared; there is no
// OpListListFloat), and the calls the element macros make.
class Operator {
 public:
  using OpInt = int64_t;                     using OpFloat = float;
  using OpString = std::string;              using OpAscendString = AscendString;
  using OpBool = bool;                       using OpTensor = Tensor;
  using OpType = DataType;                   using OpNamedAttrs = NamedAttrs;
  using OpListInt = std::vector<int64_t>;    using OpListFloat = std::vector<float>;
  using OpListString = std::vector<std::string>;
  using OpListAscendString = std::vector<AscendString>;
  using OpListBool = std::vector<bool>;      using OpListTensor = std::vector<Tensor>;
  using OpBytes = std::vector<uint8_t>;      using OpListListInt = std::vector<std::vector<int64_t>>;
  using OpListType = std::vector<DataType>;  using OpListNamedAttrs = std::vector<NamedAttrs>;

  Operator() = default;
  explicit Operator(const char *) {}
  Operator(const char *, const char *) {}
  Operator(const AscendString &, const AscendString &) {}
  virtual ~Operator() = default;

 protected:
  void InputRegister(const char *, const char *) {}
  void OptionalInputRegister(const char *, const char *) {}
  void OutputRegister(const char *, const char *) {}
  void DynamicInputRegister(const char *, uint32_t, const char *, bool) {}
  void DynamicOutputRegister(const char *, uint32_t, const char *, bool) {}
  template <typename T> void AttrRegister(const char *, const T &) {}
  void RequiredAttrWithTypeRegister(const char *, const char *) {}
  void SubgraphRegister(const char *, bool) {}
  void SubgraphCountRegister(const char *, uint32_t) {}
  // DATATYPE's range must be, or convert implicitly to, one of these three.
  void DataTypeRegister(const char *, const TensorType &) {}
  void DataTypeRegister(const char *, const ListTensorType &) {}
  void DataTypeRegister(const char *, const Promote &) {}
  // What the pasted accessors call.
  template <typename... A> void Do(const A &...) {}
  template <typename R, typename... A> R Get(const A &...) const { return R(); }
};

// The chain: N() ends a chain statement; INFER_SHAPE_AND_TYPE() is a no-op.
struct OpReg {
  OpReg &N() { return *this; }
  OpReg &INFER_SHAPE_AND_TYPE() { return *this; }
};

// Holds an op's creator; OP_END_FACTORY_REG defines one static per op.
struct OperatorCreatorRegister {
  OperatorCreatorRegister(const char *, std::function<Operator(const AscendString &)>) {}
};

}  // namespace ge

// REG_OP(x): `namespace op { class x`, constructors that run the chain, and
// the chain's first method. this_type lets OP_END_FACTORY_REG check the name.
#define REG_OP(x)                                                              \
  namespace op {                                                               \
  class x : public Operator {                                                  \
    using this_type = x;                                                       \
   public:                                                                     \
    x() : Operator(#x) { __##x(); }                                            \
    explicit x(const char *name) : Operator(name, #x) { __##x(); }             \
    explicit x(const std::string &name) : Operator(name.c_str(), #x) { __##x(); } \
    explicit x(const AscendString &name) : Operator(name, #x) { __##x(); }     \
   private:                                                                    \
    void __##x() {                                                             \
      OpReg()

// The two halves of every element; `method` arrives already pasted, and the
// calls into Operator are qualified, so no op name can hide them.
#define GE_OPS_LEAVE_CHAIN_(method) N(); method(); } public:
#define GE_OPS_ENTER_METHOD_(method) private: void method() {
#define GE_OPS_DO_(...) { Operator::Do(__VA_ARGS__); return *this; }
#define GE_OPS_GET_(R, ...) { return Operator::Get<R>(__VA_ARGS__); }

// Tensor elements: `t` is only stringified, so a quoted symbol ("T") or any
// one-argument expression (TensorType({DT_A, DT_B}), TensorType::ALL()) is
// fine, while a bare `{DT_A, DT_B}` splits into too many macro arguments.
// INPUT and OPTIONAL_INPUT paste the same accessors, so two inputs may not
// share a name; OUTPUT pastes others, so an input and an output may (a ref).
#define INPUT(x, t)                                                            \
  GE_OPS_LEAVE_CHAIN_(__input_##x)                                             \
  static void name_in_##x(AscendString &name) { name = #x; }                   \
  this_type &set_input_##x(Operator &v) GE_OPS_DO_(#x, v)                      \
  this_type &set_input_##x(Operator &v, uint32_t i) GE_OPS_DO_(#x, v, i)       \
  this_type &set_input_##x(Operator &v, const std::string &s) GE_OPS_DO_(#x, v, s) \
  this_type &set_input_##x##_by_name(Operator &v, const char *s) GE_OPS_DO_(#x, v, s) \
  TensorDesc get_input_desc_##x() const GE_OPS_GET_(TensorDesc, #x)            \
  graphStatus update_input_desc_##x(const TensorDesc &d) GE_OPS_GET_(graphStatus, #x, d) \
  GE_OPS_ENTER_METHOD_(__input_##x)                                            \
  Operator::InputRegister(#x, #t);                                             \
  (void)OpReg()

#define OPTIONAL_INPUT(x, t)                                                   \
  GE_OPS_LEAVE_CHAIN_(__optional_input_##x)                                    \
  static void name_in_##x(AscendString &name) { name = #x; }                   \
  this_type &set_input_##x(Operator &v) GE_OPS_DO_(#x, v)                      \
  this_type &set_input_##x(Operator &v, uint32_t i) GE_OPS_DO_(#x, v, i)       \
  this_type &set_input_##x(Operator &v, const std::string &s) GE_OPS_DO_(#x, v, s) \
  this_type &set_input_##x##_by_name(Operator &v, const char *s) GE_OPS_DO_(#x, v, s) \
  TensorDesc get_input_desc_##x() const GE_OPS_GET_(TensorDesc, #x)            \
  graphStatus update_input_desc_##x(const TensorDesc &d) GE_OPS_GET_(graphStatus, #x, d) \
  GE_OPS_ENTER_METHOD_(__optional_input_##x)                                   \
  Operator::OptionalInputRegister(#x, #t);                                     \
  (void)OpReg()

#define OUTPUT(x, t)                                                           \
  GE_OPS_LEAVE_CHAIN_(__out_##x)                                               \
  static void name_out_##x(AscendString &name) { name = #x; }                  \
  TensorDesc get_output_desc_##x() const GE_OPS_GET_(TensorDesc, #x)           \
  graphStatus update_output_desc_##x(const TensorDesc &d) GE_OPS_GET_(graphStatus, #x, d) \
  GE_OPS_ENTER_METHOD_(__out_##x)                                              \
  Operator::OutputRegister(#x, #t);                                            \
  (void)OpReg()

// Dynamic tensor elements paste other names than INPUT/OUTPUT: as in GE, they
// clash with another dynamic element of their name only.
#define DYNAMIC_INPUT(x, t)                                                    \
  GE_OPS_LEAVE_CHAIN_(__dy_input_##x)                                          \
  this_type &create_dynamic_input_##x(uint32_t n, bool push_back = true) GE_OPS_DO_(#x, n, #t, push_back) \
  this_type &create_dynamic_input_byindex_##x(uint32_t n, size_t i) GE_OPS_DO_(#x, n, i) \
  TensorDesc get_dynamic_input_desc_##x(uint32_t i) const GE_OPS_GET_(TensorDesc, #x, i) \
  graphStatus update_dynamic_input_desc_##x(uint32_t i, const TensorDesc &d) GE_OPS_GET_(graphStatus, #x, i, d) \
  this_type &set_dynamic_input_##x(uint32_t i, Operator &v) GE_OPS_DO_(#x, i, v) \
  this_type &set_dynamic_input_##x(uint32_t i, Operator &v, const char *s) GE_OPS_DO_(#x, i, v, s) \
  GE_OPS_ENTER_METHOD_(__dy_input_##x)                                         \
  Operator::DynamicInputRegister(#x, 0, #t, true);                             \
  (void)OpReg()

#define DYNAMIC_OUTPUT(x, t)                                                   \
  GE_OPS_LEAVE_CHAIN_(__dy_output_##x)                                         \
  this_type &create_dynamic_output_##x(uint32_t n, bool push_back = true) GE_OPS_DO_(#x, n, #t, push_back) \
  TensorDesc get_dynamic_output_desc_##x(uint32_t i) const GE_OPS_GET_(TensorDesc, #x, i) \
  graphStatus update_dynamic_output_desc_##x(uint32_t i, const TensorDesc &d) GE_OPS_GET_(graphStatus, #x, i, d) \
  GE_OPS_ENTER_METHOD_(__dy_output_##x)                                        \
  Operator::DynamicOutputRegister(#x, 0, #t, true);                            \
  (void)OpReg()

// Attrs: Type must name an Op<Type> above. ATTR's default is the variadic
// tail, so a brace list with commas stays one default; it must both
// copy-initialise Op<Type> (`OpInt ret = "a";` fails; a brace list must fit
// the list type without narrowing) and construct it (`OpListInt({0, 1})`).
// ATTR and REQUIRED_ATTR paste the same accessors: an attr name appears once.
#define ATTR(x, Type, ...)                                                     \
  GE_OPS_LEAVE_CHAIN_(__attr_##x)                                              \
  static void name_attr_##x(AscendString &name) { name = #x; }                 \
  this_type &set_attr_##x(const Op##Type &v) GE_OPS_DO_(#x, v)                 \
  this_type &set_attr_##x(const std::function<Op##Type()> &v) GE_OPS_DO_(#x, v) \
  Op##Type get_attr_##x() const {                                              \
    Op##Type ret = __VA_ARGS__;                                                \
    return ret;                                                                \
  }                                                                            \
  GE_OPS_ENTER_METHOD_(__attr_##x)                                             \
  Operator::AttrRegister(#x, Op##Type(__VA_ARGS__));                           \
  (void)OpReg()

#define REQUIRED_ATTR(x, Type)                                                 \
  GE_OPS_LEAVE_CHAIN_(__required_attr_##x)                                     \
  static void name_attr_##x(AscendString &name) { name = #x; }                 \
  this_type &set_attr_##x(const Op##Type &v) GE_OPS_DO_(#x, v)                 \
  this_type &set_attr_##x(const std::function<Op##Type()> &v) GE_OPS_DO_(#x, v) \
  Op##Type get_attr_##x() const { return Op##Type(); }                         \
  GE_OPS_ENTER_METHOD_(__required_attr_##x)                                    \
  Operator::RequiredAttrWithTypeRegister(#x, #Type);                           \
  (void)OpReg()

// Subgraphs: GRAPH and DYNAMIC_GRAPH paste name_graph_ and __graph_, so a
// graph name appears once (and, as in GE, graphs g and builder_g clash).
#define GRAPH(x)                                                               \
  GE_OPS_LEAVE_CHAIN_(__graph_##x)                                             \
  static void name_graph_##x(AscendString &name) { name = #x; }                \
  SubgraphBuilder get_subgraph_builder_##x() const GE_OPS_GET_(SubgraphBuilder, #x) \
  this_type &set_subgraph_builder_##x(const SubgraphBuilder &v) GE_OPS_DO_(#x, v) \
  Graph get_subgraph_##x() const GE_OPS_GET_(Graph, #x)                        \
  GE_OPS_ENTER_METHOD_(__graph_##x)                                            \
  Operator::SubgraphRegister(#x, false);                                       \
  Operator::SubgraphCountRegister(#x, 1);                                      \
  (void)OpReg()

#define DYNAMIC_GRAPH(x)                                                       \
  GE_OPS_LEAVE_CHAIN_(__graph_##x)                                             \
  static void name_graph_##x(AscendString &name) { name = #x; }                \
  this_type &create_dynamic_subgraph_##x(uint32_t n) GE_OPS_DO_(#x, n)         \
  SubgraphBuilder get_dynamic_subgraph_builder_##x(uint32_t i) const GE_OPS_GET_(SubgraphBuilder, #x, i) \
  Graph get_dynamic_subgraph_##x(uint32_t i) const GE_OPS_GET_(Graph, #x, i)   \
  this_type &set_dynamic_subgraph_builder_##x(uint32_t i, const SubgraphBuilder &v) GE_OPS_DO_(#x, i, v) \
  GE_OPS_ENTER_METHOD_(__graph_##x)                                            \
  Operator::SubgraphRegister(#x, true);                                        \
  (void)OpReg()

// DATATYPE(x, t): `auto type_range = t;` keeps t's own type, which
// DataTypeRegister must take: TensorType(...), TensorType::ALL(),
// ListTensorType(...) and Promote({...}) pass, DT_FLOAT or "T" fail. A bare
// `{DT_A, DT_B}` splits into too many macro arguments. (A bare `{DT_A}` is
// an initializer_list that converts implicitly to TensorType: GE accepts it.)
#define DATATYPE(x, t)                                                         \
  N(); __datatype_##x(); }                                                     \
  GE_OPS_ENTER_METHOD_(__datatype_##x)                                         \
  auto type_range = t;                                                         \
  Operator::DataTypeRegister(#x, type_range);                                  \
  (void)OpReg()

// OP_END_FACTORY_REG(x): ends the chain and the last method, checks that x is
// the class REG_OP opened, closes the class, registers the creator in a
// static named uniquely with __COUNTER__, and closes `namespace op`. The `;`
// written after it is an empty declaration.
#define GE_OPS_CAT_(a, b) a##b
#define GE_OPS_END_OP_(x, n)                                                   \
  N();                                                                         \
  }                                                                            \
  static_assert(std::is_same<x, this_type>::value,                             \
                "OP_END_FACTORY_REG(" #x ") must name the op of its REG_OP");  \
  };                                                                           \
  static const OperatorCreatorRegister GE_OPS_CAT_(g_register, n)(             \
      #x, [](const AscendString &name) -> Operator { return x(name); });       \
  }
#define OP_END_FACTORY_REG(x) GE_OPS_END_OP_(x, __COUNTER__)

#endif  // GE_OPS_TESTS_CPP_GRAPH_OPERATOR_REG_H_
