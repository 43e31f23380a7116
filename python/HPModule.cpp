//===- HPModule.cpp - the _hp Python extension, over hp's C API -----------===//
//
// MLIR's Python package is not shipped by Debian, so hp carries its own small
// binding over the C API: contexts with every dialect and pass registered,
// parsing and printing, pass pipelines with diagnostics turned into
// exceptions, placement attributes and DTensor types, and a builder for
// meshes, functions, generic ops and local_region ops.
//
//===----------------------------------------------------------------------===//

#include "hp-c/DTensor.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
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

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace nb = nanobind;

namespace {

MlirStringRef toRef(const std::string &s) {
  return mlirStringRefCreate(s.data(), s.size());
}

void appendTo(MlirStringRef s, void *out) {
  static_cast<std::string *>(out)->append(s.data, s.length);
}

/// Python callable giving (file, line, column) of the user code that is
/// building IR; set by the hp package. Leaked on purpose: it must outlive
/// every static destructor that could run after the interpreter is gone.
PyObject *locationProvider = nullptr;

/// Where the Python caller is, so that ops built from Python point at the
/// line that built them (diagnostics, print-plans) instead of loc(unknown).
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

/// Owns an MlirContext; every other object keeps it alive.
struct Context {
  MlirContext ctx;
  std::vector<std::string> diagnostics;
  MlirDiagnosticHandlerID handler;

  Context() {
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
          std::string text;
          mlirDiagnosticPrint(diag, appendTo, &text);
          // file:line:col, as compilers print it; other locations as MLIR does.
          std::string where;
          MlirLocation loc = mlirDiagnosticGetLocation(diag);
          if (mlirLocationIsAFileLineColRange(loc)) {
            MlirIdentifier file = mlirLocationFileLineColRangeGetFilename(loc);
            MlirStringRef name = mlirIdentifierStr(file);
            where.assign(name.data, name.length);
            where += ":" + std::to_string(mlirLocationFileLineColRangeGetStartLine(loc)) +
                     ":" + std::to_string(mlirLocationFileLineColRangeGetStartColumn(loc));
          } else {
            mlirLocationPrint(loc, appendTo, &where);
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
          static_cast<Context *>(self)->diagnostics.push_back(
              where + ": " + severity + ": " + text);
          return mlirLogicalResultSuccess();
        },
        this, nullptr);
  }
  ~Context() {
    mlirContextDetachDiagnosticHandler(ctx, handler);
    mlirContextDestroy(ctx);
  }

  /// Raises hp.MLIRError with the collected diagnostics.
  [[noreturn]] void fail(const std::string &what) {
    std::string message = what;
    for (const std::string &d : diagnostics)
      message += "\n" + d;
    diagnostics.clear();
    throw nb::value_error(message.c_str());
  }
};
using ContextRef = std::shared_ptr<Context>;

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

struct Value {
  ContextRef context;
  MlirValue value;
  Type type() const { return {context, mlirValueGetType(value)}; }
};

struct Block {
  ContextRef context;
  MlirBlock block;
  std::vector<Value> arguments() const {
    std::vector<Value> args;
    for (intptr_t i = 0, e = mlirBlockGetNumArguments(block); i < e; ++i)
      args.push_back({context, mlirBlockGetArgument(block, i)});
    return args;
  }
};

struct Operation {
  ContextRef context;
  MlirOperation op;
  std::vector<Value> results() const {
    std::vector<Value> out;
    for (intptr_t i = 0, e = mlirOperationGetNumResults(op); i < e; ++i)
      out.push_back({context, mlirOperationGetResult(op, i)});
    return out;
  }
  std::string str() const {
    std::string s;
    mlirOperationPrint(op, appendTo, &s);
    return s;
  }
};

struct Module {
  ContextRef context;
  MlirModule module;
  Module(ContextRef c, MlirModule m) : context(std::move(c)), module(m) {}
  ~Module() { mlirModuleDestroy(module); }

