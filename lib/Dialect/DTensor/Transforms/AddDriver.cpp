//===- AddDriver.cpp - @main that runs a function on tensor files --------===//
//
// A program exported by a frontend is a function of its arguments; to run it
// under hp-runner it needs an entry point without arguments. The driver this
// pass builds reads the arguments from the runtime's tensor files, gives each
// rank its piece, calls the function and writes the results back. Built here
// rather than by each frontend so that every client (hp.torch, the C API,
// hp-opt) gets the same driver from the function's own types.
//
//===----------------------------------------------------------------------===//

#include "hp/Dialect/DTensor/Transforms/Passes.h"

#include "hp/Dialect/DTensor/Layout/Layout.h"
#include "hp/Dialect/DTensor/Transforms/RankPiece.h"
#include "hp/Runtime/Runtime.h"
#include "hp/Support/IRArith.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

namespace hp::dtensor {
#define GEN_PASS_DEF_DTENSORADDDRIVER
#include "hp/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace hp::dtensor

using namespace mlir;
using namespace hp::dtensor;

namespace {

/// The MLIR type of a C type of the runtime ABI.
template <typename T> Type abiType(MLIRContext *ctx);
template <> Type abiType<int64_t>(MLIRContext *ctx) {
  return IntegerType::get(ctx, 64);
}
template <> Type abiType<double>(MLIRContext *ctx) {
  return Float64Type::get(ctx);
}

/// The MLIR signature of a C function type of the runtime ABI.
template <typename F> struct AbiSignature;
template <typename R, typename... A> struct AbiSignature<R(A...)> {
  static FunctionType get(MLIRContext *ctx) {
    SmallVector<Type> results;
    if constexpr (!std::is_void_v<R>)
      results.push_back(abiType<R>(ctx));
    return FunctionType::get(ctx, {abiType<A>(ctx)...}, results);
  }
};

/// A function of hp/Runtime/Runtime.h the driver calls: its name and
/// signature both come from the C declaration (decltype: no link to it).
struct AbiFunction {
  StringLiteral name;
  FunctionType (*type)(MLIRContext *);
};
#define HP_ABI_FUNCTION(FN)                                                    \
  AbiFunction { #FN, &AbiSignature<decltype(FN)>::get }

constexpr AbiFunction kRead = HP_ABI_FUNCTION(hp_read_tensor);
constexpr AbiFunction kReadBlock = HP_ABI_FUNCTION(hp_read_tensor_block);
constexpr AbiFunction kWrite = HP_ABI_FUNCTION(hp_write_tensor);
constexpr AbiFunction kClock = HP_ABI_FUNCTION(rtclock);
constexpr AbiFunction kNext = HP_ABI_FUNCTION(hp_session_next);
constexpr AbiFunction kDone = HP_ABI_FUNCTION(hp_session_done);
constexpr AbiFunction kEntry = HP_ABI_FUNCTION(hp_session_entry);

/// The whole tensor a value of `type` holds: a DTensor's global tensor, a
/// ranked tensor as is, else null.
RankedTensorType wholeTensorOf(Type type) {
  if (auto d = dyn_cast<DTensorType>(type))
    return RankedTensorType::get(d.getShape(), d.getElementType());
  return dyn_cast<RankedTensorType>(type);
}

/// Bytes of the whole tensor, or nullopt after an error on `fn` when the
/// driver cannot move it as a file of raw elements.
std::optional<int64_t> fileBytes(func::FuncOp fn, Type type,
                                 const Twine &what) {
  RankedTensorType t = wholeTensorOf(type);
  if (!t) {
    fn.emitError() << what << " has type " << type
                   << ": the driver reads and writes tensors only";
    return std::nullopt;
  }
  if (!t.hasStaticShape()) {
    fn.emitError() << what << " has type " << t
                   << ": the driver needs a static shape";
    return std::nullopt;
  }
  Type e = t.getElementType();
  if (!e.isIntOrFloat() || e.getIntOrFloatBitWidth() % 8 != 0) {
    fn.emitError() << what << " has element type " << e
                   << ", which is not a whole number of bytes in a file";
    return std::nullopt;
  }
  int64_t bytes = e.getIntOrFloatBitWidth() / 8;
  for (int64_t d : t.getShape())
    if (llvm::MulOverflow(bytes, d, bytes)) {
      fn.emitError() << what << " (" << t << ") needs more than 2^63 - 1 bytes";
      return std::nullopt;
    }
  return bytes;
}

/// The private declaration `name` of type `type` in `module`, added when
/// missing; null after an error when `name` is something else.
func::FuncOp runtimeFunction(ModuleOp module, AbiFunction abi) {
  StringRef name = abi.name;
  FunctionType type = abi.type(module.getContext());
  Operation *existing = SymbolTable::lookupSymbolIn(module, name);
  if (auto fn = dyn_cast_or_null<func::FuncOp>(existing)) {
    if (fn.getFunctionType() == type)
      return fn;
    fn.emitError() << "@" << name << " has type " << fn.getFunctionType()
                   << ", but the runtime's @" << name << " is " << type;
    return nullptr;
  }
  if (existing) {
    existing->emitError() << "@" << name
                          << " is the runtime's function, which the driver "
                             "calls: rename this symbol";
    return nullptr;
  }
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  auto fn = func::FuncOp::create(b, module.getLoc(), name, type);
  fn.setPrivate();
  return fn;
}

/// `type` with its partial placements made replicate: what a rank reads of
/// an argument before the zeros a partial placement adds on the others.
DTensorType withoutPartials(DTensorType type) {
  MLIRContext *ctx = type.getContext();
  SmallVector<Attribute> p;
  for (Attribute a : type.getPlacements())
    p.push_back(isa<PartialAttr>(a) ? ReplicateAttr::get(ctx) : a);
  return type.withPlacements(ArrayAttr::get(ctx, p));
}

/// Whether an argument of `type` is a DTensor that some mesh axis splits:
/// each rank reads only its block of it.
bool isSplitArgument(Type type) {
  auto d = dyn_cast<DTensorType>(type);
  return d && llvm::any_of(getShardedDims(d.getPlacements()),
                           [](int64_t m) { return m != kNotSharded; });
}

/// All-replicate placements for `type`'s mesh.
DTensorType replicatedOf(DTensorType type) {
  MLIRContext *ctx = type.getContext();
  SmallVector<Attribute> r(type.getPlacements().size(),
                           ReplicateAttr::get(ctx));
  return type.withPlacements(ArrayAttr::get(ctx, r));
}

/// A function the driver calls: its first `perCall` arguments are read per
/// call, the rest shared; the bytes of each argument and result file.
struct Entry {
  func::FuncOp fn;
  int64_t perCall;
  SmallVector<int64_t> argBytes, resultBytes;
};

/// The file sizes of every argument and result of `fn`, into `e`; failure
/// after an error on `fn` when one is not a file of raw elements.
LogicalResult fileSizes(func::FuncOp fn, Entry &e) {
  FunctionType type = fn.getFunctionType();
  StringRef name = fn.getSymName();
  for (auto [k, t] : llvm::enumerate(type.getInputs())) {
    std::optional<int64_t> n =
        fileBytes(fn, t, "argument " + Twine(k) + " of @" + name);
    if (!n)
      return failure();
    e.argBytes.push_back(*n);
  }
  for (auto [k, t] : llvm::enumerate(type.getResults())) {
    std::optional<int64_t> n =
        fileBytes(fn, t, "result " + Twine(k) + " of @" + name);
    if (!n)
      return failure();
    e.resultBytes.push_back(*n);
  }
  return success();
}

/// Calls the runtime's `fn` on (slot, the buffer's address, bytes).
void transfer(OpBuilder &b, Location loc, func::FuncOp fn, int64_t slot,
              Value buffer, int64_t bytes) {
  Type i64 = b.getI64Type();
  Value address =
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
  Value args[] = {arith::ConstantIntOp::create(b, loc, i64, slot),
                  arith::IndexCastOp::create(b, loc, i64, address),
                  arith::ConstantIntOp::create(b, loc, i64, bytes)};
  func::CallOp::create(b, loc, fn, args);
}

/// What @main's body is built with: the builder in @main, the runtime's
/// functions and the meshes of the split arguments.
struct DriverBody {
  OpBuilder &b;
  Location loc;
  func::FuncOp main, read, readBlock, write;
  llvm::DenseMap<Attribute, MeshInfo> &meshes;

  /// Argument `k` of type `t` (`bytes` in its file). A split DTensor: each
  /// rank reads only its own block, whose offsets and sizes the layout
  /// model gives (torch.chunk pieces, nested and strided splits alike), so
  /// no rank ever holds a whole split parameter; a partial placement's
  /// zeros are added after. Anything else: read whole on every rank.
  Value readArgument(Type t, int64_t k, int64_t bytes);
  /// This rank's block of split argument `k`, laid out as `piece` (`d`
  /// without its partial placements).
  Value readOwnBlock(DTensorType d, DTensorType piece, int64_t k);
  /// Result `k`: whole on every rank, written by rank 0 (the runtime's
  /// rule).
  void writeResult(Value v, int64_t k, int64_t bytes);
};

struct DTensorAddDriverPass
    : public hp::dtensor::impl::DTensorAddDriverBase<DTensorAddDriverPass> {
  using DTensorAddDriverBase::DTensorAddDriverBase;

  void runOnOperation() override {
    if (failed(addDriver()))
      signalPassFailure();
  }

  LogicalResult addDriver();
  /// Checks state-args and state-results against the entry's signature.
  LogicalResult checkState(func::FuncOp callee, int64_t perCall);
  /// Appends the extra entries to `entries` (the main one first), each
  /// checked against the main one: the same shared arguments at the end,
  /// the same state results.
  LogicalResult collectExtraEntries(func::FuncOp callee, int64_t perCall,
                                    SmallVectorImpl<Entry> &entries);
  /// @main's session loop: calls of the entries until the client says
  /// stop, the resident state carried from call to call.
  void buildSessionLoop(DriverBody &d, MutableArrayRef<Entry> entries,
                        ArrayRef<Value> args, func::FuncOp next,
                        func::FuncOp done, func::FuncOp which);
  /// One call of an entry in the session loop, at `d`'s insertion point:
  /// its per-call arguments read, the shared ones with the state now
  /// (`current`), the other results written, the new state yielded.
  void serveCall(DriverBody &d, Entry &e, ArrayRef<Value> args, int64_t perCall,
                 ValueRange current, ArrayRef<Type> stateTypes);
  /// @main's calls without a session: one, or repeat (timed), the last
  /// one's results written.
  void buildCalls(DriverBody &d, Entry &e, SmallVectorImpl<Value> &args,
                  func::FuncOp clock);
};

LogicalResult DTensorAddDriverPass::checkState(func::FuncOp callee,
                                               int64_t perCall) {
  if (stateArgs.empty() && stateResults.empty())
    return success();
  auto error = [&] { return callee.emitError() << "dtensor-add-driver: "; };
  if (sessionInputs < 0)
    return error() << "state-args and state-results need a session "
                      "(session-inputs)";
  if (stateArgs.size() != stateResults.size())
    return error() << "state-args names " << stateArgs.size()
                   << " arguments but state-results " << stateResults.size()
                   << " results: each state argument needs the result that "
                      "updates it";
  FunctionType type = callee.getFunctionType();
  for (auto [a, r] : llvm::zip(stateArgs, stateResults)) {
    if (a < perCall || a >= static_cast<int64_t>(type.getNumInputs()))
      return error() << "state argument " << a << " is not one of @" << entry
                     << "'s arguments read once (" << perCall << " to "
                     << type.getNumInputs() - 1 << ")";
    if (r < 0 || r >= static_cast<int64_t>(type.getNumResults()))
      return error() << "state result " << r << " is not a result of @" << entry
                     << " (it has " << type.getNumResults() << ")";
    if (llvm::count(stateArgs, a) > 1 || llvm::count(stateResults, r) > 1)
      return error() << "state argument " << a << " or result " << r
                     << " is named twice";
    auto da = dyn_cast<DTensorType>(type.getInput(a));
    auto dr = dyn_cast<DTensorType>(type.getResult(r));
    if (wholeTensorOf(type.getInput(a)) != wholeTensorOf(type.getResult(r)) ||
        !da != !dr || (da && da.getMesh() != dr.getMesh()))
      return error() << "state result " << r << " (" << type.getResult(r)
                     << ") cannot update argument " << a << " ("
                     << type.getInput(a) << "): another tensor";
  }
  return success();
}

LogicalResult
DTensorAddDriverPass::collectExtraEntries(func::FuncOp callee, int64_t perCall,
                                          SmallVectorImpl<Entry> &entries) {
  if (extraEntries.empty())
    return success();
  ModuleOp module = getOperation();
  if (sessionInputs < 0)
    return callee.emitError() << "dtensor-add-driver: extra-entries need a "
                                 "session (session-inputs)";
  FunctionType main = callee.getFunctionType();
  ArrayRef<Type> shared = main.getInputs().drop_front(perCall);
  for (const std::string &name : extraEntries) {
    auto fn = dyn_cast_or_null<func::FuncOp>(
        SymbolTable::lookupSymbolIn(module, name));
    if (!fn || fn.isExternal())
      return callee.emitError()
             << "dtensor-add-driver: extra entry @" << name
             << " is not a function with a body in the module";
    if (name == entry || llvm::count(extraEntries, name) > 1)
      return fn.emitError() << "dtensor-add-driver: @" << name
                            << " is named twice among the entries";
    FunctionType type = fn.getFunctionType();
    int64_t own = static_cast<int64_t>(type.getNumInputs()) -
                  static_cast<int64_t>(shared.size());
    if (own < 0 || type.getInputs().drop_front(own) != shared)
      return fn.emitError()
             << "dtensor-add-driver: extra entry @" << name
             << " must end with @" << entry << "'s " << shared.size()
             << " shared arguments (" << TypeRange(shared)
             << "), which every entry reads once";
    for (auto [a, r] : llvm::zip(stateArgs, stateResults))
      if (r >= static_cast<int64_t>(type.getNumResults()) ||
          type.getResult(r) != main.getResult(r))
        return fn.emitError()
               << "dtensor-add-driver: extra entry @" << name << "'s result "
               << r << " must update state argument " << a << " as @" << entry
               << "'s does (" << main.getResult(r) << ")";
    Entry e{fn, own, {}, {}};
    if (failed(fileSizes(fn, e)))
      return failure();
    entries.push_back(std::move(e));
  }
  return success();
}

LogicalResult DTensorAddDriverPass::addDriver() {
  ModuleOp module = getOperation();
  if (repeat < 1)
    return module.emitError() << "dtensor-add-driver: repeat must be at "
                                 "least 1, got "
                              << static_cast<int64_t>(repeat);
  auto callee = dyn_cast_or_null<func::FuncOp>(
      SymbolTable::lookupSymbolIn(module, entry));
  if (!callee || callee.isExternal())
    return module.emitError()
           << "dtensor-add-driver: the module has no "
              "function @"
           << entry << " with a body to drive (entry=" << entry << ")";
  if (Operation *main = SymbolTable::lookupSymbolIn(module, "main"))
    return main->emitError()
           << "dtensor-add-driver: the module already has a @main; the "
              "driver would be a second one";

  FunctionType type = callee.getFunctionType();
  SmallVector<Entry> entries = {{callee, 0, {}, {}}};
  if (failed(fileSizes(callee, entries[0])))
    return failure();

  if (sessionInputs < -1)
    return module.emitError() << "dtensor-add-driver: session-inputs must be "
                                 "-1 (no session) or at least 0, got "
                              << static_cast<int64_t>(sessionInputs);
  int64_t perCall = sessionInputs < 0 ? type.getNumInputs()
                                      : static_cast<int64_t>(sessionInputs);
  bool session = sessionInputs >= 0;
  if (perCall > type.getNumInputs())
    return callee.emitError()
           << "dtensor-add-driver: session-inputs=" << perCall << " but @"
           << entry << " has " << type.getNumInputs() << " arguments";
  if (session && repeat > 1)
    return module.emitError() << "dtensor-add-driver: session-inputs and "
                                 "repeat do not combine (a session is timed "
                                 "by its client)";
  if (failed(checkState(callee, perCall)))
    return failure();
  entries[0].perCall = perCall;
  if (failed(collectExtraEntries(callee, perCall, entries)))
    return failure();
  auto anyInput = [&](function_ref<bool(Type)> pred) {
    return llvm::any_of(entries, [&](Entry &e) {
      return llvm::any_of(e.fn.getFunctionType().getInputs(), pred);
    });
  };

  MLIRContext *ctx = module.getContext();
  func::FuncOp read = runtimeFunction(module, kRead);
  func::FuncOp readBlock;
  bool blocks = anyInput(isSplitArgument);
  if (blocks)
    readBlock = runtimeFunction(module, kReadBlock);
  func::FuncOp write = runtimeFunction(module, kWrite);
  func::FuncOp clock, next, done, which;
  if (repeat > 1)
    clock = runtimeFunction(module, kClock);
  if (session) {
    next = runtimeFunction(module, kNext);
    done = runtimeFunction(module, kDone);
    which = runtimeFunction(module, kEntry);
  }
  if (!read || (blocks && !readBlock) || !write || (repeat > 1 && !clock) ||
      (session && (!next || !done || !which)))
    return failure();
  // The mesh of every split argument, checked before anything is built.
  SymbolTableCollection symbols;
  llvm::DenseMap<Attribute, MeshInfo> meshes;
  for (Entry &e : entries)
    for (Type t : e.fn.getFunctionType().getInputs())
      if (auto d = dyn_cast<DTensorType>(t)) {
        MeshInfo mesh = lookupMesh(e.fn, d.getMesh(), symbols);
        if (!mesh)
          return failure();
        meshes[d.getMesh()] = mesh;
      }

  Location loc = callee.getLoc();
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  auto main =
      func::FuncOp::create(b, loc, "main", FunctionType::get(ctx, {}, {}));
  b.setInsertionPointToStart(main.addEntryBlock());
  DriverBody d{b, loc, main, read, readBlock, write, meshes};

  SmallVector<Value> args(type.getNumInputs());
  // What every call shares is read once, in front of the calls.
  for (int64_t k = perCall, e = type.getNumInputs(); k < e; ++k)
    args[k] = d.readArgument(type.getInput(k), k, entries[0].argBytes[k]);
  if (session)
    buildSessionLoop(d, entries, args, next, done, which);
  else
    buildCalls(d, entries[0], args, clock);
  // No memref.dealloc: bufferization's ownership analysis frees buffers
  // itself and refuses frees it did not make.
  func::ReturnOp::create(b, loc);
  return success();
}

Value DriverBody::readArgument(Type t, int64_t k, int64_t bytes) {
  RankedTensorType whole = wholeTensorOf(t);
  auto d = dyn_cast<DTensorType>(t);
  DTensorType piece = d ? withoutPartials(d) : DTensorType();
  Value v;
  if (isSplitArgument(t)) {
    v = readOwnBlock(d, piece, k);
  } else {
    auto buffer = memref::AllocOp::create(
        b, loc, MemRefType::get(whole.getShape(), whole.getElementType()));
    transfer(b, loc, read, k, buffer, bytes);
    v = bufferization::ToTensorOp::create(b, loc, whole, buffer,
                                          /*restrict=*/true);
    if (!d)
      return v;
    piece = replicatedOf(d);
    v = FromLocalOp::create(b, loc, piece, v);
  }
  if (piece != d)
    v = RedistributeOp::create(b, loc, d, v);
  return v;
}

Value DriverBody::readOwnBlock(DTensorType d, DTensorType piece, int64_t k) {
  MLIRContext *ctx = b.getContext();
  Type i64 = IntegerType::get(ctx, 64);
  RankedTensorType whole = wholeTensorOf(d);
  const MeshInfo &mesh = meshes[d.getMesh()];
  RankedTensorType local = getLocalType(piece, mesh);
  auto order = getSplitOrder(piece.getPlacements(), whole.getRank());
  hp::IRArith a{b, loc};
  SmallVector<OpFoldResult> offsets, sizes;
  SmallVector<Value> dynamicSizes;
  for (int64_t i = 0, e = whole.getRank(); i < e; ++i) {
    auto [offset, length] =
        rankPiece(b, loc, whole.getDimSize(i), order[i], mesh, d.getMesh());
    if (!local.isDynamicDim(i))
      length = a.cst(local.getDimSize(i));
    else
      dynamicSizes.push_back(a.val(length));
    offsets.push_back(offset);
    sizes.push_back(length);
  }
  auto buffer = memref::AllocOp::create(
      b, loc, MemRefType::get(local.getShape(), local.getElementType()),
      dynamicSizes);
  int64_t rank = whole.getRank();
  // In @main's entry block: an alloca in the session loop would grow
  // the stack on every call.
  memref::AllocaOp dims;
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&main.front());
    dims = memref::AllocaOp::create(b, loc, MemRefType::get({3 * rank}, i64));
  }
  auto asI64 = [&](OpFoldResult v) -> Value {
    if (std::optional<int64_t> c = getConstantIntValue(v))
      return arith::ConstantIntOp::create(b, loc, i64, *c);
    return arith::IndexCastOp::create(b, loc, i64, a.val(v));
  };
  for (int64_t i = 0; i < rank; ++i) {
    Value entries[] = {asI64(a.cst(whole.getDimSize(i))), asI64(offsets[i]),
                       asI64(sizes[i])};
    for (auto [j, value] : llvm::enumerate(entries))
      memref::StoreOp::create(
          b, loc, value, dims,
          ValueRange{arith::ConstantIndexOp::create(b, loc, 3 * i + j)});
  }
  auto address = [&](Value m) -> Value {
    return arith::IndexCastOp::create(
        b, loc, i64, memref::ExtractAlignedPointerAsIndexOp::create(b, loc, m));
  };
  Value args[] = {arith::ConstantIntOp::create(b, loc, i64, k), address(buffer),
                  address(dims),
                  arith::ConstantIntOp::create(b, loc, i64, rank),
                  arith::ConstantIntOp::create(
                      b, loc, i64, whole.getElementTypeBitWidth() / 8)};
  func::CallOp::create(b, loc, readBlock, args);
  Value v = bufferization::ToTensorOp::create(b, loc, local, buffer,
                                              /*restrict=*/true);
  return FromLocalOp::create(b, loc, piece, v);
}

void DriverBody::writeResult(Value v, int64_t k, int64_t bytes) {
  if (auto d = dyn_cast<DTensorType>(v.getType())) {
    DTensorType rep = replicatedOf(d);
    if (rep != d)
      v = RedistributeOp::create(b, loc, rep, v);
    v = ToLocalOp::create(b, loc, wholeTensorOf(d), v);
  }
  auto whole = cast<RankedTensorType>(v.getType());
  auto buffer = memref::AllocOp::create(
      b, loc, MemRefType::get(whole.getShape(), whole.getElementType()));
  bufferization::MaterializeInDestinationOp::create(
      b, loc, /*result=*/Type(), v, buffer, /*restrict=*/true,
      /*writable=*/true);
  transfer(b, loc, write, k, buffer, bytes);
}

void DTensorAddDriverPass::buildSessionLoop(
    DriverBody &d, MutableArrayRef<Entry> entries, ArrayRef<Value> args,
    func::FuncOp next, func::FuncOp done, func::FuncOp which) {
  OpBuilder &b = d.b;
  Location loc = d.loc;
  Type i64 = b.getI64Type();
  int64_t perCall = entries[0].perCall;
  // Calls until the client says stop: hp_session_next gives a call number
  // (read the per-call arguments from the call's directory, call, write
  // the results there), HP_SESSION_FETCH_STATE (write the resident state
  // there) or HP_SESSION_STOP.
  // Resident state is carried by the loop: each call's state results are
  // the next call's state arguments (docs/Runtime.md, "Sessions").
  SmallVector<Value> state;
  SmallVector<Type> stateTypes;
  for (int64_t k : stateArgs) {
    state.push_back(args[k]);
    stateTypes.push_back(args[k].getType());
  }
  SmallVector<Type> carried = {i64};
  llvm::append_range(carried, stateTypes);
  auto loop = scf::WhileOp::create(b, loc, carried, state);
  Block *before = b.createBlock(&loop.getBefore(), {}, stateTypes,
                                SmallVector<Location>(state.size(), loc));
  Value n = func::CallOp::create(b, loc, next, ValueRange{}).getResult(0);
  Value stop = arith::ConstantIntOp::create(b, loc, i64, HP_SESSION_STOP);
  Value more = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, n, stop);
  SmallVector<Value> forward = {n};
  llvm::append_range(forward, before->getArguments());
  scf::ConditionOp::create(b, loc, more, forward);
  Block *after = b.createBlock(&loop.getAfter(), {}, carried,
                               SmallVector<Location>(carried.size(), loc));
  Value zero = arith::ConstantIntOp::create(b, loc, i64, 0);
  static_assert(HP_SESSION_FETCH_STATE < 0 && HP_SESSION_STOP < 0,
                "the loop takes a negative request other than stop for a "
                "state fetch");
  Value fetch = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                      after->getArgument(0), zero);
  ValueRange current = after->getArguments().drop_front();
  auto branch = scf::IfOp::create(b, loc, stateTypes, fetch,
                                  /*withElseRegion=*/true);
  // Without results the builder adds empty yields; each branch makes its
  // own.
  for (Region *r : {&branch.getThenRegion(), &branch.getElseRegion()})
    if (r->front().mightHaveTerminator())
      r->front().getTerminator()->erase();
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&branch.getThenRegion().front());
    for (auto [i, r] : llvm::enumerate(stateResults))
      d.writeResult(current[i], r, entries[0].resultBytes[r]);
    scf::YieldOp::create(b, loc, current);
    b.setInsertionPointToStart(&branch.getElseRegion().front());
    // A call: of @entry, or of the extra entry the request names (an
    // scf.index_switch on hp_session_entry, @entry the default).
    // Asked even with one entry: the runtime then refuses a request
    // naming another before anything is read.
    Value count = arith::ConstantIntOp::create(b, loc, i64, entries.size());
    Value chosen = func::CallOp::create(b, loc, which, count).getResult(0);
    if (entries.size() == 1) {
      serveCall(d, entries[0], args, perCall, current, stateTypes);
    } else {
      Value index =
          arith::IndexCastOp::create(b, loc, b.getIndexType(), chosen);
      SmallVector<int64_t> cases;
      for (int64_t i = 1, e = entries.size(); i < e; ++i)
        cases.push_back(i);
      auto sw = scf::IndexSwitchOp::create(b, loc, stateTypes, index, cases,
                                           cases.size());
      for (auto [i, region] : llvm::enumerate(sw.getCaseRegions())) {
        b.setInsertionPointToStart(&region.emplaceBlock());
        serveCall(d, entries[i + 1], args, perCall, current, stateTypes);
      }
      b.setInsertionPointToStart(&sw.getDefaultRegion().emplaceBlock());
      serveCall(d, entries[0], args, perCall, current, stateTypes);
      b.setInsertionPointAfter(sw);
      scf::YieldOp::create(b, loc, sw.getResults());
    }
  }
  func::CallOp::create(b, loc, done, ValueRange{});
  scf::YieldOp::create(b, loc, branch.getResults());
  b.setInsertionPointAfter(loop);
}

