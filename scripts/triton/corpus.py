#!/usr/bin/env python3
"""Compile the Triton kernel corpus (corpus_kernels.py) to PTX without a GPU.

Usage: python3 scripts/triton/corpus.py OUTDIR [--only SUBSTRING[,SUBSTRING...]]

Needs nothing but an installed triton (tested with 3.9.0). Each job is compiled with
triton.compile(ASTSource(...), target=GPUTarget("cuda", cap, 32)) for every capability it lists
(80, 90, 100 = sm_100a, 120); OUTDIR gets <job>.<target>.ptx per compiled job and corpus.json:
one record per (job, capability) with the kernel name, signature, constexprs, num_warps, the
shared memory Triton asks for, and the compiler's error where it refused. run_corpus.py runs the
records on ptxsim.

Triton records the kernel file's absolute path in .file and .debug_info, so the kernels are
copied to a fixed staging directory first; the output does not depend on the checkout path.
"""
import importlib.util
import json
import os
import re
import shutil
import sys

# Pin the FP-fusion default (Triton 3.9 warns that it will change in 3.10).
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "0")

import triton  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
STAGE = "/tmp/ptxsim-triton-corpus-stage"
ALL = (80, 90, 100, 120)

# Triton's element type names
DTYPES = ["i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "fp16", "bf16", "fp32", "fp64",
          "fp8e4nv", "fp8e5", "fp8e4b15"]
WIDTH = {"fp8e4nv": 1, "fp8e5": 1, "fp8e4b15": 1, "fp16": 2, "bf16": 2, "fp32": 4, "fp64": 8}
MATH_F32 = ["exp", "exp2", "log", "log2", "sin", "cos", "sqrt", "sqrt_rn", "rsqrt", "erf", "floor",
            "ceil", "abs", "recip_rn", "fdiv", "sigmoid", "tanh", "exp10", "expm1", "log1p",
            "log10", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "cbrt", "erfc",
            "lgamma", "pow", "atan2", "trunc", "rint", "fma"]
MATH_F64 = [f for f in MATH_F32 if f not in ("fdiv", "exp2", "log2", "erf", "sigmoid")] + ["exp2",
                                                                                      "log2"]
MATH_HALF = ["exp", "exp2", "log", "log2", "sin", "cos", "sqrt", "rsqrt", "floor", "ceil", "abs",
             "sigmoid", "fma"]


def is_float(dtype):
    return dtype in WIDTH


def job(name, kernel, sig, consts, caps=ALL, warps=4, stages=None):
    return {"name": name, "kernel": kernel, "signature": sig, "constexprs": consts,
            "caps": list(caps), "num_warps": warps, "num_stages": stages}


