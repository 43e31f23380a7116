//===- HPModule.cpp - the _hp Python extension, over hp's C API -----------===//
//
// MLIR's Python package is not shipped by Debian, so hp carries its own small
// binding over the C API: contexts with every dialect and pass registered,
// parsing and printing, pass pipelines with diagnostics turned into
// exceptions, placement attributes and DTensor types, and a builder for
// meshes, functions, generic ops and local_region ops.
//
// Ownership: a Type or Attribute holds its Context; a Block, Operation or
// Value holds the Module whose IR it points into (which holds its Context),
// so no handle outlives what it points to. Handles taken before Module.run
// are refused afterwards (a pass may have erased what they point to), and
// objects of two Contexts or two Modules are never mixed. Every invalid
// argument raises a Python exception before it reaches the C API, whose
// functions assume valid input.
//
//===----------------------------------------------------------------------===//

#include "hp-c/DTensor.h"
#include "hp/Support/NestingDepth.h"

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

namespace nb = nanobind;

namespace {

MlirStringRef toRef(const std::string &s) {
  return mlirStringRefCreate(s.data(), s.size());
}
/// A reference into a temporary string dangles once the statement ends
/// (an MlirOperationState keeps its name until mlirOperationCreate): refused
/// at compile time. Literals go through mlirStringRefCreateFromCString.
MlirStringRef toRef(std::string &&) = delete;
MlirStringRef toRef(const char *) = delete;

void appendTo(MlirStringRef s, void *out) {
  static_cast<std::string *>(out)->append(s.data, s.length);
}

/// Python callable giving (file, line, column) of the user code that is
/// building IR; set by the hp package. Leaked on purpose: it must outlive
/// every static destructor that could run after the interpreter is gone.
PyObject *locationProvider = nullptr;

/// Where the Python caller is, so that ops built from Python point at the
/// line that built them (diagnostics, print-plans) instead of loc(unknown).
/// The provider is arbitrary Python: it may run Module.run, which can erase
/// the block an op is about to be added to or its operands. Every builder
/// therefore calls this first, before it checks its handles.
MlirLocation callerLocation(MlirContext ctx) {
  if (!locationProvider)
    return mlirLocationUnknownGet(ctx);
  nb::object where = nb::borrow(locationProvider)();
  if (where.is_none())
    return mlirLocationUnknownGet(ctx);
  auto [file, line, column] =
      nb::cast<std::tuple<std::string, unsigned, unsigned>>(where);
  return mlirLocationFileLineColGet(ctx, toRef(file), line, column);
}

/// MLIR's parsers recurse once per bracket: refuse text that would
/// overflow the stack, as every other hp entry point does.
void checkNesting(const std::string &text, const char *what) {
  if (auto violation = hp::findExcessiveNesting(text))
    throw nb::value_error(violation->message(what).c_str());
}

/// A bare MLIR symbol name (`@tp`, `@main`): an empty or odd name would
/// print as something that does not parse again.
void checkSymbolName(const std::string &name, const char *what) {
  bool valid = !name.empty() &&
               (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_');
  for (char c : name)
    valid &= std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
             c == '$' || c == '.' || c == '-';
  if (!valid)
    throw nb::value_error((std::string(what) + " '" + name +
                           "' is not a symbol name ([A-Za-z_][A-Za-z0-9_$.-]*)")
                              .c_str());
}

/// Mesh sizes divide tensor dims: each must be at least 1.
void checkMeshShape(const std::vector<int64_t> &shape) {
  if (shape.empty())
    throw nb::value_error("a mesh shape must not be empty");
  for (int64_t size : shape)
    if (size < 1)
      throw nb::value_error(("mesh sizes must be >= 1, got " +
                             std::to_string(size))
                                .c_str());
}

/// Owns an MlirContext; every other object keeps it alive.
struct Context {
  MlirContext ctx;
  std::vector<std::string> diagnostics;
  MlirDiagnosticHandlerID handler;

  Context();
  ~Context() {
    mlirContextDetachDiagnosticHandler(ctx, handler);
    mlirContextDestroy(ctx);
  }

  /// Raises ValueError with the collected diagnostics.
  [[noreturn]] void fail(const std::string &what) {
    std::string message = what;
    for (const std::string &d : diagnostics)
      message += "\n" + d;
    diagnostics.clear();
    throw nb::value_error(message.c_str());
  }
};
using ContextRef = std::shared_ptr<Context>;

/// The file position and the first name a location holds: a named location
/// gives its name and its child's position, a call site its callee's, a
/// fusion its first part that has one (hp.torch names each op's location
/// after the torch op, around the user's line).
bool filePosition(MlirLocation loc, std::string &where, std::string &name) {
  if (mlirLocationIsAFileLineColRange(loc)) {
    MlirStringRef file =
        mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(loc));
    where.assign(file.data, file.length);
    where += ":" + std::to_string(mlirLocationFileLineColRangeGetStartLine(loc)) +
             ":" + std::to_string(mlirLocationFileLineColRangeGetStartColumn(loc));
    return true;
  }
  if (mlirLocationIsAName(loc)) {
    if (name.empty()) {
      MlirStringRef n = mlirIdentifierStr(mlirLocationNameGetName(loc));
      name.assign(n.data, n.length);
    }
    return filePosition(mlirLocationNameGetChildLoc(loc), where, name);
  }
  if (mlirLocationIsACallSite(loc))
    return filePosition(mlirLocationCallSiteGetCallee(loc), where, name);
  if (mlirLocationIsAFused(loc)) {
    std::vector<MlirLocation> parts(mlirLocationFusedGetNumLocations(loc));
    mlirLocationFusedGetLocations(loc, parts.data());
    for (MlirLocation part : parts)
      if (filePosition(part, where, name))
        return true;
  }
  return false;
}

/// "file:line:col: severity: [name: ]message", as compilers print it.
std::string formatDiagnostic(MlirDiagnostic diag) {
  std::string text;
  mlirDiagnosticPrint(diag, appendTo, &text);
  std::string where, name;
  MlirLocation loc = mlirDiagnosticGetLocation(diag);
  if (!filePosition(loc, where, name)) {
    where.clear();
    mlirLocationPrint(loc, appendTo, &where);
  } else if (!name.empty()) {
    text = name + ": " + text;
  }
  const char *severity = "error";
  switch (mlirDiagnosticGetSeverity(diag)) {
  case MlirDiagnosticWarning:
    severity = "warning";
    break;
  case MlirDiagnosticNote:
    severity = "note";
    break;
  case MlirDiagnosticRemark:
    severity = "remark";
    break;
  default:
    break;
  }
  return where + ": " + severity + ": " + text;
}

Context::Context() {
  static std::once_flag passes;
  std::call_once(passes, [] {
    mlirRegisterAllPasses();
    hpRegisterAllPasses();
  });
  ctx = mlirContextCreate();
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirRegisterAllDialects(registry);
  hpRegisterAllDialects(registry);
  mlirContextAppendDialectRegistry(ctx, registry);
  mlirDialectRegistryDestroy(registry);
  mlirContextLoadAllAvailableDialects(ctx);
  handler = mlirContextAttachDiagnosticHandler(
      ctx,
      [](MlirDiagnostic diag, void *self) {
        static_cast<Context *>(self)->diagnostics.push_back(
            formatDiagnostic(diag));
        return mlirLogicalResultSuccess();
      },
      this, nullptr);
}

/// Refuses an object of another Context: MLIR would keep a pointer into a
/// context that can die first.
void checkContext(const ContextRef &expected, const ContextRef &got,
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
  std::vector<std::string> takeDiagnostics() {
    std::vector<std::string> taken;
    taken.swap(context->diagnostics);
    return taken;
  }
  std::vector<std::string> verify() {
    if (!mlirOperationVerify(operation()))
      context->fail("module does not verify");
    return takeDiagnostics();
  }
  std::vector<std::string> run(const std::string &pipeline);
};
using ModuleRef = std::shared_ptr<Module>;

/// What a Block, Operation or Value points into: its Module, kept alive,
/// and the pipeline run it was taken after.
struct Owner {
  ModuleRef module;
  uint64_t generation;
  explicit Owner(ModuleRef m) : module(std::move(m)), generation(module->generation) {}
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
void checkSameModule(const Owner &expected, const Owner &got, const char *what) {
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
      throw nb::value_error(("'" + attrName +
                             "' is not a dialect attribute name (dialect.name): only "
                             "discardable attributes can be set")
                                .c_str());
    mlirOperationSetDiscardableAttributeByName(op, toRef(attrName), attr.attr);
  }
  /// func.func's argument (`result` false) or result attribute `index`.
  void setFunctionAttribute(bool result, intptr_t index, const std::string &attrName,
                            const Attribute &attr) {
    owner.check("this Operation");
    checkContext(owner.context(), attr.context, "the Attribute");
    if (name() != "func.func")
      throw nb::value_error(("argument and result attributes are for func.func, not " +
                             name()).c_str());
    if (attrName.empty())
      throw nb::value_error("an attribute name must not be empty");
    MlirType fnType = mlirTypeAttrGetValue(mlirOperationGetAttributeByName(
        op, mlirStringRefCreateFromCString("function_type")));
    intptr_t count = result ? mlirFunctionTypeGetNumResults(fnType)
                            : mlirFunctionTypeGetNumInputs(fnType);
    if (index < 0 || index >= count)
      throw nb::index_error(((result ? "result " : "argument ") + std::to_string(index) +
                             " of a function with " + std::to_string(count))
                                .c_str());
    if (result)
      mlirFuncSetResultAttr(op, index, toRef(attrName), attr.attr);
    else
      mlirFuncSetArgAttr(op, index, toRef(attrName), attr.attr);
  }
};

/// `pipeline` anchored on builtin.module: as given when it already is
/// (`builtin.module(hp-partition)`, the C API's and hp-opt's spelling),
/// wrapped otherwise. Wrapping an anchored one would nest a second module
/// pass manager that finds no module to run on and silently does nothing.
std::string anchorOnModule(const std::string &pipeline) {
  size_t begin = pipeline.find_first_not_of(" \t\n");
  size_t end = pipeline.find_last_not_of(" \t\n");
  const std::string anchor = "builtin.module";
  if (begin == std::string::npos)
    return "builtin.module()";
  std::string trimmed = pipeline.substr(begin, end - begin + 1);
  size_t open = trimmed.find_first_not_of(" \t\n", anchor.size());
  if (trimmed.compare(0, anchor.size(), anchor) != 0 || open == std::string::npos ||
      trimmed[open] != '(')
    return "builtin.module(" + pipeline + ")";
  // Anchored only if the anchor's parenthesis closes at the very end
  // (not `builtin.module(a),b`).
  int depth = 0;
  for (size_t i = open; i < trimmed.size(); ++i) {
    depth += trimmed[i] == '(' ? 1 : trimmed[i] == ')' ? -1 : 0;
    if (depth == 0)
      return i + 1 == trimmed.size() ? trimmed : "builtin.module(" + pipeline + ")";
  }
  return "builtin.module(" + pipeline + ")";
}

std::vector<std::string> Module::run(const std::string &pipeline) {
  checkNesting(pipeline, "pipeline");
  // Passes assume valid input; a module built op by op may not be.
  if (!mlirOperationVerify(operation()))
    context->fail("module does not verify; the pipeline was not run");
  std::string anchored = anchorOnModule(pipeline);
  MlirPassManager pm =
      mlirPassManagerCreateOnOperation(context->ctx, mlirStringRefCreateFromCString("builtin.module"));
  std::string error;
  MlirLogicalResult parsed = mlirParsePassPipeline(
      mlirPassManagerGetAsOpPassManager(pm), toRef(anchored), appendTo, &error);
  if (mlirLogicalResultIsFailure(parsed)) {
    mlirPassManagerDestroy(pm);
    context->fail("invalid pass pipeline '" + pipeline + "': " + error);
  }
  ++generation;
  MlirLogicalResult ran;
  {
    // The passes touch no Python object (diagnostics go to a C++ list):
    // other Python threads run meanwhile, such as a session starting its
    // ranks while a copy of the program is partitioned (hp.torch.Trainer).
    nb::gil_scoped_release release;
    ran = mlirPassManagerRunOnOp(pm, operation());
  }
  mlirPassManagerDestroy(pm);
  if (mlirLogicalResultIsFailure(ran))
    context->fail("pipeline '" + pipeline + "' failed");
  return takeDiagnostics();
}

ModuleRef parseModule(ContextRef context, const std::string &text,
                      const std::string &filename) {
  checkNesting(text, filename.c_str());
  // The file name goes into every location, so diagnostics name the file.
  MlirModule m = hpModuleCreateParseNamed(context->ctx, toRef(text),
                                          toRef(filename));
  if (mlirModuleIsNull(m))
    context->fail("cannot parse the module");
  context->diagnostics.clear();
  return std::make_shared<Module>(context, m);
}

MlirType parseType(const ContextRef &context, const std::string &text) {
  checkNesting(text, "type");
  MlirType t = mlirTypeParseGet(context->ctx, toRef(text));
  if (mlirTypeIsNull(t))
    context->fail("cannot parse type '" + text + "'");
  return t;
}

MlirAttribute parseAttribute(const ContextRef &context, const std::string &text) {
  checkNesting(text, "attribute");
  MlirAttribute a = mlirAttributeParseGet(context->ctx, toRef(text));
  if (mlirAttributeIsNull(a))
    context->fail("cannot parse attribute '" + text + "'");
  return a;
}

/// The C API handles of a list of wrapped objects, each checked to belong
/// to `context` (types, attributes) or `owner`'s module (values).
std::vector<MlirType> raw(const ContextRef &context, const std::vector<Type> &types) {
  std::vector<MlirType> out;
  for (const Type &t : types) {
    checkContext(context, t.context, "a Type");
    out.push_back(t.type);
  }
  return out;
}
std::vector<MlirAttribute> raw(const ContextRef &context,
                               const std::vector<Attribute> &attributes) {
  std::vector<MlirAttribute> out;
  for (const Attribute &a : attributes) {
    checkContext(context, a.context, "an Attribute");
    out.push_back(a.attr);
  }
  return out;
}
std::vector<MlirValue> raw(const Owner &owner, const std::vector<Value> &values) {
  std::vector<MlirValue> out;
  for (const Value &v : values) {
    checkSameModule(owner, v.owner, "a Value");
    out.push_back(v.value);
  }
  return out;
}

MlirAttribute placementList(const ContextRef &context,
                            const std::vector<Attribute> &list) {
  std::vector<MlirAttribute> attrs = raw(context, list);
  return mlirArrayAttrGet(context->ctx, attrs.size(), attrs.data());
}

using PlacementList = std::vector<Attribute>;
using InPlacements =
    std::optional<std::vector<std::pair<std::string, std::optional<PlacementList>>>>;
using OutPlacements = std::optional<std::vector<std::optional<PlacementList>>>;

/// `in_placements` as a dictionary (null when absent); `none` is unit.
MlirAttribute inPlacementsAttr(const ContextRef &c, const InPlacements &in) {
  if (!in)
    return mlirAttributeGetNull();
  std::vector<MlirNamedAttribute> entries;
  for (const auto &[key, list] : *in)
    entries.push_back(mlirNamedAttributeGet(
        mlirIdentifierGet(c->ctx, toRef(key)),
        list ? placementList(c, *list) : mlirUnitAttrGet(c->ctx)));
  return mlirDictionaryAttrGet(c->ctx, entries.size(), entries.data());
}

/// `out_placements` in flat or per-output form (null when absent).
MlirAttribute outPlacementsAttr(const ContextRef &c, const OutPlacements &out,
                                bool flat) {
  if (!out)
    return mlirAttributeGetNull();
  if (flat) {
    if (out->size() != 1 || !(*out)[0])
      throw nb::value_error("a flat out_placements is one placement list");
    return placementList(c, *(*out)[0]);
  }
  std::vector<MlirAttribute> entries;
  for (const auto &list : *out)
    entries.push_back(list ? placementList(c, *list) : mlirUnitAttrGet(c->ctx));
  return mlirArrayAttrGet(c->ctx, entries.size(), entries.data());
}

/// The C API answers bad input with a null handle and a diagnostic:
/// raise it rather than append a null op.
MlirOperation created(const ContextRef &c, MlirOperation op, const char *what) {
  if (mlirOperationIsNull(op))
    c->fail(std::string("cannot create ") + what);
  return op;
}

/// How many regions enclose `block`. Printing and parsing recurse per
/// region, so building is bounded as parsing is.
size_t regionDepth(MlirBlock block) {
  size_t depth = 0;
  for (MlirOperation op = mlirBlockGetParentOperation(block); !mlirOperationIsNull(op);
       op = mlirOperationGetParentOperation(op))
    ++depth;
  return depth;
}

Operation addMesh(const ModuleRef &module, const std::string &name,
                  const std::vector<int64_t> &shape,
                  std::optional<std::vector<std::string>> names) {
  MlirLocation loc = callerLocation(module->context->ctx);
  Owner owner(module);
  checkSymbolName(name, "mesh name");
  checkMeshShape(shape);
  std::vector<MlirStringRef> refs;
  if (names) {
    // The C API reads one name per dim.
    if (names->size() != shape.size())
      throw nb::value_error("one name per mesh dimension");
    std::set<std::string> seen;
    for (const std::string &n : *names) {
      if (n.empty() || !seen.insert(n).second)
        throw nb::value_error(("mesh dim names must be non-empty and distinct, got '" +
                               n + "'")
                                  .c_str());
      refs.push_back(toRef(n));
    }
  }
  MlirOperation op = created(
      owner.context(),
      hpDTensorMeshOpCreate(loc, toRef(name), shape.size(),
                            shape.data(), names ? refs.data() : nullptr, nullptr),
      "dtensor.mesh");
  mlirBlockAppendOwnedOperation(mlirModuleGetBody(module->module), op);
  return {owner, op};
}

Block addFunction(const ModuleRef &module, const std::string &name,
                  const std::vector<Type> &args, const std::vector<Type> &results,
                  std::optional<std::vector<std::optional<std::string>>> argNames) {
  MlirLocation loc = callerLocation(module->context->ctx);
  Owner owner(module);
  checkSymbolName(name, "function name");
  if (argNames && argNames->size() != args.size())
    throw nb::value_error("arg_names needs one entry (or None) per argument");
  MlirContext ctx = owner.ctx();
  std::vector<MlirType> a = raw(owner.context(), args), r = raw(owner.context(), results);
  std::vector<MlirLocation> locs(a.size(), loc);
  MlirType fnType = mlirFunctionTypeGet(ctx, a.size(), a.data(), r.size(), r.data());
  MlirNamedAttribute attrs[2] = {
      mlirNamedAttributeGet(mlirIdentifierGet(ctx, mlirStringRefCreateFromCString("sym_name")),
                            mlirStringAttrGet(ctx, toRef(name))),
      mlirNamedAttributeGet(mlirIdentifierGet(ctx, mlirStringRefCreateFromCString("function_type")),
                            mlirTypeAttrGet(fnType))};
  MlirRegion body = mlirRegionCreate();
  MlirBlock entry = mlirBlockCreate(a.size(), a.data(), locs.data());
  mlirRegionAppendOwnedBlock(body, entry);
  MlirOperationState state = mlirOperationStateGet(mlirStringRefCreateFromCString("func.func"), loc);
  mlirOperationStateAddAttributes(&state, 2, attrs);
  mlirOperationStateAddOwnedRegions(&state, 1, &body);
  MlirOperation fn = mlirOperationCreate(&state);
  mlirBlockAppendOwnedOperation(mlirModuleGetBody(module->module), fn);
  // Argument names for dtensor.local_call (dtensor.arg_name).
  if (argNames)
    for (size_t i = 0; i < argNames->size(); ++i)
      if ((*argNames)[i])
        hpFuncSetArgName(fn, i, toRef(*(*argNames)[i]));
  return {owner, entry};
}

Operation addOp(const Block &block, const std::string &name,
                const std::vector<Value> &operands, const std::vector<Type> &results,
                std::optional<std::string> attributes) {
  const Owner &owner = block.owner;
  MlirLocation loc = callerLocation(owner.ctx());
  owner.check("the Block");
  const ContextRef &c = owner.context();
  if (name.find('.') == std::string::npos || name.front() == '.' || name.back() == '.')
    throw nb::value_error(("op name '" + name + "' is not dialect.op").c_str());
  std::vector<MlirValue> ops = raw(owner, operands);
  std::vector<MlirType> types = raw(c, results);
  std::vector<MlirNamedAttribute> named;
  if (attributes) {
    MlirAttribute dict = parseAttribute(c, *attributes);
    if (!mlirAttributeIsADictionary(dict))
      throw nb::value_error(("attributes must be a dictionary such as "
                             "'{value = 1 : i64}', got '" + *attributes + "'")
                                .c_str());
    for (intptr_t i = 0, e = mlirDictionaryAttrGetNumElements(dict); i < e; ++i)
      named.push_back(mlirDictionaryAttrGetElement(dict, i));
  }
  MlirOperationState state = mlirOperationStateGet(toRef(name), loc);
  mlirOperationStateAddOperands(&state, ops.size(), ops.data());
  mlirOperationStateAddResults(&state, types.size(), types.data());
  mlirOperationStateAddAttributes(&state, named.size(), named.data());
  MlirOperation op = mlirOperationCreate(&state);
  if (mlirOperationIsNull(op))
    c->fail("cannot create '" + name + "'");
  mlirBlockAppendOwnedOperation(block.block, op);
  return {owner, op};
}

/// The type a local_region body sees for `value`: its local block, or the
/// local block of its declared in_placements.
MlirType localArgType(const ContextRef &c, MlirValue value, const std::string &name,
                      const std::vector<int64_t> &meshShape, const InPlacements &in) {
  MlirType t = mlirValueGetType(value);
  if (!hpTypeIsADTensorType(t))
    return t;
  MlirType local = hpDTensorTypeGetLocalType(t, meshShape.size(), meshShape.data());
  if (mlirTypeIsNull(local))
    c->fail("operand '" + name + "' does not fit the mesh");
  if (!in)
    return local;
  for (const auto &[key, list] : *in) {
    if (key != name || !list)
      continue;
    std::vector<int64_t> shape;
    for (intptr_t i = 0, e = hpDTensorTypeGetRank(t); i < e; ++i)
      shape.push_back(hpDTensorTypeGetDimSize(t, i));
    std::vector<MlirAttribute> attrs = raw(c, *list);
    MlirType declared =
        hpDTensorTypeGet(c->ctx, shape.size(), shape.data(), hpDTensorTypeGetElementType(t),
                         hpDTensorTypeGetMesh(t), attrs.size(), attrs.data());
    if (mlirTypeIsNull(declared))
      c->fail("invalid in_placements for '" + name + "'");
    local = hpDTensorTypeGetLocalType(declared, meshShape.size(), meshShape.data());
    if (mlirTypeIsNull(local))
      c->fail("in_placements for '" + name + "' do not fit the mesh");
  }
  return local;
}

std::pair<Operation, Block>
addLocalRegion(const Block &block, const std::string &mesh,
               const std::vector<int64_t> &meshShape,
               const std::vector<std::pair<Value, std::string>> &args,
               const InPlacements &inPlacements, const OutPlacements &outPlacements,
               bool outFlat, bool redistributeInputs, const std::vector<Type> &results) {
  const Owner &owner = block.owner;
  MlirLocation loc = callerLocation(owner.ctx());
  owner.check("the Block");
  const ContextRef &c = owner.context();
  checkSymbolName(mesh, "mesh name");
  checkMeshShape(meshShape);
  if (regionDepth(block.block) >= hp::kMaxNestingDepth / 2)
    throw nb::value_error(("local_region nests deeper than " +
                           std::to_string(hp::kMaxNestingDepth / 2) +
                           " regions; hp could not parse the printed module")
                              .c_str());
  std::vector<MlirValue> values;
  std::vector<MlirStringRef> names;
  std::vector<MlirType> blockTypes;
  for (const auto &[value, name] : args) {
    checkSameModule(owner, value.owner, "a local_region argument");
    values.push_back(value.value);
    names.push_back(toRef(name));
    blockTypes.push_back(localArgType(c, value.value, name, meshShape, inPlacements));
  }
  MlirAttribute in = inPlacementsAttr(c, inPlacements);
  MlirAttribute out = outPlacementsAttr(c, outPlacements, outFlat);
  std::vector<MlirType> resultTypes = raw(c, results);
  MlirOperation op = created(
      c,
      hpDTensorLocalRegionOpCreate(loc, toRef(mesh), values.size(),
                                   values.data(), names.data(), blockTypes.data(), in,
                                   out, redistributeInputs, resultTypes.size(),
                                   resultTypes.data()),
      "dtensor.local_region");
  mlirBlockAppendOwnedOperation(block.block, op);
  return {Operation{owner, op}, Block{owner, hpDTensorLocalRegionOpGetBody(op)}};
}

Operation addLocalCall(const Block &block, const std::string &callee,
                       const std::string &mesh, const std::vector<Value> &args,
                       const InPlacements &inPlacements,
                       const OutPlacements &outPlacements, bool outFlat,
                       bool redistributeInputs, bool unchecked,
                       const std::vector<Type> &results) {
  const Owner &owner = block.owner;
  MlirLocation loc = callerLocation(owner.ctx());
  owner.check("the Block");
  const ContextRef &c = owner.context();
  checkSymbolName(callee, "callee");
  checkSymbolName(mesh, "mesh name");
  std::vector<MlirValue> values = raw(owner, args);
  MlirAttribute in = inPlacementsAttr(c, inPlacements);
  MlirAttribute out = outPlacementsAttr(c, outPlacements, outFlat);
  std::vector<MlirType> resultTypes = raw(c, results);
  MlirOperation op = created(
      c,
      hpDTensorLocalCallOpCreate(loc, toRef(callee), toRef(mesh),
                                 values.size(), values.data(), in, out,
                                 redistributeInputs, unchecked, resultTypes.size(),
                                 resultTypes.data()),
      "dtensor.local_call");
  mlirBlockAppendOwnedOperation(block.block, op);
  return {owner, op};
}

std::pair<Operation, Block> addGlobalRegion(const Block &block,
                                            const std::string &mesh,
                                            const std::vector<Value> &args,
                                            const std::vector<Type> &results) {
  const Owner &owner = block.owner;
  MlirLocation loc = callerLocation(owner.ctx());
  owner.check("the Block");
  const ContextRef &c = owner.context();
  checkSymbolName(mesh, "mesh name");
  if (regionDepth(block.block) >= hp::kMaxNestingDepth / 2)
    throw nb::value_error(("global_region nests deeper than " +
                           std::to_string(hp::kMaxNestingDepth / 2) +
                           " regions; hp could not parse the printed module")
                              .c_str());
  std::vector<MlirValue> values = raw(owner, args);
  std::vector<MlirType> resultTypes = raw(c, results);
  MlirOperation op = created(
      c,
      hpDTensorGlobalRegionOpCreate(loc, toRef(mesh), values.size(),
                                    values.data(), resultTypes.size(),
                                    resultTypes.data()),
      "dtensor.global_region");
  mlirBlockAppendOwnedOperation(block.block, op);
  return {Operation{owner, op}, Block{owner, hpDTensorGlobalRegionOpGetBody(op)}};
}

Operation addConstrain(const Block &block, const Value &value,
                       const std::vector<Attribute> &placements) {
  const Owner &owner = block.owner;
  MlirLocation loc = callerLocation(owner.ctx());
  owner.check("the Block");
  checkSameModule(owner, value.owner, "the constrained value");
  std::vector<MlirAttribute> attrs = raw(owner.context(), placements);
  MlirOperation op = created(
      owner.context(),
      hpDTensorConstrainOpCreate(loc, value.value, attrs.size(), attrs.data()),
      "dtensor.constrain");
  mlirBlockAppendOwnedOperation(block.block, op);
  return {owner, op};
}

Operation addYield(const Block &block, const std::vector<Value> &values) {
  MlirLocation loc = callerLocation(block.owner.ctx());
  block.owner.check("the Block");
  std::vector<MlirValue> operands = raw(block.owner, values);
  MlirOperation op = created(block.owner.context(),
                             hpDTensorYieldOpCreate(loc,
                                                    operands.size(), operands.data()),
                             "dtensor.yield");
  mlirBlockAppendOwnedOperation(block.block, op);
  return {block.owner, op};
}

Type dtensorType(const ContextRef &c, const std::vector<int64_t> &shape,
                 const std::string &element, const std::string &mesh,
                 const std::vector<Attribute> &placements) {
  checkSymbolName(mesh, "mesh name");
  std::vector<MlirAttribute> attrs = raw(c, placements);
  MlirType t = hpDTensorTypeGet(c->ctx, shape.size(), shape.data(), parseType(c, element),
                                toRef(mesh), attrs.size(), attrs.data());
  if (mlirTypeIsNull(t))
    c->fail("invalid dtensor type");
  c->diagnostics.clear();
  return {c, t};
}

Type localType(const Type &t, const std::vector<int64_t> &meshShape) {
  if (!hpTypeIsADTensorType(t.type))
    throw nb::value_error("not a !dtensor.tensor");
  checkMeshShape(meshShape);
  MlirType local = hpDTensorTypeGetLocalType(t.type, meshShape.size(), meshShape.data());
  if (mlirTypeIsNull(local))
    throw nb::value_error("the placement list does not have one entry per mesh dim");
  return {t.context, local};
}

void bindIR(nb::module_ &m) {
  nb::class_<Context>(m, "Context")
      .def(nb::new_([] { return std::make_shared<Context>(); }),
           "A context with every upstream and hp dialect and pass.");

  nb::class_<Attribute>(m, "Attribute")
      .def("__str__", &Attribute::str)
      .def("__repr__", [](const Attribute &a) { return "Attribute(" + a.str() + ")"; })
      .def_static("parse", [](ContextRef c, const std::string &text) {
        return Attribute{c, parseAttribute(c, text)};
      });

  nb::class_<Type>(m, "Type")
      .def("__str__", &Type::str)
      .def("__repr__", [](const Type &t) { return "Type(" + t.str() + ")"; })
      .def_static("parse", [](ContextRef c, const std::string &text) {
        return Type{c, parseType(c, text)};
      })
      .def_prop_ro("is_dtensor", [](const Type &t) { return hpTypeIsADTensorType(t.type); });

  nb::class_<Value>(m, "Value").def_prop_ro("type", &Value::type);

  nb::class_<Block>(m, "Block").def_prop_ro("arguments", &Block::arguments);

  nb::class_<Operation>(m, "Operation")
      .def_prop_ro("results", &Operation::results)
      .def_prop_ro("name", &Operation::name)
      .def("set_attribute", &Operation::setAttribute, nb::arg("name"), nb::arg("attr"))
      .def(
          "set_arg_attribute",
          [](Operation &op, intptr_t i, const std::string &n, const Attribute &a) {
            op.setFunctionAttribute(false, i, n, a);
          },
          nb::arg("index"), nb::arg("name"), nb::arg("attr"),
          "Sets argument attribute `name` of a func.func.")
      .def(
          "set_result_attribute",
          [](Operation &op, intptr_t i, const std::string &n, const Attribute &a) {
            op.setFunctionAttribute(true, i, n, a);
          },
          nb::arg("index"), nb::arg("name"), nb::arg("attr"),
          "Sets result attribute `name` of a func.func.")
      .def("__str__", &Operation::str);

  nb::class_<Module>(m, "Module")
      .def_static("parse", &parseModule, nb::arg("context"), nb::arg("text"),
                  nb::arg("filename") = "-",
                  "Parses a module (locations name `filename`); raises ValueError with the diagnostics.")
      .def_static("create", [](ContextRef c) {
        return std::make_shared<Module>(c, mlirModuleCreateEmpty(mlirLocationUnknownGet(c->ctx)));
      })
      .def("__str__", &Module::str)
      .def_prop_ro(
          "context", [](const ModuleRef &self) { return self->context; },
          "The hp.Context the module lives in.")
      .def(
          "clone",
          [](const ModuleRef &self) {
            return std::make_shared<Module>(
                self->context,
                mlirModuleFromOperation(mlirOperationClone(self->operation())));
          },
          "A copy of the module, locations included (a pipeline run on it "
          "leaves this one alone).")
      .def("verify", &Module::verify,
           "Raises ValueError with the diagnostics if invalid; returns the warnings and remarks.")
      .def("run", &Module::run, nb::arg("pipeline"),
           "Runs a pass pipeline on the module, e.g. 'hp-partition' or "
           "'builtin.module(hp-partition)'; raises ValueError with the "
           "diagnostics on failure; returns the warnings and remarks (print-plans).")
      .def(
          "import_function",
          [](const ModuleRef &self, const ModuleRef &source,
             const std::string &name, const std::string &newName) {
            if (source->context.get() != self->context.get())
              throw nb::value_error("import_function: the source module "
                                    "belongs to another hp.Context");
            ++self->generation;
            if (mlirLogicalResultIsFailure(hpModuleImportFunction(
                    self->module, source->module, toRef(name), toRef(newName))))
              self->context->fail("cannot import @" + name + " as @" + newName);
          },
          nb::arg("source"), nb::arg("name"), nb::arg("new_name"),
          "Copies function `name` of `source` into this module as `new_name`, "
          "with the meshes it uses (identical ones shared); raises "
          "ValueError with the diagnostics.")
      .def(
          "lookup",
          [](const ModuleRef &self, const std::string &symbol) {
            MlirSymbolTable table = mlirSymbolTableCreate(self->operation());
            MlirOperation op = mlirSymbolTableLookup(table, toRef(symbol));
            mlirSymbolTableDestroy(table);
            if (mlirOperationIsNull(op))
              throw nb::key_error(("no symbol @" + symbol + " in the module").c_str());
            return Operation{Owner(self), op};
          },
          nb::arg("symbol"), "The op of the module's body named `symbol`.")
      .def_prop_ro("body", [](const ModuleRef &self) {
        return Block{Owner(self), mlirModuleGetBody(self->module)};
      });
}

void bindPlacementsAndTypes(nb::module_ &m) {
  m.def("shard_attr", [](ContextRef c, int64_t dim) {
    if (dim < 0)
      throw nb::value_error(("shard dim must be non-negative, got " + std::to_string(dim)).c_str());
    MlirAttribute a = hpDTensorShardAttrGet(c->ctx, dim);
    if (mlirAttributeIsNull(a))
      c->fail("invalid shard");
    return Attribute{c, a};
  });
  m.def("strided_shard_attr", [](ContextRef c, int64_t dim, int64_t splitFactor) {
    MlirAttribute a = hpDTensorStridedShardAttrGet(c->ctx, dim, splitFactor);
    if (mlirAttributeIsNull(a))
      c->fail("invalid strided_shard");
    return Attribute{c, a};
  });
  m.def("replicate_attr", [](ContextRef c) {
    return Attribute{c, hpDTensorReplicateAttrGet(c->ctx)};
  });
  // The reduce ops' names come from the dialect (ReduceOp.h), not a list here.
  m.def("reduce_ops", [] {
    std::vector<std::string> names;
    for (int i = HPReduceSum; i <= HPReduceProd; ++i) {
      MlirStringRef name = hpDTensorReduceOpGetName(static_cast<HPReduceOp>(i));
      names.emplace_back(name.data, name.length);
    }
    return names;
  });
  m.def("partial_attr", [](ContextRef c, const std::string &op) {
    HPReduceOp reduceOp =
        hpDTensorReduceOpFromName(mlirStringRefCreate(op.data(), op.size()));
    if (reduceOp == HPReduceInvalid)
      throw nb::value_error(("unknown reduction '" + op + "'").c_str());
    return Attribute{c, hpDTensorPartialAttrGet(c->ctx, reduceOp)};
  });
  m.def("dtensor_type", &dtensorType);
  m.def("local_type", &localType);
  m.def(
      "set_location_provider",
      [](nb::object provider) {
        if (!provider.is_none() && !PyCallable_Check(provider.ptr()))
          throw nb::type_error("the location provider must be callable or None");
        Py_XDECREF(locationProvider);
        locationProvider = provider.is_none() ? nullptr : provider.release().ptr();
      },
      nb::arg("provider").none(),
      "Sets the callable that gives (file, line, column) for new ops, or None "
      "for loc(unknown).");
}

void bindBuilders(nb::module_ &m) {
  m.def("add_mesh", &addMesh, nb::arg("module"), nb::arg("name"), nb::arg("shape"),
        nb::arg("names") = nb::none());
  m.def("add_function", &addFunction, nb::arg("module"), nb::arg("name"),
        nb::arg("args"), nb::arg("results"), nb::arg("arg_names") = nb::none(),
        "Appends a func.func; `arg_names` names its arguments for local_call.");
  m.def("add_op", &addOp, nb::arg("block"), nb::arg("name"), nb::arg("operands"),
        nb::arg("results"), nb::arg("attributes") = nb::none(),
        "Appends a generic op; `attributes` is an MLIR dictionary, e.g. '{value = 1 : i64}'.");
  m.def("add_local_region", &addLocalRegion, nb::arg("block"), nb::arg("mesh"),
        nb::arg("mesh_shape"), nb::arg("args"), nb::arg("in_placements") = nb::none(),
        nb::arg("out_placements") = nb::none(), nb::arg("out_flat") = false,
        nb::arg("redistribute_inputs") = false, nb::arg("results") = std::vector<Type>{});
  m.def("add_local_call", &addLocalCall, nb::arg("block"), nb::arg("callee"),
        nb::arg("mesh"), nb::arg("args"), nb::arg("in_placements") = nb::none(),
        nb::arg("out_placements") = nb::none(), nb::arg("out_flat") = false,
        nb::arg("redistribute_inputs") = false, nb::arg("unchecked") = false,
        nb::arg("results") = std::vector<Type>{});
  m.def("add_global_region", &addGlobalRegion, nb::arg("block"),
        nb::arg("mesh"), nb::arg("args"),
        nb::arg("results") = std::vector<Type>{},
        "Appends a dtensor.global_region; returns it and its body block, whose "
        "arguments are the operands' global types.");
  m.def("add_constrain", &addConstrain, nb::arg("block"), nb::arg("value"),
        nb::arg("placements"),
        "Appends a dtensor.constrain of `value` to `placements`.");
  m.def("add_yield", &addYield);
}

} // namespace

NB_MODULE(_hp, m) {
  m.doc() = "hp's MLIR bindings over its C API";
  bindIR(m);
  bindPlacementsAndTypes(m);
  bindBuilders(m);
}