void DTensorAddDriverPass::serveCall(DriverBody &d, Entry &e,
                                     ArrayRef<Value> args, int64_t perCall,
                                     ValueRange current,
                                     ArrayRef<Type> stateTypes) {
  OpBuilder &b = d.b;
  Location loc = d.loc;
  FunctionType t = e.fn.getFunctionType();
  // The per-call arguments, then the shared ones with the state now.
  SmallVector<Value> callArgs;
  for (int64_t k = 0; k < e.perCall; ++k)
    callArgs.push_back(d.readArgument(t.getInput(k), k, e.argBytes[k]));
  SmallVector<Value> shared(args.begin() + perCall, args.end());
  for (auto [i, k] : llvm::enumerate(stateArgs))
    shared[k - perCall] = current[i];
  llvm::append_range(callArgs, shared);
  ValueRange results =
      func::CallOp::create(b, loc, e.fn, callArgs).getResults();
  for (auto [k, r] : llvm::enumerate(results))
    if (!llvm::is_contained(stateResults, static_cast<int64_t>(k)))
      d.writeResult(r, k, e.resultBytes[k]);
  SmallVector<Value> updated;
  for (auto [i, r] : llvm::enumerate(stateResults)) {
    Value v = results[r];
    if (v.getType() != stateTypes[i])
      v = RedistributeOp::create(b, loc, stateTypes[i], v);
    updated.push_back(v);
  }
  scf::YieldOp::create(b, loc, updated);
}

