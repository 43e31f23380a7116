//===- HPModule.h - the _hp extension's handles ---------------*- C++ -*-===//
//
// The handles the _hp extension's files share (Context, Module and the IR
// handles that keep them alive) and the argument checks every binding runs
// before it calls the C API. See HPModule.cpp for the ownership rules.
//
//===----------------------------------------------------------------------===//

#ifndef HP_PYTHON_HPMODULE_H
#define HP_PYTHON_HPMODULE_H

#include "hp-c/DTensor.h"
#include "hp/Support/LaunchFlags.h"
#include "hp/Support/MeshShape.h"
#include "hp/Support/NestingDepth.h"
#include "hp/Support/SymbolName.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/Dialect/Func.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/RegisterEverything.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cctype>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace hpbind {

namespace nb = nanobind;

inline MlirStringRef toRef(const std::string &s) {
  return mlirStringRefCreate(s.data(), s.size());
}
/// A reference into a temporary string dangles once the statement ends
/// (an MlirOperationState keeps its name until mlirOperationCreate): refused
/// at compile time. Literals go through mlirStringRefCreateFromCString.
MlirStringRef toRef(std::string &&) = delete;
MlirStringRef toRef(const char *) = delete;

inline void appendTo(MlirStringRef s, void *out) {
  static_cast<std::string *>(out)->append(s.data, s.length);
}

/// MLIR's parsers recurse once per bracket: refuse text that would
/// overflow the stack, as every other hp entry point does.
inline void checkNesting(const std::string &text, const char *what) {
  if (auto violation = hp::findExcessiveNesting(text))
    throw nb::value_error(violation->message(what).c_str());
}

/// A symbol name users type: the one rule of hp/Support/SymbolName.h.
inline void checkSymbolName(const std::string &name, const char *what) {
  if (!hp::isPlainSymbolName(name))
    throw nb::value_error(hp::notASymbolName(what, name).c_str());
}

/// A mesh shape, and its axis names when given: the one rule of
/// hp/Support/MeshShape.h.
inline void checkMeshShape(const std::vector<int64_t> &shape,
                           const std::vector<std::string> *names = nullptr) {
  if (auto error = hp::meshShapeError(shape))
    throw nb::value_error(error->c_str());
  if (!names)
    return;
  std::vector<llvm::StringRef> refs(names->begin(), names->end());
  if (auto error = hp::axisNamesError("mesh", refs, shape.size()))
    throw nb::value_error(error->c_str());
}

/// One diagnostic, as Python reads it (hp.Diagnostic): its parts, and what
/// hp's passes say it is about (hp-c/Diagnostics.h), so that callers filter
/// by kind rather than by words.
struct Diagnostic {
  std::string severity; // "error", "warning", "remark" or "note"
  std::string location; // "file:line:col", or the location printed
  std::string message;  // the text, after the op's name where it has one
  std::string kind, op, parameter;
  /// "location: severity: message", as compilers print it.
  std::string str() const {
    return location + ": " + severity + ": " + message;
  }
};

/// Owns an MlirContext; every other object keeps it alive.
struct Context {
  MlirContext ctx;
  std::vector<Diagnostic> diagnostics;
  MlirDiagnosticHandlerID handler;

  Context();
  ~Context() {
    mlirContextDetachDiagnosticHandler(ctx, handler);
    mlirContextDestroy(ctx);
  }

  /// Raises ValueError with the collected diagnostics.
  [[noreturn]] void fail(const std::string &what) {
    std::string message = what;
    for (const Diagnostic &d : diagnostics)
      message += "\n" + d.str();
    diagnostics.clear();
    throw nb::value_error(message.c_str());
  }
};
using ContextRef = std::shared_ptr<Context>;

/// Refuses an object of another Context: MLIR would keep a pointer into a
/// context that can die first.
inline void checkContext(const ContextRef &expected, const ContextRef &got,
                         const char *what) {
  if (expected.get() != got.get())
    throw nb::value_error(
        (std::string(what) + " belongs to a different hp.Context").c_str());
}

struct Attribute {
  ContextRef context;
  MlirAttribute attr;
  std::string str() const {
    std::string s;
    mlirAttributePrint(attr, appendTo, &s);
    return s;
  }
};

struct Type {
  ContextRef context;
  MlirType type;
  std::string str() const {
    std::string s;
    mlirTypePrint(type, appendTo, &s);
    return s;
  }
};

struct Module {
  ContextRef context;
  MlirModule module;
  /// Bumped by every pipeline run: a pass may erase any op, block or value,
  /// so handles taken before a run are refused after it.
  uint64_t generation = 0;
  Module(ContextRef c, MlirModule m) : context(std::move(c)), module(m) {}
  ~Module() { mlirModuleDestroy(module); }

  MlirOperation operation() const { return mlirModuleGetOperation(module); }
  std::string str() const {
    std::string s;
    mlirOperationPrint(operation(), appendTo, &s);
    return s;
  }
  /// The diagnostics collected since the last call (warnings, remarks).
  std::vector<Diagnostic> takeDiagnostics() {
    std::vector<Diagnostic> taken;
    taken.swap(context->diagnostics);
    return taken;
  }
  std::vector<Diagnostic> verify() {
    if (!mlirOperationVerify(operation()))
      context->fail("module does not verify");
    return takeDiagnostics();
  }
  std::vector<Diagnostic> run(const std::string &pipeline);
};
using ModuleRef = std::shared_ptr<Module>;

