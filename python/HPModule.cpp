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
// argument raises a Python exception naming it before it reaches the C API
// (which checks its arguments too, hp-c/DTensor.h, but can only answer with
// a diagnostic and a null handle).
//
// Files: HPModule.h (the handles), HPModule.cpp (contexts, modules,
// pipelines, placements and types), HPBuilders.cpp (IR builders),
// HPCollectives.cpp (what a partitioned module moves).
//
//===----------------------------------------------------------------------===//

#include "HPModule.h"

#include "hp-c/Diagnostics.h"
#include "hp-c/PlacementRules.h"
#include "hp/Runtime/Runtime.h"

using namespace hpbind;

namespace {

/// The runtime ABI's names (hp/Runtime/Runtime.h) for Python, which never
/// spells them itself: the functions a driver calls (each name checked to be
/// a declared function, without linking to it), the file names of tensor
/// and session directories and the environment variables.
nb::dict runtimeAbi() {
#define HP_ABI_NAME(FN) ((void)sizeof(&FN), #FN)
  nb::dict abi;
  abi["driver_functions"] = std::vector<std::string>{
      HP_ABI_NAME(hp_read_tensor),  HP_ABI_NAME(hp_read_tensor_block),
      HP_ABI_NAME(hp_write_tensor), HP_ABI_NAME(rtclock),
      HP_ABI_NAME(hp_session_next), HP_ABI_NAME(hp_session_done),
      HP_ABI_NAME(hp_session_entry)};
#undef HP_ABI_NAME
  abi["argument_prefix"] = HP_ARGUMENT_PREFIX;
  abi["result_prefix"] = HP_RESULT_PREFIX;
  abi["tensor_suffix"] = HP_TENSOR_SUFFIX;
  abi["reference_suffix"] = HP_REFERENCE_SUFFIX;
  abi["partial_suffix"] = HP_PARTIAL_SUFFIX;
  abi["requests"] = HP_SESSION_REQUESTS;
  abi["replies"] = HP_SESSION_REPLIES;
  abi["staging_suffix"] = HP_SESSION_STAGING_SUFFIX;
  abi["peak_memory_file"] = HP_SESSION_PEAK_MEMORY_FILE;
  abi["env_tensor_dir"] = HP_ENV_TENSOR_DIR;
  abi["env_session_calls"] = HP_ENV_SESSION_CALLS;
  abi["env_session_client"] = HP_ENV_SESSION_CLIENT;
  abi["env_session_remove_dir"] = HP_ENV_SESSION_REMOVE_DIR;
  return abi;
}

/// The file position and the first name a location holds: a named location
/// gives its name and its child's position, a call site its callee's, a
/// fusion its first part that has one (hp.torch names each op's location
/// after the torch op, around the user's line).
bool filePosition(MlirLocation loc, std::string &where, std::string &name) {
  if (mlirLocationIsAFileLineColRange(loc)) {
    MlirStringRef file =
        mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(loc));
    where.assign(file.data, file.length);
    where +=
        ":" + std::to_string(mlirLocationFileLineColRangeGetStartLine(loc)) +
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

/// `diag` as a record: its parts ("file:line:col", the severity, "[name: ]
/// message") and hp's facts about it.
Diagnostic recordDiagnostic(MlirDiagnostic diag) {
  Diagnostic d;
  mlirDiagnosticPrint(diag, appendTo, &d.message);
  std::string name;
  MlirLocation loc = mlirDiagnosticGetLocation(diag);
  if (!filePosition(loc, d.location, name)) {
    d.location.clear();
    mlirLocationPrint(loc, appendTo, &d.location);
  } else if (!name.empty()) {
    d.message = name + ": " + d.message;
  }
  d.severity = "error";
  switch (mlirDiagnosticGetSeverity(diag)) {
  case MlirDiagnosticWarning:
    d.severity = "warning";
    break;
  case MlirDiagnosticNote:
    d.severity = "note";
    break;
  case MlirDiagnosticRemark:
    d.severity = "remark";
    break;
  default:
    break;
  }
  auto text = [](MlirStringRef s) { return std::string(s.data, s.length); };
  d.kind = text(hpDiagnosticGetKind(diag));
  d.op = text(hpDiagnosticGetOpName(diag));
  d.parameter = text(hpDiagnosticGetParameter(diag));
  return d;
}

} // namespace

hpbind::Context::Context() {
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
            recordDiagnostic(diag));
        return mlirLogicalResultSuccess();
      },
      this, nullptr);
}

