// The committed generated docs match what ODS generates now.
// Regenerate with: cmake --build build --target hp-update-docs
// RUN: diff -u %hp_src_root/docs/generated/DTensorDialect.md %hp_obj_root/docs/generated/DTensorDialect.md
// RUN: diff -u %hp_src_root/docs/generated/DTensorPasses.md %hp_obj_root/docs/generated/DTensorPasses.md
// RUN: diff -u %hp_src_root/docs/generated/NCCLDialect.md %hp_obj_root/docs/generated/NCCLDialect.md
// RUN: diff -u %hp_src_root/docs/generated/ConversionPasses.md %hp_obj_root/docs/generated/ConversionPasses.md
// RUN: diff -u %hp_src_root/docs/generated/TransformsPasses.md %hp_obj_root/docs/generated/TransformsPasses.md
// The hand-written pages include the generated references as they are now.
// RUN: %python %hp_src_root/scripts/include-generated-docs.py --check --generated=%hp_obj_root/docs/generated