  MlirOperation operation() const { return mlirModuleGetOperation(module); }
  Block body() const { return {context, mlirModuleGetBody(module)}; }
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
  std::vector<std::string> run(const std::string &pipeline) {
    MlirPassManager pm = mlirPassManagerCreate(context->ctx);
    std::string error;
    std::string anchored = "builtin.module(" + pipeline + ")";
    MlirLogicalResult parsed = mlirParsePassPipeline(
        mlirPassManagerGetAsOpPassManager(pm), toRef(anchored), appendTo,
        &error);
    if (mlirLogicalResultIsFailure(parsed)) {
      mlirPassManagerDestroy(pm);
      context->fail("invalid pass pipeline '" + pipeline + "': " + error);
    }
    MlirLogicalResult ran = mlirPassManagerRunOnOp(pm, operation());
    mlirPassManagerDestroy(pm);
    if (mlirLogicalResultIsFailure(ran))
      context->fail("pipeline '" + pipeline + "' failed");
    return takeDiagnostics();
  }
};

std::shared_ptr<Module> parseModule(ContextRef context, const std::string &text,
                                    const std::string &filename) {
  // The file name goes into every location, so diagnostics name the file.
  MlirModule m = hpModuleCreateParseNamed(context->ctx, toRef(text),
                                          toRef(filename));
  if (mlirModuleIsNull(m))
    context->fail("cannot parse the module");
  context->diagnostics.clear();
  return std::make_shared<Module>(context, m);
}

MlirType parseType(ContextRef context, const std::string &text) {
  MlirType t = mlirTypeParseGet(context->ctx, toRef(text));
  if (mlirTypeIsNull(t))
    context->fail("cannot parse type '" + text + "'");
  return t;
}

/// The C API handles of a list of wrapped objects.
std::vector<MlirType> raw(const std::vector<Type> &types) {
  std::vector<MlirType> out;
  for (const Type &t : types)
    out.push_back(t.type);
  return out;
}
std::vector<MlirValue> raw(const std::vector<Value> &values) {
  std::vector<MlirValue> out;
  for (const Value &v : values)
    out.push_back(v.value);
  return out;
}
std::vector<MlirAttribute> raw(const std::vector<Attribute> &attributes) {
  std::vector<MlirAttribute> out;
  for (const Attribute &a : attributes)
    out.push_back(a.attr);
  return out;
}

MlirAttribute parseAttribute(ContextRef context, const std::string &text) {
  MlirAttribute a = mlirAttributeParseGet(context->ctx, toRef(text));
  if (mlirAttributeIsNull(a))
    context->fail("cannot parse attribute '" + text + "'");
  return a;
}

MlirAttribute placementList(ContextRef context,
                            const std::vector<Attribute> &list) {
  std::vector<MlirAttribute> attrs = raw(list);
  return mlirArrayAttrGet(context->ctx, attrs.size(), attrs.data());
}

using InPlacements =
    std::optional<std::vector<std::pair<std::string, std::optional<std::vector<Attribute>>>>>;
using OutPlacements = std::optional<std::vector<std::optional<std::vector<Attribute>>>>;

