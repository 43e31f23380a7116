//===- InitAllDialects.h - register every hp dialect ------------*- C++ -*-===//

#ifndef HP_INITALLDIALECTS_H
#define HP_INITALLDIALECTS_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace hp {

/// Adds every hp dialect to `registry`, for tools that embed hp.
void registerAllHPDialects(mlir::DialectRegistry &registry);

} // namespace hp

#endif // HP_INITALLDIALECTS_H