def jobs():
    out = []
    out.append(job("vec_add_f32", "vec_add", {"x_ptr": "*fp32", "y_ptr": "*fp32",
                                              "out_ptr": "*fp32", "n": "i32",
                                              "BLOCK": "constexpr"}, {"BLOCK": 256}))
    out.append(job("softmax_persistent", "softmax_persistent",
                   {"x_ptr": "*fp32", "out_ptr": "*fp32", "n_rows": "i32", "n_cols": "i32",
                    "stride": "i32", "BLOCK": "constexpr"}, {"BLOCK": 128}))
    out.append(job("philox_bits", "philox_bits", {"out_ptr": "*u32", "n": "i32", "seed": "i32",
                                                  "BLOCK": "constexpr"}, {"BLOCK": 128}))
    out.append(job("dropout", "dropout", {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32",
                                          "p": "fp32", "seed": "i32", "BLOCK": "constexpr"},
                   {"BLOCK": 256}))
    for dt in ("fp32", "fp16"):
        out.append(job(f"layer_norm_fwd_{dt}", "layer_norm_fwd",
                       {"x_ptr": f"*{dt}", "w_ptr": "*fp32", "b_ptr": "*fp32",
                        "y_ptr": f"*{dt}", "mean_ptr": "*fp32", "rstd_ptr": "*fp32",
                        "stride": "i32", "n_cols": "i32", "eps": "fp32",
                        "BLOCK": "constexpr"}, {"BLOCK": 128}))
    out.append(job("layer_norm_bwd", "layer_norm_bwd",
                   {"x_ptr": "*fp32", "dy_ptr": "*fp32", "w_ptr": "*fp32", "mean_ptr": "*fp32",
                    "rstd_ptr": "*fp32", "dx_ptr": "*fp32", "dw_ptr": "*fp32", "db_ptr": "*fp32",
                    "n_rows": "i32", "n_cols": "i32", "BLOCK": "constexpr"}, {"BLOCK": 256}))
    mm = lambda a, c, prec="ieee": {  # noqa: E731
        "a_ptr": f"*{a}", "b_ptr": f"*{a}", "c_ptr": f"*{c}", "M": "i32", "N": "i32", "K": "i32",
        "stride_am": "i32", "stride_ak": "i32", "stride_bk": "i32", "stride_bn": "i32",
        "stride_cm": "i32", "stride_cn": "i32", "BM": "constexpr", "BN": "constexpr",
        "BK": "constexpr", "GROUP_M": "constexpr", "PRECISION": "constexpr"}
    tiles = {"BM": 64, "BN": 64, "BK": 32, "GROUP_M": 2}
    for a, c, prec, caps in [("fp16", "fp32", "ieee", ALL), ("fp16", "fp16", "ieee", ALL),
                             ("bf16", "fp32", "ieee", ALL), ("fp32", "fp32", "tf32", ALL),
                             ("fp32", "fp32", "ieee", ALL), ("fp32", "fp32", "tf32x3", ALL),
                             ("i8", "i32", "ieee", ALL), ("fp8e4nv", "fp32", "ieee", (90, 100, 120)),
                             ("fp8e5", "fp32", "ieee", (90, 100, 120)),
                             ("fp8e5", "fp16", "ieee", (90, 100, 120))]:
        consts = dict(tiles, PRECISION=prec)
        if a in ("fp8e4nv", "fp8e5", "i8"):
            consts["BK"] = 64
        out.append(job(f"matmul_{a}_{c}_{prec}", "matmul", mm(a, c), consts, caps))
    pers = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32", "M": "i32", "N": "i32",
            "K": "i32", "BM": "constexpr", "BN": "constexpr", "BK": "constexpr"}
    out.append(job("matmul_persistent_fp16", "matmul_persistent", pers,
                   {"BM": 64, "BN": 64, "BK": 32}))
    for a in ("fp16", "bf16", "fp8e4nv"):
        sig = dict(pers, a_ptr=f"*{a}", b_ptr=f"*{a}")
        out.append(job(f"matmul_tma_{a}", "matmul_tma", sig,
                       {"BM": 64, "BN": 64, "BK": 64 if a == "fp8e4nv" else 32}, (90, 100)))
    for a, c in (("fp16", "fp32"), ("bf16", "bf16"), ("fp8e4nv", "fp16")):
        bk = 64 if a == "fp8e4nv" else 32
        out.append(job(f"matmul_host_tma_{a}_{c}", "matmul_host_tma",
                       {"a_desc": f"tensordesc<{a}[64, {bk}]>", "b_desc": f"tensordesc<{a}[{bk}, 64]>",
                        "c_desc": f"tensordesc<{c}[64, 64]>", "M": "i32", "N": "i32", "K": "i32",
                        "BM": "constexpr", "BN": "constexpr", "BK": "constexpr"},
                       {"BM": 64, "BN": 64, "BK": bk}, (90, 100)))
    out.append(job("matmul_tma_ws_fp16", "matmul_tma_ws", pers, {"BM": 128, "BN": 64, "BK": 32},
                   (90, 100)))
    for a, c, f16acc in (("fp16", "fp16", True), ("fp64", "fp64", False), ("fp16", "fp32", False)):
        out.append(job(f"batched_dot_{a}_{c}" + ("_f16acc" if f16acc else ""), "batched_dot",
                       {"a_ptr": f"*{a}", "b_ptr": f"*{a}", "c_ptr": f"*{c}", "B": "constexpr",
                        "M": "constexpr", "N": "constexpr", "K": "constexpr",
                        "F16_ACC": "constexpr"},
                       {"B": 2, "M": 32, "N": 32, "K": 32, "F16_ACC": f16acc}))
    out.append(job("custom_scans", "custom_scans",
                   {"a_ptr": "*i32", "b_ptr": "*i32", "gidx_ptr": "*i32", "rec_ptr": "*i32",
                    "best_ptr": "*i32", "gathered_ptr": "*i32", "xs_ptr": "*i32",
                    "BLOCK": "constexpr"}, {"BLOCK": 256}))
    out.append(job("integer_ops", "integer_ops", {"x_ptr": "*i32", "y_ptr": "*i32",
                                                  "out_ptr": "*i32", "n": "i32",
                                                  "BLOCK": "constexpr"}, {"BLOCK": 256}))
    out.append(job("nan_minmax", "nan_minmax", {"x_ptr": "*fp32", "y_ptr": "*fp32",
                                                "out_ptr": "*fp32", "n": "i32",
                                                "BLOCK": "constexpr"}, {"BLOCK": 256}))
    out.append(job("matmul_tma_persistent_fp16", "matmul_tma_persistent",
                   dict(pers, c_ptr="*fp16"), {"BM": 128, "BN": 64, "BK": 32}, (90, 100)))
    out.append(job("grouped_gemm_fp16", "grouped_gemm",
                   {"a_ptrs": "*i64", "b_ptrs": "*i64", "c_ptrs": "*i64", "sizes_ptr": "*i32",
                    "group_count": "i32", "BM": "constexpr", "BN": "constexpr",
                    "BK": "constexpr"}, {"BM": 64, "BN": 64, "BK": 32}))
    att = {"q_ptr": "*fp16", "k_ptr": "*fp16", "v_ptr": "*fp16", "o_ptr": "*fp16",
           "lse_ptr": "*fp32", "sm_scale": "fp32", "seq": "i32", "HEAD": "constexpr",
           "BM": "constexpr", "BN": "constexpr"}
    out.append(job("attention_fwd", "attention_fwd", att, {"HEAD": 64, "BM": 64, "BN": 32}))
    out.append(job("attention_bwd_dv", "attention_bwd_dv",
                   {"q_ptr": "*fp16", "k_ptr": "*fp16", "do_ptr": "*fp16", "lse_ptr": "*fp32",
                    "dv_ptr": "*fp32", "sm_scale": "fp32", "seq": "i32", "HEAD": "constexpr",
                    "BM": "constexpr", "BN": "constexpr"}, {"HEAD": 64, "BM": 32, "BN": 64}))
    for fa, fb in [("e4m3", "e4m3"), ("e5m2", "e4m3"), ("e2m1", "e2m1"), ("e4m3", "e2m1")]:
        ta = "*u8"
        out.append(job(f"dot_scaled_{fa}_{fb}", "dot_scaled",
                       {"a_ptr": ta, "a_scale_ptr": "*u8", "b_ptr": "*u8", "b_scale_ptr": "*u8",
                        "c_ptr": "*fp32", "M": "i32", "N": "i32", "K": "i32",
                        "A_FORMAT": "constexpr", "B_FORMAT": "constexpr", "BM": "constexpr",
                        "BN": "constexpr", "BK": "constexpr", "VEC": "constexpr"},
                       {"A_FORMAT": fa, "B_FORMAT": fb, "BM": 128, "BN": 128, "BK": 128,
                        "VEC": 32}, (90, 100, 120)))
    # nvfp4: e2m1 with an e4m3 scale every 16 elements
    out.append(job("dot_scaled_nvfp4", "dot_scaled",
                   {"a_ptr": "*u8", "a_scale_ptr": "*fp8e4nv", "b_ptr": "*u8",
                    "b_scale_ptr": "*fp8e4nv", "c_ptr": "*fp32", "M": "i32", "N": "i32",
                    "K": "i32", "A_FORMAT": "constexpr", "B_FORMAT": "constexpr",
                    "BM": "constexpr", "BN": "constexpr", "BK": "constexpr", "VEC": "constexpr"},
                   {"A_FORMAT": "e2m1", "B_FORMAT": "e2m1", "BM": 128, "BN": 128, "BK": 128,
                    "VEC": 16}, (100, 120)))
    out.append(job("row_scans_i32", "row_scans",
                   {"x_ptr": "*i32", "cumsum_ptr": "*i32", "cumprod_ptr": "*i32",
                    "sorted_ptr": "*i32", "argmax_ptr": "*i32", "argmin_ptr": "*i32",
                    "n_cols": "i32", "BLOCK": "constexpr"}, {"BLOCK": 256}))
    out.append(job("float_reductions", "float_reductions",
                   {"x_ptr": "*fp32", "cumsum_ptr": "*fp32", "sorted_ptr": "*fp32",
                    "stats_ptr": "*fp32", "BLOCK": "constexpr"}, {"BLOCK": 512}))
    out.append(job("histogram", "histogram", {"x_ptr": "*i32", "hist_ptr": "*i32", "n": "i32",
                                              "BINS": "constexpr", "BLOCK": "constexpr"},
                   {"BINS": 64, "BLOCK": 512}))
    out.append(job("atomics", "atomics", {"x_ptr": "*i32", "fx_ptr": "*fp32", "out_ptr": "*i32",
                                          "fout_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"},
                   {"BLOCK": 128}))
    out.append(job("bitcast_f32", "bitcast_f32", {"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32",
                                                  "BLOCK": "constexpr"}, {"BLOCK": 256}))
    for dt, fns in (("fp32", MATH_F32), ("fp64", MATH_F64), ("fp16", MATH_HALF),
                    ("bf16", MATH_HALF)):
        for fn in fns:
            out.append(job(f"math_{fn}_{dt}", "unary_math",
                           {"x_ptr": f"*{dt}", "y_ptr": f"*{dt}", "n": "i32", "FN": "constexpr",
                            "BLOCK": "constexpr"}, {"FN": fn, "BLOCK": 256}, (80, 90, 100)))
    for src in DTYPES:
        for dst in DTYPES:
            if src == dst:
                continue
            roundings = ["rtne"]
            if is_float(src) and is_float(dst) and WIDTH[dst] < WIDTH[src]:
                roundings.append("rtz")  # fp_downcast_rounding applies to narrowing casts
            for r in roundings:
                out.append(job(f"cast_{src}_{dst}_{r}", "cast",
                               {"x_ptr": f"*{src}", "y_ptr": f"*{dst}", "n": "i32",
                                "ROUNDING": "constexpr", "BLOCK": "constexpr"},
                               {"ROUNDING": r, "BLOCK": 256}, (80, 90, 100)))
    return out