/// `in_placements` as a dictionary (null when absent); `none` is unit.
MlirAttribute inPlacementsAttr(ContextRef c, const InPlacements &in) {
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
MlirAttribute outPlacementsAttr(ContextRef c, const OutPlacements &out,
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

} // namespace

NB_MODULE(_hp, m) {
  m.doc() = "hp's MLIR bindings over its C API";

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
      .def("__str__", &Operation::str);

  nb::class_<Module>(m, "Module")
      .def_static("parse", &parseModule, nb::arg("context"), nb::arg("text"),
                  nb::arg("filename") = "-",
                  "Parses a module (locations name `filename`); raises ValueError with the diagnostics.")
      .def_static("create", [](ContextRef c) {
        return std::make_shared<Module>(c, mlirModuleCreateEmpty(mlirLocationUnknownGet(c->ctx)));
      })
      .def("__str__", &Module::str)
      .def("verify", &Module::verify,
           "Raises ValueError with the diagnostics if invalid; returns the warnings and remarks.")
      .def("run", &Module::run, nb::arg("pipeline"),
           "Runs a pass pipeline on the module, e.g. 'hp-partition'; raises "
           "ValueError with the diagnostics on failure; returns the warnings and remarks (print-plans).")
      .def_prop_ro("body", &Module::body);

  // Placements and types.
  m.def("shard_attr", [](ContextRef c, int64_t dim) {
    return Attribute{c, hpDTensorShardAttrGet(c->ctx, dim)};
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
  m.def("partial_attr", [](ContextRef c, const std::string &op) {
    static const char *names[] = {"sum", "avg", "max", "min", "prod"};
    for (int i = 0; i < 5; ++i)
      if (op == names[i])
        return Attribute{c, hpDTensorPartialAttrGet(c->ctx, static_cast<HPReduceOp>(i))};
    throw nb::value_error(("unknown reduction '" + op + "' (sum, avg, max, min, prod)").c_str());
  });
  m.def("dtensor_type",
        [](ContextRef c, const std::vector<int64_t> &shape, const std::string &element,
           const std::string &mesh, const std::vector<Attribute> &placements) {
          std::vector<MlirAttribute> attrs = raw(placements);
          MlirType t = hpDTensorTypeGet(c->ctx, shape.size(), shape.data(),
                                        parseType(c, element), toRef(mesh), attrs.size(),
                                        attrs.data());
          if (mlirTypeIsNull(t))
            c->fail("invalid dtensor type");
          c->diagnostics.clear();
          return Type{c, t};
        });
  m.def(
      "set_location_provider",
      [](nb::object provider) {
        Py_XDECREF(locationProvider);
        locationProvider = provider.is_none() ? nullptr : provider.release().ptr();
      },
      "Sets the callable that gives (file, line, column) for new ops, or None "
      "for loc(unknown).");
  m.def("local_type", [](const Type &t, const std::vector<int64_t> &meshShape) {
    if (!hpTypeIsADTensorType(t.type))
      throw nb::value_error("not a !dtensor.tensor");
    MlirType local = hpDTensorTypeGetLocalType(t.type, meshShape.size(), meshShape.data());
    if (mlirTypeIsNull(local))
      throw nb::value_error("the placement list does not have one entry per mesh dim");
    return Type{t.context, local};
  });

  // Building.
  m.def("add_mesh",
        [](Module &module, const std::string &name, const std::vector<int64_t> &shape,
           std::optional<std::vector<std::string>> names) {
          std::vector<MlirStringRef> refs;
          if (names)
            for (const std::string &n : *names)
              refs.push_back(toRef(n));
          MlirOperation op = hpDTensorMeshOpCreate(
              callerLocation(module.context->ctx), toRef(name), shape.size(),
              shape.data(), names ? refs.data() : nullptr, nullptr);
          mlirBlockAppendOwnedOperation(mlirModuleGetBody(module.module), op);
          return Operation{module.context, op};
        },
        nb::arg("module"), nb::arg("name"), nb::arg("shape"), nb::arg("names") = nb::none());
  m.def("add_function",
        [](Module &module, const std::string &name, const std::vector<Type> &args,
           const std::vector<Type> &results,
           std::optional<std::vector<std::optional<std::string>>> argNames) {
          MlirContext ctx = module.context->ctx;
          MlirLocation loc = callerLocation(ctx);
          std::vector<MlirType> a = raw(args), r = raw(results);
          std::vector<MlirLocation> locs(a.size(), loc);
          MlirType fnType = mlirFunctionTypeGet(ctx, a.size(), a.data(), r.size(), r.data());
          MlirNamedAttribute attrs[2] = {
              mlirNamedAttributeGet(mlirIdentifierGet(ctx, toRef("sym_name")),
                                    mlirStringAttrGet(ctx, toRef(name))),
              mlirNamedAttributeGet(mlirIdentifierGet(ctx, toRef("function_type")),
                                    mlirTypeAttrGet(fnType))};
          MlirRegion body = mlirRegionCreate();
          MlirBlock entry = mlirBlockCreate(a.size(), a.data(), locs.data());
          mlirRegionAppendOwnedBlock(body, entry);
          MlirOperationState state = mlirOperationStateGet(toRef("func.func"), loc);
          mlirOperationStateAddAttributes(&state, 2, attrs);
          mlirOperationStateAddOwnedRegions(&state, 1, &body);
          MlirOperation fn = mlirOperationCreate(&state);
          mlirBlockAppendOwnedOperation(mlirModuleGetBody(module.module), fn);
          // Argument names for dtensor.local_call (dtensor.arg_name).
          if (argNames) {
            if (argNames->size() != args.size())
              throw nb::value_error("arg_names needs one entry (or None) per argument");
            for (size_t i = 0; i < argNames->size(); ++i)
              if ((*argNames)[i])
                hpFuncSetArgName(fn, i, toRef(*(*argNames)[i]));
          }
          return Block{module.context, entry};
        },
        nb::arg("module"), nb::arg("name"), nb::arg("args"), nb::arg("results"),
        nb::arg("arg_names") = nb::none(),
        "Appends a func.func; `arg_names` names its arguments for local_call.");
  m.def("add_op",
        [](Block &block, const std::string &name, const std::vector<Value> &operands,
           const std::vector<Type> &results, std::optional<std::string> attributes) {
          MlirContext ctx = block.context->ctx;
          MlirOperationState state = mlirOperationStateGet(toRef(name), callerLocation(ctx));
          std::vector<MlirValue> ops = raw(operands);
          std::vector<MlirType> types = raw(results);
          mlirOperationStateAddOperands(&state, ops.size(), ops.data());
          mlirOperationStateAddResults(&state, types.size(), types.data());
          std::vector<MlirNamedAttribute> named;
          if (attributes) {
            MlirAttribute dict = parseAttribute(block.context, *attributes);
            for (intptr_t i = 0, e = mlirDictionaryAttrGetNumElements(dict); i < e; ++i)
              named.push_back(mlirDictionaryAttrGetElement(dict, i));
          }
          mlirOperationStateAddAttributes(&state, named.size(), named.data());
          MlirOperation op = mlirOperationCreate(&state);
          if (mlirOperationIsNull(op))
            block.context->fail("cannot create '" + name + "'");
          mlirBlockAppendOwnedOperation(block.block, op);
          return Operation{block.context, op};
        },
        nb::arg("block"), nb::arg("name"), nb::arg("operands"), nb::arg("results"),
        nb::arg("attributes") = nb::none(),
        "Appends a generic op; `attributes` is an MLIR dictionary, e.g. '{value = 1 : i64}'.");
  m.def("add_local_region",
        [](Block &block, const std::string &mesh, const std::vector<int64_t> &meshShape,
           const std::vector<std::pair<Value, std::string>> &args,
           std::optional<std::vector<std::pair<std::string, std::optional<std::vector<Attribute>>>>> inPlacements,
           std::optional<std::vector<std::optional<std::vector<Attribute>>>> outPlacements,
           bool outFlat, bool redistributeInputs, const std::vector<Type> &results) {
          ContextRef c = block.context;
          MlirContext ctx = c->ctx;
          std::vector<MlirValue> values;
          std::vector<MlirStringRef> names;
          std::vector<MlirType> blockTypes;
          for (const auto &[value, name] : args) {
            values.push_back(value.value);
            names.push_back(toRef(name));
            MlirType t = mlirValueGetType(value.value);
            MlirType local = t;
            if (hpTypeIsADTensorType(t)) {
              local = hpDTensorTypeGetLocalType(t, meshShape.size(), meshShape.data());
              if (mlirTypeIsNull(local))
                c->fail("operand '" + name + "' does not fit the mesh");
              // A declared placement is what the body sees.
              if (inPlacements)
                for (const auto &[key, list] : *inPlacements)
                  if (key == name && list) {
                    std::vector<int64_t> shape;
                    for (intptr_t i = 0, e = hpDTensorTypeGetRank(t); i < e; ++i)
                      shape.push_back(hpDTensorTypeGetDimSize(t, i));
                    std::vector<MlirAttribute> attrs = raw(*list);
                    MlirType declared = hpDTensorTypeGet(
                        ctx, shape.size(), shape.data(), hpDTensorTypeGetElementType(t),
                        hpDTensorTypeGetMesh(t), attrs.size(), attrs.data());
                    if (mlirTypeIsNull(declared))
                      c->fail("invalid in_placements for '" + name + "'");
                    local = hpDTensorTypeGetLocalType(declared, meshShape.size(), meshShape.data());
                    if (mlirTypeIsNull(local))
                      c->fail("in_placements for '" + name + "' do not fit the mesh");
                  }
            }
            blockTypes.push_back(local);
          }
          MlirAttribute in = inPlacementsAttr(c, inPlacements);
          MlirAttribute out = outPlacementsAttr(c, outPlacements, outFlat);
          std::vector<MlirType> resultTypes = raw(results);
          MlirOperation op = hpDTensorLocalRegionOpCreate(
              callerLocation(ctx), toRef(mesh), values.size(), values.data(), names.data(),
              blockTypes.data(), in, out, redistributeInputs, resultTypes.size(), resultTypes.data());
          mlirBlockAppendOwnedOperation(block.block, op);
          return std::make_pair(Operation{c, op}, Block{c, hpDTensorLocalRegionOpGetBody(op)});
        },
        nb::arg("block"), nb::arg("mesh"), nb::arg("mesh_shape"), nb::arg("args"),
        nb::arg("in_placements") = nb::none(), nb::arg("out_placements") = nb::none(),
        nb::arg("out_flat") = false, nb::arg("redistribute_inputs") = false,
        nb::arg("results") = std::vector<Type>{});
  m.def("add_local_call",
        [](Block &block, const std::string &callee, const std::string &mesh,
           const std::vector<Value> &args,
           std::optional<std::vector<std::pair<std::string, std::optional<std::vector<Attribute>>>>> inPlacements,
           std::optional<std::vector<std::optional<std::vector<Attribute>>>> outPlacements,
           bool outFlat, bool redistributeInputs, bool unchecked,
           const std::vector<Type> &results) {
          ContextRef c = block.context;
          MlirContext ctx = c->ctx;
          std::vector<MlirValue> values = raw(args);
          MlirAttribute in = inPlacementsAttr(c, inPlacements);
          MlirAttribute out = outPlacementsAttr(c, outPlacements, outFlat);
          std::vector<MlirType> resultTypes = raw(results);
          MlirOperation op = hpDTensorLocalCallOpCreate(
              callerLocation(ctx), toRef(callee), toRef(mesh), values.size(),
              values.data(), in, out, redistributeInputs, unchecked, resultTypes.size(),
              resultTypes.data());
          mlirBlockAppendOwnedOperation(block.block, op);
          return Operation{c, op};
        },
        nb::arg("block"), nb::arg("callee"), nb::arg("mesh"), nb::arg("args"),
        nb::arg("in_placements") = nb::none(), nb::arg("out_placements") = nb::none(),
        nb::arg("out_flat") = false, nb::arg("redistribute_inputs") = false,
        nb::arg("unchecked") = false, nb::arg("results") = std::vector<Type>{});
  m.def("add_yield", [](Block &block, const std::vector<Value> &values) {
    std::vector<MlirValue> operands = raw(values);
    MlirOperation op = hpDTensorYieldOpCreate(callerLocation(block.context->ctx),
                                              operands.size(), operands.data());
    mlirBlockAppendOwnedOperation(block.block, op);
    return Operation{block.context, op};
  });
}