namespace {

/// Whether `pipeline` reads as one pipeline anchored on builtin.module:
/// `builtin.module(...)`, spaces aside (MLIR's own split: the name before
/// the first parenthesis, the text ending with the closing one).
bool anchoredOnModule(const std::string &pipeline) {
  llvm::StringRef text = llvm::StringRef(pipeline).trim();
  size_t open = text.find('(');
  return open != llvm::StringRef::npos && text.ends_with(")") &&
         text.take_front(open).rtrim() == "builtin.module";
}

/// A pass manager on builtin.module running `pipeline`, read by MLIR's
/// parser: as a whole anchored pipeline where it is one
/// (`builtin.module(hp-partition)`, the C API's and hp-opt's spelling), else
/// as the passes of one (`hp-partition`, `func.func(canonicalize)`,
/// `builtin.module(cse),cse`); null, with MLIR's error, when it is neither.
/// Wrapping an anchored pipeline in a second anchor would nest a module pass
/// manager that finds no module and does nothing.
MlirPassManager parsePipeline(MlirContext ctx, const std::string &pipeline,
                              std::string &error) {
  bool anchoredFirst = anchoredOnModule(pipeline);
  for (bool anchored : {true, false}) {
    if (anchored && !anchoredFirst)
      continue;
    MlirPassManager pm = mlirPassManagerCreateOnOperation(
        ctx, mlirStringRefCreateFromCString("builtin.module"));
    MlirOpPassManager opm = mlirPassManagerGetAsOpPassManager(pm);
    std::string why;
    MlirLogicalResult parsed =
        anchored ? mlirParsePassPipeline(opm, toRef(pipeline), appendTo, &why)
                 : mlirOpPassManagerAddPipeline(opm, toRef(pipeline), appendTo,
                                                &why);
    if (mlirLogicalResultIsSuccess(parsed))
      return pm;
    mlirPassManagerDestroy(pm);
    // An anchored pipeline's own error says most.
    if (error.empty())
      error = why;
  }
  return {nullptr};
}

} // namespace