def load_kernels():
    shutil.rmtree(STAGE, ignore_errors=True)
    os.makedirs(STAGE)
    staged = os.path.join(STAGE, "corpus_kernels.py")
    shutil.copyfile(os.path.join(HERE, "corpus_kernels.py"), staged)
    spec = importlib.util.spec_from_file_location("ptxsim_triton_corpus", staged)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out_dir = sys.argv[1]
    only = sys.argv[3] if len(sys.argv) > 3 and sys.argv[2] == "--only" else None
    os.makedirs(out_dir, exist_ok=True)
    mod = load_kernels()
    records = []
    for j in jobs():
        if only and not any(o in j["name"] for o in only.split(",")):
            continue
        for cap in j["caps"]:
            rec = {k: j[k] for k in ("name", "kernel", "signature", "constexprs", "num_warps")}
            rec["cap"] = cap
            options = {"num_warps": j["num_warps"]}
            if j["num_stages"]:
                options["num_stages"] = j["num_stages"]
            try:
                src = triton.compiler.ASTSource(fn=getattr(mod, j["kernel"]),
                                                signature=j["signature"],
                                                constexprs=j["constexprs"])
                k = triton.compile(src, target=GPUTarget("cuda", cap, 32), options=options)
            except Exception as e:  # the compiler's refusal is a result, recorded
                rec["error"] = f"{type(e).__name__}: {str(e).strip().splitlines()[-1][:300]}"
                records.append(rec)
                print(f"  {j['name']} sm_{cap}: not compiled ({rec['error'][:120]})")
                continue
            ptx = k.asm["ptx"]
            target = re.search(r"^\.target\s+(\w+)", ptx, re.M).group(1)
            rec["file"] = f"{j['name']}.{target}.ptx"
            rec["entry"] = k.metadata.name
            rec["shared"] = k.metadata.shared
            rec["num_warps"] = k.metadata.num_warps
            rec["tensordesc_meta"] = k.metadata.tensordesc_meta or []
            rec["global_scratch"] = [k.metadata.global_scratch_size,
                                     k.metadata.global_scratch_align]
            rec["profile_scratch"] = [getattr(k.metadata, "profile_scratch_size", 0),
                                      getattr(k.metadata, "profile_scratch_align", 1)]
            with open(os.path.join(out_dir, rec["file"]), "w") as f:
                f.write(ptx)
            records.append(rec)
    shutil.rmtree(STAGE, ignore_errors=True)
    with open(os.path.join(out_dir, "corpus.json"), "w") as f:
        json.dump({"triton": triton.__version__, "records": records}, f, indent=1)
    compiled = sum("file" in r for r in records)
    print(f"{compiled} of {len(records)} compiled (triton {triton.__version__})")


if __name__ == "__main__":
    main()
