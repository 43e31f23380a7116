//===- TensorFiles.h - where a driver's tensor files are --------*- C++ -*-===//
//
// hp_read_tensor and hp_write_tensor (TensorFiles.cpp) read and write under
// $HP_TENSOR_DIR; a session (Sessions.cpp) points them at each call's own
// directory in turn.
//
//===----------------------------------------------------------------------===//

#ifndef HP_RUNTIME_TENSORFILES_H
#define HP_RUNTIME_TENSORFILES_H

#include <string>

namespace hp::runtime {

/// $HP_TENSOR_DIR; ends the job naming the variable when it is not set.
std::string tensorDirectory();

/// Where the tensor files are from now on (empty: $HP_TENSOR_DIR again).
void setCallDirectory(std::string directory);

} // namespace hp::runtime

#endif // HP_RUNTIME_TENSORFILES_H