std::vector<Diagnostic> hpbind::Module::run(const std::string &pipeline) {
  checkNesting(pipeline, "pipeline");
  // Passes assume valid input; a module built op by op may not be.
  if (!mlirOperationVerify(operation()))
    context->fail("module does not verify; the pipeline was not run");
  std::string error;
  MlirPassManager pm = parsePipeline(context->ctx, pipeline, error);
  if (!pm.ptr)
    context->fail("invalid pass pipeline '" + pipeline + "': " + error);
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

ModuleRef hpbind::parseModule(ContextRef context, const std::string &text,
                              const std::string &filename) {
  checkNesting(text, filename.c_str());
  // The file name goes into every location, so diagnostics name the file.
  MlirModule m =
      hpModuleCreateParseNamed(context->ctx, toRef(text), toRef(filename));
  if (mlirModuleIsNull(m))
    context->fail("cannot parse the module");
  context->diagnostics.clear();
  return std::make_shared<Module>(context, m);
}

MlirType hpbind::parseType(const ContextRef &context, const std::string &text) {
  checkNesting(text, "type");
  MlirType t = mlirTypeParseGet(context->ctx, toRef(text));
  if (mlirTypeIsNull(t))
    context->fail("cannot parse type '" + text + "'");
  return t;
}

MlirAttribute hpbind::parseAttribute(const ContextRef &context,
                                     const std::string &text) {
  checkNesting(text, "attribute");
  MlirAttribute a = mlirAttributeParseGet(context->ctx, toRef(text));
  if (mlirAttributeIsNull(a))
    context->fail("cannot parse attribute '" + text + "'");
  return a;
}

namespace {

/// A DTensor's element type: an hp.Type of this context, or a scalar type's
/// name, built by its C API constructor (no MLIR text is parsed).
MlirType elementType(const ContextRef &c, const nb::object &element) {
  if (nb::isinstance<Type>(element)) {
    const Type &t = nb::cast<const Type &>(element);
    checkContext(c, t.context, "the element Type");
    return t.type;
  }
  if (!nb::isinstance<nb::str>(element))
    throw nb::type_error("element type must be an hp.Type or a name");
  std::string name = nb::cast<std::string>(element);
  MlirContext ctx = c->ctx;
  if (name == "f16")
    return mlirF16TypeGet(ctx);
  if (name == "bf16")
    return mlirBF16TypeGet(ctx);
  if (name == "f32")
    return mlirF32TypeGet(ctx);
  if (name == "f64")
    return mlirF64TypeGet(ctx);
  if (name == "index")
    return mlirIndexTypeGet(ctx);
  for (unsigned width : {1u, 8u, 16u, 32u, 64u})
    if (name == "i" + std::to_string(width))
      return mlirIntegerTypeGet(ctx, width);
  throw nb::value_error(("element type must be one of f16, bf16, f32, f64, "
                         "i1, i8, i16, i32, i64, index or an hp.Type, got '" +
                         name + "'")
                            .c_str());
}

Type dtensorType(const ContextRef &c, const std::vector<int64_t> &shape,
                 const nb::object &element, const std::string &mesh,
                 const std::vector<Attribute> &placements) {
  checkSymbolName(mesh, "mesh name");
  std::vector<MlirAttribute> attrs = raw(c, placements);
  MlirType t = hpDTensorTypeGet(c->ctx, shape.size(), shape.data(),
                                elementType(c, element), toRef(mesh),
                                attrs.size(), attrs.data());
  if (mlirTypeIsNull(t))
    c->fail("invalid dtensor type");
  c->diagnostics.clear();
  return {c, t};
}

Type localType(const Type &t, const std::vector<int64_t> &meshShape) {
  if (!hpTypeIsADTensorType(t.type))
    throw nb::value_error("not a !dtensor.tensor");
  checkMeshShape(meshShape);
  MlirType local =
      hpDTensorTypeGetLocalType(t.type, meshShape.size(), meshShape.data());
  if (mlirTypeIsNull(local))
    throw nb::value_error(
        "the placement list does not have one entry per mesh dim");
  return {t.context, local};
}

/// `diagnostics` as hp.Diagnostic objects (python/hp/_diagnostics.py: a str
/// with its parts, so that text checks written before it still read it).
nb::list toPython(const std::vector<Diagnostic> &diagnostics) {
  nb::object make = nb::module_::import_("hp._diagnostics").attr("Diagnostic");
  nb::list out;
  for (const Diagnostic &d : diagnostics)
    out.append(
        make(d.severity, d.location, d.message, d.kind, d.op, d.parameter));
  return out;
}

/// Sets a placement list through `set` (an hpFuncSet... call), raising
/// ValueError with the C API's diagnostics when it refuses.
template <typename Set>
void setPlacementList(Operation &op, const std::vector<Attribute> &placements,
                      Set set) {
  op.owner.check("this Operation");
  ContextRef c = op.owner.context();
  std::vector<MlirAttribute> attrs = raw(c, placements);
  MlirAttribute list = mlirArrayAttrGet(c->ctx, attrs.size(), attrs.data());
  if (!set(list))
    c->fail("cannot set the placements");
}

void bindIR(nb::module_ &m) {
  nb::class_<Context>(m, "Context")
      .def(nb::new_([] { return std::make_shared<Context>(); }),
           "A context with every upstream and hp dialect and pass.");

  nb::class_<Attribute>(m, "Attribute")
      .def("__str__", &Attribute::str)
      .def("__repr__",
           [](const Attribute &a) { return "Attribute(" + a.str() + ")"; })
      .def_static("parse", [](ContextRef c, const std::string &text) {
        return Attribute{c, parseAttribute(c, text)};
      });

  nb::class_<Type>(m, "Type")
      .def("__str__", &Type::str)
      .def("__repr__", [](const Type &t) { return "Type(" + t.str() + ")"; })
      .def_static("parse",
                  [](ContextRef c, const std::string &text) {
                    return Type{c, parseType(c, text)};
                  })
      .def_prop_ro("is_dtensor",
                   [](const Type &t) { return hpTypeIsADTensorType(t.type); });

  nb::class_<Value>(m, "Value").def_prop_ro("type", &Value::type);

  nb::class_<Block>(m, "Block").def_prop_ro("arguments", &Block::arguments);

  nb::class_<Operation>(m, "Operation")
      .def_prop_ro("results", &Operation::results)
      .def_prop_ro("name", &Operation::name)
      .def("set_attribute", &Operation::setAttribute, nb::arg("name"),
           nb::arg("attr"))
      .def(
          "set_arg_attribute",
          [](Operation &op, intptr_t i, const std::string &n,
             const Attribute &a) { op.setFunctionAttribute(false, i, n, a); },
          nb::arg("index"), nb::arg("name"), nb::arg("attr"),
          "Sets argument attribute `name` of a func.func.")
      .def(
          "set_result_attribute",
          [](Operation &op, intptr_t i, const std::string &n,
             const Attribute &a) { op.setFunctionAttribute(true, i, n, a); },
          nb::arg("index"), nb::arg("name"), nb::arg("attr"),
          "Sets result attribute `name` of a func.func.")
      .def(
          "set_mesh",
          [](Operation &op, const std::string &mesh) {
            op.owner.check("this Operation");
            checkSymbolName(mesh, "mesh name");
            if (!hpFuncSetMesh(op.op, toRef(mesh)))
              op.owner.context()->fail("cannot set the function's mesh");
          },
          nb::arg("mesh"),
          "Sets `dtensor.mesh = @mesh` on a function (its global view's "
          "mesh).")
      .def(
          "set_arg_placements",
          [](Operation &op, intptr_t i, const std::vector<Attribute> &ps) {
            setPlacementList(op, ps, [&](MlirAttribute list) {
              return hpFuncSetArgPlacements(op.op, i, list);
            });
          },
          nb::arg("index"), nb::arg("placements"),
          "Sets `dtensor.placements` of argument `index` of a function to "
          "the placement attributes `placements`, one per mesh dim.")
      .def(
          "set_result_placements",
          [](Operation &op, intptr_t i, const std::vector<Attribute> &ps) {
            setPlacementList(op, ps, [&](MlirAttribute list) {
              return hpFuncSetResultPlacements(op.op, i, list);
            });
          },
          nb::arg("index"), nb::arg("placements"),
          "Sets `dtensor.placements` of result `index` of a function.")
      .def(
          "set_result_constrain",
          [](Operation &op, intptr_t i, const std::vector<Attribute> &ps) {
            setPlacementList(op, ps, [&](MlirAttribute list) {
              return hpFuncSetResultConstrain(op.op, i, list);
            });
          },
          nb::arg("index"), nb::arg("placements"),
          "Sets `dtensor.constrain` of result `index` of a function (a "
          "layout the value takes inside, not at the boundary).")
      .def(
          "set_arg_name",
          [](Operation &op, intptr_t i, const std::string &name) {
            op.owner.check("this Operation");
            if (!hpFuncSetArgName(op.op, i, toRef(name)))
              op.owner.context()->fail("cannot name the argument");
          },
          nb::arg("index"), nb::arg("name"),
          "Names argument `index` of a function (`dtensor.arg_name`: a "
          "parameter's name, which warnings quote), any text.")
      .def(
          "set_arg_fsdp_axes",
          [](Operation &op, intptr_t i, const std::vector<int64_t> &axes) {
            op.owner.check("this Operation");
            if (!hpFuncSetArgFsdpAxes(op.op, i, axes.size(), axes.data()))
              op.owner.context()->fail("cannot set the argument's FSDP axes");
          },
          nb::arg("index"), nb::arg("axes"),
          "Sets `dtensor.fsdp_axes` of argument `index` of a function: the "
          "mesh dims FSDP splits it along.")
      .def("__str__", &Operation::str);

  nb::class_<Module>(m, "Module")
      .def_static("parse", &parseModule, nb::arg("context"), nb::arg("text"),
                  nb::arg("filename") = "-",
                  "Parses a module (locations name `filename`); raises "
                  "ValueError with the diagnostics.")
      .def_static("create",
                  [](ContextRef c) {
                    return std::make_shared<Module>(
                        c,
                        mlirModuleCreateEmpty(mlirLocationUnknownGet(c->ctx)));
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
      .def(
          "verify",
          [](const ModuleRef &self) { return toPython(self->verify()); },
          "Raises ValueError with the diagnostics if invalid; returns the "
          "warnings and remarks (hp.Diagnostic).")
      .def(
          "run",
          [](const ModuleRef &self, const std::string &pipeline) {
            return toPython(self->run(pipeline));
          },
          nb::arg("pipeline"),
          "Runs a pass pipeline on the module, e.g. 'hp-partition' or "
          "'builtin.module(hp-partition)'; raises ValueError with the "
          "diagnostics on failure; returns the warnings and remarks "
          "(hp.Diagnostic: print-plans, runs-replicated, gathers-whole).")
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
              throw nb::key_error(
                  ("no symbol @" + symbol + " in the module").c_str());
            return Operation{Owner(self), op};
          },
          nb::arg("symbol"), "The op of the module's body named `symbol`.")
      .def_prop_ro("body", [](const ModuleRef &self) {
        return Block{Owner(self), mlirModuleGetBody(self->module)};
      });
}

/// A placement list (an array attribute) as its placements.
std::vector<Attribute> placementsOf(const ContextRef &c, MlirAttribute list) {
  if (mlirAttributeIsNull(list))
    c->fail("the placement rule refused its arguments");
  std::vector<Attribute> out;
  for (intptr_t i = 0, e = mlirArrayAttrGetNumElements(list); i < e; ++i)
    out.push_back(Attribute{c, mlirArrayAttrGetElement(list, i)});
  return out;
}

MlirAttribute listOf(const ContextRef &c, const std::vector<Attribute> &ps) {
  std::vector<MlirAttribute> attrs = raw(c, ps);
  return mlirArrayAttrGet(c->ctx, attrs.size(), attrs.data());
}

/// The placement rules of hp-c/PlacementRules.h, and a placement attribute
/// as a tuple hp's Placement classes are built from.
void bindPlacementRules(nb::module_ &m) {
  m.def(
      "placement_parts",
      [](const Attribute &a) -> nb::tuple {
        if (hpAttributeIsADTensorShardAttr(a.attr))
          return nb::make_tuple("shard", hpDTensorShardAttrGetDim(a.attr));
        if (hpAttributeIsADTensorStridedShardAttr(a.attr))
          return nb::make_tuple(
              "strided_shard", hpDTensorStridedShardAttrGetDim(a.attr),
              hpDTensorStridedShardAttrGetSplitFactor(a.attr));
        if (hpAttributeIsADTensorPartialAttr(a.attr)) {
          MlirStringRef name =
              hpDTensorReduceOpGetName(hpDTensorPartialAttrGetReduceOp(a.attr));
          return nb::make_tuple("partial", std::string(name.data, name.length));
        }
        if (hpAttributeIsADTensorReplicateAttr(a.attr))
          return nb::make_tuple("replicate");
        throw nb::value_error(("not a placement: " + a.str()).c_str());
      },
      nb::arg("placement"),
      "('shard', dim), ('strided_shard', dim, split_factor), "
      "('partial', reduction) or ('replicate',).");
  m.def(
      "fsdp_split",
      [](ContextRef c, const std::vector<Attribute> &ps, int64_t rank,
         int64_t meshDim) {
        return placementsOf(
            c, hpPlacementsFsdpSplit(listOf(c, ps), rank, meshDim));
      },
      nb::arg("context"), nb::arg("placements"), nb::arg("rank"),
      nb::arg("mesh_dim"), "hpPlacementsFsdpSplit.");
  m.def(
      "optimizer_state_placements",
      [](ContextRef c, const std::vector<Attribute> &ps,
         const std::vector<int64_t> &paramShape,
         const std::vector<int64_t> &stateShape) {
        return placementsOf(c, hpPlacementsOfOptimizerState(
                                   listOf(c, ps), paramShape.size(),
                                   paramShape.data(), stateShape.size(),
                                   stateShape.data()));
      },
      nb::arg("context"), nb::arg("placements"), nb::arg("param_shape"),
      nb::arg("state_shape"), "hpPlacementsOfOptimizerState.");
  m.def(
      "placements_from_inputs",
      [](ContextRef c, const std::vector<std::vector<Attribute>> &inputs,
         int64_t rank, int64_t meshRank, int64_t fixedDim) {
        std::vector<MlirAttribute> lists;
        for (const std::vector<Attribute> &ps : inputs)
          lists.push_back(listOf(c, ps));
        return placementsOf(c, hpPlacementsFromInputs(c->ctx, lists.size(),
                                                      lists.data(), rank,
                                                      meshRank, fixedDim));
      },
      nb::arg("context"), nb::arg("inputs"), nb::arg("rank"),
      nb::arg("mesh_rank"), nb::arg("fixed_dim") = -1,
      "hpPlacementsFromInputs.");
}

/// The reduce op named `op`; a ValueError for an unknown name.
static HPReduceOp reduceOpNamed(const std::string &op) {
  HPReduceOp reduceOp =
      hpDTensorReduceOpFromName(mlirStringRefCreate(op.data(), op.size()));
  if (reduceOp == HPReduceInvalid)
    throw nb::value_error(("unknown reduction '" + op + "'").c_str());
  return reduceOp;
}

void bindPlacementsAndTypes(nb::module_ &m) {
  bindPlacementRules(m);
  m.def("shard_attr", [](ContextRef c, int64_t dim) {
    if (dim < 0)
      throw nb::value_error(
          ("shard dim must be non-negative, got " + std::to_string(dim))
              .c_str());
    MlirAttribute a = hpDTensorShardAttrGet(c->ctx, dim);
    if (mlirAttributeIsNull(a))
      c->fail("invalid shard");
    return Attribute{c, a};
  });
  m.def("strided_shard_attr", [](ContextRef c, int64_t dim,
                                 int64_t splitFactor) {
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
  // A reduce op's value: how an op stores it as an integer (dtensor.scan's
  // kind in the generic form, which hp.torch builds in torch-mlir's context).
  m.def("reduce_op_value", [](const std::string &op) {
    return static_cast<int>(reduceOpNamed(op));
  });
  m.def("partial_attr", [](ContextRef c, const std::string &op) {
    return Attribute{c, hpDTensorPartialAttrGet(c->ctx, reduceOpNamed(op))};
  });
  m.def(
      "check_symbol_name",
      [](const std::string &name, const std::string &what) {
        checkSymbolName(name, what.c_str());
      },
      nb::arg("name"), nb::arg("what"),
      "Raises ValueError unless `name` is a symbol name hp takes "
      "(hp/Support/SymbolName.h).");
  m.def(
      "check_mesh",
      [](const std::vector<nb::int_> &sizes,
         std::optional<std::vector<std::string>> names) {
        // Python ints are unbounded; a size past int64 is a bad value, not
        // a wrong type.
        std::vector<int64_t> shape;
        for (const nb::int_ &size : sizes) {
          int64_t value;
          if (!nb::try_cast(size, value))
            throw nb::value_error(("mesh size " +
                                   std::string(nb::str(size).c_str()) +
                                   " does not fit in 64 bits")
                                      .c_str());
          shape.push_back(value);
        }
        checkMeshShape(shape, names ? &*names : nullptr);
      },
      nb::arg("shape"), nb::arg("names") = nb::none(),
      "Raises ValueError unless `shape` (and its axis `names`) make a mesh "
      "(hp/Support/MeshShape.h).");
  m.def(
      "launcher_owned_flag",
      [](const std::vector<std::string> &args) {
        return hp::launcherOwnedFlag(args);
      },
      nb::arg("args"),
      "The first of hp-runner's arguments `args` that sets the rank count, "
      "where ranks run or the entry point (hp/Support/LaunchFlags.h), or "
      "None.");
  m.def("runtime_abi", &runtimeAbi,
        "The names of the runtime's C ABI (hp/Runtime/Runtime.h): the "
        "functions a driver calls, tensor and session file names and "
        "environment variables, as a dict.");
  m.def("dtensor_type", &dtensorType);
  m.def("local_type", &localType);
}

} // namespace

NB_MODULE(_hp, m) {
  m.doc() = "hp's MLIR bindings over its C API";
  bindIR(m);
  bindPlacementsAndTypes(m);
  bindBuilders(m);
  bindCollectives(m);
}
