//===- HPBuilders.cpp - _hp's IR builders ---------------------------------===//
//
// Meshes, functions, generic ops and the dtensor ops built from Python, each
// located at the Python line that builds it.
//
//===----------------------------------------------------------------------===//

#include "HPModule.h"

using namespace hpbind;

namespace {

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

MlirAttribute placementList(const ContextRef &context,
                            const std::vector<Attribute> &list) {
  std::vector<MlirAttribute> attrs = raw(context, list);
  return mlirArrayAttrGet(context->ctx, attrs.size(), attrs.data());
}

using PlacementList = std::vector<Attribute>;
using InPlacements = std::optional<
    std::vector<std::pair<std::string, std::optional<PlacementList>>>>;
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

/// `out_placements`, one list or `none` per result (null when absent).
MlirAttribute outPlacementsAttr(const ContextRef &c, const OutPlacements &out) {
  if (!out)
    return mlirAttributeGetNull();
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
  for (MlirOperation op = mlirBlockGetParentOperation(block);
       !mlirOperationIsNull(op); op = mlirOperationGetParentOperation(op))
    ++depth;
  return depth;
}

Operation addMesh(const ModuleRef &module, const std::string &name,
                  const std::vector<int64_t> &shape,
                  std::optional<std::vector<std::string>> names) {
  MlirLocation loc = callerLocation(module->context->ctx);
  Owner owner(module);
  checkSymbolName(name, "mesh name");
  checkMeshShape(shape, names ? &*names : nullptr);
  std::vector<MlirStringRef> refs;
  if (names)
    for (const std::string &n : *names) // refs point into *names
      refs.push_back(toRef(n));
  MlirOperation op = created(
      owner.context(),
      hpDTensorMeshOpCreate(loc, toRef(name), shape.size(), shape.data(),
                            names ? refs.data() : nullptr, nullptr),
      "dtensor.mesh");
  mlirBlockAppendOwnedOperation(mlirModuleGetBody(module->module), op);
  return {owner, op};
}

Block addFunction(
    const ModuleRef &module, const std::string &name,
    const std::vector<Type> &args, const std::vector<Type> &results,
    std::optional<std::vector<std::optional<std::string>>> argNames) {
  MlirLocation loc = callerLocation(module->context->ctx);
  Owner owner(module);
  checkSymbolName(name, "function name");
  if (argNames && argNames->size() != args.size())
    throw nb::value_error("arg_names needs one entry (or None) per argument");
  MlirContext ctx = owner.ctx();
  std::vector<MlirType> a = raw(owner.context(), args),
                        r = raw(owner.context(), results);
  std::vector<MlirLocation> locs(a.size(), loc);
  MlirType fnType =
      mlirFunctionTypeGet(ctx, a.size(), a.data(), r.size(), r.data());
  MlirNamedAttribute attrs[2] = {
      mlirNamedAttributeGet(
          mlirIdentifierGet(ctx, mlirStringRefCreateFromCString("sym_name")),
          mlirStringAttrGet(ctx, toRef(name))),
      mlirNamedAttributeGet(
          mlirIdentifierGet(ctx,
                            mlirStringRefCreateFromCString("function_type")),
          mlirTypeAttrGet(fnType))};
  MlirRegion body = mlirRegionCreate();
  MlirBlock entry = mlirBlockCreate(a.size(), a.data(), locs.data());
  mlirRegionAppendOwnedBlock(body, entry);
  MlirOperationState state =
      mlirOperationStateGet(mlirStringRefCreateFromCString("func.func"), loc);
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
                const std::vector<Value> &operands,
                const std::vector<Type> &results,
                std::optional<std::string> attributes) {
  const Owner &owner = block.owner;
  MlirLocation loc = callerLocation(owner.ctx());
  owner.check("the Block");
  const ContextRef &c = owner.context();
  if (name.find('.') == std::string::npos || name.front() == '.' ||
      name.back() == '.')
    throw nb::value_error(("op name '" + name + "' is not dialect.op").c_str());
  std::vector<MlirValue> ops = raw(owner, operands);
  std::vector<MlirType> types = raw(c, results);
  std::vector<MlirNamedAttribute> named;
  if (attributes) {
    MlirAttribute dict = parseAttribute(c, *attributes);
    if (!mlirAttributeIsADictionary(dict))
      throw nb::value_error(("attributes must be a dictionary such as "
                             "'{value = 1 : i64}', got '" +
                             *attributes + "'")
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
MlirType localArgType(const ContextRef &c, MlirValue value,
                      const std::string &name,
                      const std::vector<int64_t> &meshShape,
                      const InPlacements &in) {
  MlirType t = mlirValueGetType(value);
  if (!hpTypeIsADTensorType(t))
    return t;
  MlirType local =
      hpDTensorTypeGetLocalType(t, meshShape.size(), meshShape.data());
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
    MlirType declared = hpDTensorTypeGet(
        c->ctx, shape.size(), shape.data(), hpDTensorTypeGetElementType(t),
        hpDTensorTypeGetMesh(t), attrs.size(), attrs.data());
    if (mlirTypeIsNull(declared))
      c->fail("invalid in_placements for '" + name + "'");
    local =
        hpDTensorTypeGetLocalType(declared, meshShape.size(), meshShape.data());
    if (mlirTypeIsNull(local))
      c->fail("in_placements for '" + name + "' do not fit the mesh");
  }
  return local;
}

std::pair<Operation, Block>
addLocalRegion(const Block &block, const std::string &mesh,
               const std::vector<int64_t> &meshShape,
               const std::vector<std::pair<Value, std::string>> &args,
               const InPlacements &inPlacements,
               const OutPlacements &outPlacements, bool redistributeInputs,
               const std::vector<Type> &results) {
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
    blockTypes.push_back(
        localArgType(c, value.value, name, meshShape, inPlacements));
  }
  MlirAttribute in = inPlacementsAttr(c, inPlacements);
  MlirAttribute out = outPlacementsAttr(c, outPlacements);
  std::vector<MlirType> resultTypes = raw(c, results);
  MlirOperation op =
      created(c,
              hpDTensorLocalRegionOpCreate(
                  loc, toRef(mesh), values.size(), values.data(), names.data(),
                  blockTypes.data(), in, out, redistributeInputs,
                  resultTypes.size(), resultTypes.data()),
              "dtensor.local_region");
  mlirBlockAppendOwnedOperation(block.block, op);
  return {Operation{owner, op},
          Block{owner, hpDTensorLocalRegionOpGetBody(op)}};
}

Operation addLocalCall(const Block &block, const std::string &callee,
                       const std::string &mesh, const std::vector<Value> &args,
                       const InPlacements &inPlacements,
                       const OutPlacements &outPlacements,
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
  MlirAttribute out = outPlacementsAttr(c, outPlacements);
  std::vector<MlirType> resultTypes = raw(c, results);
  MlirOperation op =
      created(c,
              hpDTensorLocalCallOpCreate(
                  loc, toRef(callee), toRef(mesh), values.size(), values.data(),
                  in, out, redistributeInputs, unchecked, resultTypes.size(),
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
  MlirOperation op = created(c,
                             hpDTensorGlobalRegionOpCreate(
                                 loc, toRef(mesh), values.size(), values.data(),
                                 resultTypes.size(), resultTypes.data()),
                             "dtensor.global_region");
  mlirBlockAppendOwnedOperation(block.block, op);
  return {Operation{owner, op},
          Block{owner, hpDTensorGlobalRegionOpGetBody(op)}};
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
  MlirOperation op =
      created(block.owner.context(),
              hpDTensorYieldOpCreate(loc, operands.size(), operands.data()),
              "dtensor.yield");
  mlirBlockAppendOwnedOperation(block.block, op);
  return {block.owner, op};
}

} // namespace

void hpbind::bindBuilders(nb::module_ &m) {
  m.def(
      "set_location_provider",
      [](nb::object provider) {
        if (!provider.is_none() && !PyCallable_Check(provider.ptr()))
          throw nb::type_error(
              "the location provider must be callable or None");
        Py_XDECREF(locationProvider);
        locationProvider =
            provider.is_none() ? nullptr : provider.release().ptr();
      },
      nb::arg("provider").none(),
      "Sets the callable that gives (file, line, column) for new ops, or None "
      "for loc(unknown).");
  m.def("add_mesh", &addMesh, nb::arg("module"), nb::arg("name"),
        nb::arg("shape"), nb::arg("names") = nb::none());
  m.def("add_function", &addFunction, nb::arg("module"), nb::arg("name"),
        nb::arg("args"), nb::arg("results"), nb::arg("arg_names") = nb::none(),
        "Appends a func.func; `arg_names` names its arguments for local_call.");
  m.def("add_op", &addOp, nb::arg("block"), nb::arg("name"),
        nb::arg("operands"), nb::arg("results"),
        nb::arg("attributes") = nb::none(),
        "Appends a generic op; `attributes` is an MLIR dictionary, e.g. "
        "'{value = 1 : i64}'.");
  m.def("add_local_region", &addLocalRegion, nb::arg("block"), nb::arg("mesh"),
        nb::arg("mesh_shape"), nb::arg("args"),
        nb::arg("in_placements") = nb::none(),
        nb::arg("out_placements") = nb::none(),
        nb::arg("redistribute_inputs") = false,
        nb::arg("results") = std::vector<Type>{});
  m.def("add_local_call", &addLocalCall, nb::arg("block"), nb::arg("callee"),
        nb::arg("mesh"), nb::arg("args"), nb::arg("in_placements") = nb::none(),
        nb::arg("out_placements") = nb::none(),
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
