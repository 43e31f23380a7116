"""scripts/fuzz.py decides whose crash a finding is; CI fails on hp's."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parents[2] / "scripts"))
import fuzz  # noqa: E402

ROOT = fuzz.HP_ROOT


def stack(*frames):
    lines = ["PLEASE submit a bug report", "Stack dump:"]
    lines += [f" #{i} 0x0000 {f}" for i, f in enumerate(frames)]
    lines.append(" #99 0x0000 mlir::parseSourceFile(...)")
    return "\n".join(lines)


def test_upstream_parser_inside_an_hp_region_is_upstream():
    err = stack("mlir::Attribute::getContext() const (/usr/lib/llvm-22/lib/libMLIR.so.22.1+0x1)",
                "mlir::linalg::ReduceOp::parse(mlir::OpAsmParser&, mlir::OperationState&) (hp-opt+0x2)",
                f"parseRegionBody(mlir::OpAsmParser&) {ROOT}/lib/Dialect/DTensor/IR/DTensorOps.cpp:533:25",
                "hp::dtensor::GlobalRegionOp::parse(mlir::OpAsmParser&, mlir::OperationState&)")
    assert fuzz.attribute(err, ["--hp-partition"]) == "upstream"


def test_hp_parser_crash_is_hp():
    err = stack("mlir::Attribute::getContext() const (/usr/lib/llvm-22/lib/libMLIR.so.22.1+0x1)",
                f"hp::dtensor::DTensorType::parse(mlir::AsmParser&) {ROOT}/lib/Dialect/DTensor/IR/DTensorTypes.cpp:40:3",
                "mlir::linalg::ReduceOp::parse(mlir::OpAsmParser&, mlir::OperationState&) (hp-opt+0x2)")
    assert fuzz.attribute(err, []) == "hp"


def test_pass_crash_with_hp_frames_is_hp():
    err = "\n".join(["Stack dump:",
                     " #0 0x0 mlir::Operation::erase()",
                     " #1 0x0 hp::dtensor::something(mlir::Operation*)"])
    assert fuzz.attribute(err, ["--dtensor-propagate"]) == "hp"
