//===- ImportFunction.cpp - a function of one module into another ---------===//

#include "hp/Dialect/DTensor/Transforms/ImportFunction.h"

#include "hp/Dialect/DTensor/IR/DTensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

LogicalResult hp::dtensor::importFunction(ModuleOp dest, ModuleOp source,
                                          StringRef name, StringRef newName) {
  auto fn =
      dyn_cast_or_null<func::FuncOp>(SymbolTable::lookupSymbolIn(source, name));
  if (!fn)
    return dest.emitError()
           << "import: the source module has no function @" << name;
  if (newName.empty())
    return dest.emitError() << "import: the new name must not be empty";
  if (Operation *existing = SymbolTable::lookupSymbolIn(dest, newName))
    return existing->emitError()
           << "import: @" << newName << " is already in the module";
  // The meshes it uses, by symbol (an op's `on @mesh`) or by type (a
  // DTensor's mesh); another function it calls would have to come along,
  // named apart.
  llvm::SetVector<StringAttr> used;
  if (std::optional<SymbolTable::UseRange> uses =
          SymbolTable::getSymbolUses(fn.getOperation()))
    for (const SymbolTable::SymbolUse &use : *uses) {
      StringAttr root = use.getSymbolRef().getRootReference();
      Operation *target = SymbolTable::lookupSymbolIn(source, root);
      if (!target)
        return use.getUser()->emitError()
               << "import: @" << name << " refers to " << use.getSymbolRef()
               << ", which the source module does not define";
      if (!isa<MeshOp, shard::GridOp>(target))
        return use.getUser()->emitError()
               << "import: @" << name << " refers to " << use.getSymbolRef()
               << ", which import does not bring (only meshes come along)";
      used.insert(root);
    }
  auto noteType = [&](Type t) {
    t.walk([&](DTensorType d) { used.insert(d.getMesh().getAttr()); });
  };
  noteType(fn.getFunctionType());
  fn.walk([&](Operation *op) {
    for (Type t : op->getResultTypes())
      noteType(t);
    for (Region &r : op->getRegions())
      for (Block &block : r)
        for (BlockArgument a : block.getArguments())
          noteType(a.getType());
  });
  SmallVector<Operation *> meshes;
  for (StringAttr meshName : used) {
    Operation *op = SymbolTable::lookupSymbolIn(source, meshName);
    if (!op || !isa<MeshOp, shard::GridOp>(op))
      return fn.emitError()
             << "import: @" << name << " uses the mesh @" << meshName.getValue()
             << ", which the source module does not define";
    Operation *mine = SymbolTable::lookupSymbolIn(dest, meshName);
    if (!mine) {
      meshes.push_back(op);
      continue;
    }
    if (mine->getName() != op->getName() ||
        mine->getAttrDictionary() != op->getAttrDictionary())
      return mine->emitError() << "import: @" << meshName.getValue()
                               << " differs from the source module's mesh "
                                  "of that name";
  }
  OpBuilder b = OpBuilder::atBlockBegin(dest.getBody());
  for (Operation *mesh : meshes)
    b.clone(*mesh);
  b.setInsertionPointToEnd(dest.getBody());
  auto copy = cast<func::FuncOp>(b.clone(*fn));
  copy.setSymName(newName);
  return success();
}