void DTensorAddDriverPass::buildCalls(DriverBody &d, Entry &e,
                                      SmallVectorImpl<Value> &args,
                                      func::FuncOp clock) {
  OpBuilder &b = d.b;
  Location loc = d.loc;
  MLIRContext *ctx = b.getContext();
  FunctionType type = e.fn.getFunctionType();
  int64_t perCall = e.perCall;
  for (int64_t k = 0; k < perCall; ++k)
    args[k] = d.readArgument(type.getInput(k), k, e.argBytes[k]);
  auto call = [&] { return func::CallOp::create(b, loc, e.fn, args); };
  Value start;
  if (repeat > 1) {
    // One warm-up call, then repeat - 1 timed ones; the last one's results
    // are written.
    call();
    start = func::CallOp::create(b, loc, clock, ValueRange{}).getResult(0);
    if (repeat > 2) {
      Value lb = arith::ConstantIndexOp::create(b, loc, 2);
      Value ub = arith::ConstantIndexOp::create(b, loc, repeat);
      Value one = arith::ConstantIndexOp::create(b, loc, 1);
      auto loop = scf::ForOp::create(b, loc, lb, ub, one);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPoint(loop.getBody()->getTerminator());
      call();
    }
  }
  ValueRange results = call().getResults();
  if (repeat > 1) {
    Value end = func::CallOp::create(b, loc, clock, ValueRange{}).getResult(0);
    Value calls = arith::ConstantFloatOp::create(b, loc, Float64Type::get(ctx),
                                                 APFloat(double(repeat - 1)));
    Value perCallSeconds = arith::DivFOp::create(
        b, loc, arith::SubFOp::create(b, loc, end, start), calls);
    auto step = memref::AllocOp::create(
        b, loc, MemRefType::get({1}, Float64Type::get(ctx)));
    memref::StoreOp::create(
        b, loc, perCallSeconds, step,
        ValueRange{arith::ConstantIndexOp::create(b, loc, 0)});
    transfer(b, loc, d.write, type.getNumResults(), step, 8);
  }
  for (auto [k, r] : llvm::enumerate(results))
    d.writeResult(r, k, e.resultBytes[k]);
}

} // namespace