/// What a Block, Operation or Value points into: its Module, kept alive,
/// and the pipeline run it was taken after.
struct Owner {
  ModuleRef module;
  uint64_t generation;
  explicit Owner(ModuleRef m)
      : module(std::move(m)), generation(module->generation) {}
  const ContextRef &context() const { return module->context; }
  MlirContext ctx() const { return module->context->ctx; }
  /// Refuses a handle a pass may have invalidated.
  void check(const char *what) const {
    if (module->generation != generation)
      throw nb::value_error((std::string(what) +
                             " was taken before Module.run changed its module; "
                             "take it again from the module")
                                .c_str());
  }
};

/// Refuses IR of another Module: an op using a value of another module
/// would dangle once that module is freed.
inline void checkSameModule(const Owner &expected, const Owner &got,
                            const char *what) {
  got.check(what);
  if (expected.module.get() != got.module.get())
    throw nb::value_error(
        (std::string(what) + " belongs to a different hp.Module").c_str());
}

struct Value {
  Owner owner;
  MlirValue value;
  Type type() const {
    owner.check("this Value");
    return {owner.context(), mlirValueGetType(value)};
  }
};

struct Block {
  Owner owner;
  MlirBlock block;
  std::vector<Value> arguments() const {
    owner.check("this Block");
    std::vector<Value> args;
    for (intptr_t i = 0, e = mlirBlockGetNumArguments(block); i < e; ++i)
      args.push_back({owner, mlirBlockGetArgument(block, i)});
    return args;
  }
};

struct Operation {
  Owner owner;
  MlirOperation op;
  std::vector<Value> results() const {
    owner.check("this Operation");
    std::vector<Value> out;
    for (intptr_t i = 0, e = mlirOperationGetNumResults(op); i < e; ++i)
      out.push_back({owner, mlirOperationGetResult(op, i)});
    return out;
  }
  std::string str() const {
    owner.check("this Operation");
    std::string s;
    mlirOperationPrint(op, appendTo, &s);
    return s;
  }
  std::string name() const {
    owner.check("this Operation");
    MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
    return std::string(n.data, n.length);
  }
  /// A discardable attribute only: replacing an inherent one (a function's
  /// `function_type`) with a value of another kind would crash whatever
  /// reads it next.
  void setAttribute(const std::string &attrName, const Attribute &attr) {
    owner.check("this Operation");
    checkContext(owner.context(), attr.context, "the Attribute");
    size_t dot = attrName.find('.');
    if (dot == std::string::npos || dot == 0 || dot + 1 == attrName.size())
      throw nb::value_error(
          ("'" + attrName +
           "' is not a dialect attribute name (dialect.name): only "
           "discardable attributes can be set")
              .c_str());
    mlirOperationSetDiscardableAttributeByName(op, toRef(attrName), attr.attr);
  }
  /// func.func's argument (`result` false) or result attribute `index`.
  void setFunctionAttribute(bool result, intptr_t index,
                            const std::string &attrName,
                            const Attribute &attr) {
    owner.check("this Operation");
    checkContext(owner.context(), attr.context, "the Attribute");
    if (name() != "func.func")
      throw nb::value_error(
          ("argument and result attributes are for func.func, not " + name())
              .c_str());
    if (attrName.empty())
      throw nb::value_error("an attribute name must not be empty");
    MlirType fnType = mlirTypeAttrGetValue(mlirOperationGetAttributeByName(
        op, mlirStringRefCreateFromCString("function_type")));
    intptr_t count = result ? mlirFunctionTypeGetNumResults(fnType)
                            : mlirFunctionTypeGetNumInputs(fnType);
    if (index < 0 || index >= count)
      throw nb::index_error(((result ? "result " : "argument ") +
                             std::to_string(index) + " of a function with " +
                             std::to_string(count))
                                .c_str());
    if (result)
      mlirFuncSetResultAttr(op, index, toRef(attrName), attr.attr);
    else
      mlirFuncSetArgAttr(op, index, toRef(attrName), attr.attr);
  }
};

/// Module.parse: raises ValueError with the diagnostics.
ModuleRef parseModule(ContextRef context, const std::string &text,
                      const std::string &filename);
MlirType parseType(const ContextRef &context, const std::string &text);
MlirAttribute parseAttribute(const ContextRef &context,
                             const std::string &text);

/// The C API handles of a list of wrapped objects, each checked to belong
/// to `context` (types, attributes) or `owner`'s module (values).
inline std::vector<MlirType> raw(const ContextRef &context,
                                 const std::vector<Type> &types) {
  std::vector<MlirType> out;
  for (const Type &t : types) {
    checkContext(context, t.context, "a Type");
    out.push_back(t.type);
  }
  return out;
}
inline std::vector<MlirAttribute>
raw(const ContextRef &context, const std::vector<Attribute> &attributes) {
  std::vector<MlirAttribute> out;
  for (const Attribute &a : attributes) {
    checkContext(context, a.context, "an Attribute");
    out.push_back(a.attr);
  }
  return out;
}
inline std::vector<MlirValue> raw(const Owner &owner,
                                  const std::vector<Value> &values) {
  std::vector<MlirValue> out;
  for (const Value &v : values) {
    checkSameModule(owner, v.owner, "a Value");
    out.push_back(v.value);
  }
  return out;
}

/// The bindings of each file, called by NB_MODULE(_hp) in HPModule.cpp.
void bindBuilders(nb::module_ &m);
void bindCollectives(nb::module_ &m);

} // namespace hpbind

#endif // HP_PYTHON_HPMODULE_H
