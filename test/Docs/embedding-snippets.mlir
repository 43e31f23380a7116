// docs/Embedding.md shows the external project's files exactly as they are.
// RUN: %python %S/Inputs/code-blocks.py %hp_src_root/docs/Embedding.md cmake 0 > %t.cmake
// RUN: diff -u %hp_src_root/test/Embedding/external-project/CMakeLists.txt %t.cmake
// RUN: %python %S/Inputs/code-blocks.py %hp_src_root/docs/Embedding.md cpp 0 > %t.cpp
// RUN: diff -u %hp_src_root/test/Embedding/external-project/my-hp-tool.cpp %t.cpp
