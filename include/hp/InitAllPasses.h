//===- InitAllPasses.h - register every hp pass and pipeline ----*- C++ -*-===//

#ifndef HP_INITALLPASSES_H
#define HP_INITALLPASSES_H

namespace hp {

/// Registers every hp pass and pipeline with the global pass registry.
void registerAllHPPasses();

} // namespace hp

#endif // HP_INITALLPASSES_H
