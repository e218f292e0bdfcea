#!/usr/bin/env python3
"""A fourth probe: whole modules, varying what is *around* the instructions.

fuzz.py, specgen.py, realmut.py and opgen.py vary instruction lines inside one fixed kernel.
This generator keeps the instructions trivial and varies the module instead: `.version` /
`.target` / `.address_size` headers (target lists, `texmode_*`, `map_f64_to_f32`, `debug`),
variables of every state space with `.align`, arrays (multi-dimensional, unsized `[]`) and
initializers (scalars, braces, nested braces, `generic()`, `mask()`, symbol addresses and
`sym+off`, `0f`/`0d` literals, too many or wrongly typed values), linkage (`.extern`,
`.visible`, `.weak`, `.common`) on variables and functions, `.func` declarations and
definitions with their parameter lists (`.param .align 8 .b8 x[16]`, `.reg` parameters,
`.ptr.global.align`), `.callprototype` and `call` through prototypes and target lists, the
performance directives (`.maxnreg`, `.maxntid`, `.reqntid`, `.minnctapersm`, `.maxnctapersm`,
`.noreturn`, `.pragma`, the cluster directives), `.file`/`.loc`, `.section .debug_*` blocks,
duplicate names, shadowing in nested `{}` blocks, labels, `%r<N>` ranges, identifier rules,
comments and long names.

Every module is one probe: a template (a valid module around one feature) is filled with
random choices, and half of them get one or two small mutations of the feature's text (a token
dropped, doubled, swapped with its neighbour, a number or a directive word replaced). Output:
one module per file in `--out DIR` (`NNNNN.ptx`, first line `// modgen <target>` naming the
-arch for ptxas) -- or, with `--judge`, the verdicts of ptxas (`ptxas -arch <target>
m.ptx -o /dev/null`) and of `--ptxsim BIN` (`check --format json`) on each module, and the
disagreements:

  python3 scripts/conformance/modgen.py --seed 5 --modules 2000 --judge \
      --ptxsim target/debug/examples/check_json [--show 40] [--tsv out.tsv]

`--tsv` writes the agreeing modules as `verdict<TAB>module` rows, newlines as `\\n` (the format
of tests/conformance/modules.txt.xz, read by crates/check/tests/modules.rs). Standard library
only; ptxas is found as gen.py finds it.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen  # noqa: E402  (ptxas location, -arch choice)

PAIRS = [("sm_52", "6.0"), ("sm_61", "6.4"), ("sm_70", "7.0"), ("sm_75", "7.5"),
         ("sm_80", "7.8"), ("sm_86", "8.0"), ("sm_89", "8.3"), ("sm_90", "8.5"),
         ("sm_90a", "8.0"), ("sm_100a", "8.7"), ("sm_120", "8.8"), ("sm_120a", "9.0"),
         ("sm_100f", "8.8"), ("sm_103a", "9.0")]
TYPES = ["b8", "b16", "b32", "b64", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64",
         "f16", "f16x2", "bf16", "f32", "f64", "pred", "b128", "e4m3", "f16x4"]
VAR_TYPES = ["b8", "b16", "b32", "b64", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64",
             "f16", "f32", "f64"]
SPACES = ["global", "const", "shared", "local"]
NUMS = ["0", "1", "2", "3", "4", "7", "8", "16", "32", "64", "128", "256", "1024", "1025",
        "65536", "-1", "0x10", "4294967296", "255", "2048"]
WORDS = [".align", ".global", ".shared", ".const", ".local", ".param", ".reg", ".extern",
         ".visible", ".weak", ".common", ".b8", ".u32", ".f64", ".pred", ".b128", ".v2", ".v4",
         ".v8", ".ptr", ".func", ".entry", ".u64", ".s32", ".f32", ".b32", ".tex", ".texref",
         ".samplerref", ".surfref", ".file", ".loc", ".section", ".maxntid", ".reqntid",
         ".noreturn", ".callprototype", ".b64", ".f16", ".weak", ".sreg"]


def pick(rng, xs):
    return xs[rng.randrange(len(xs))]


def ident(rng) -> str:
    return pick(rng, ["a", "v", "g_x", "$v", "%v", "_v", "v$1", "v.x", "V9", "__v"])


def scalar_init(rng, t: str) -> str:
    if t in ("f32",):
        return pick(rng, ["0f3F800000", "1.0", "0", "2", "0d3FF0000000000000", "1.5e3"])
    if t in ("f64",):
        return pick(rng, ["0d3FF0000000000000", "1.0", "0", "0f3F800000"])
    if t in ("f16", "bf16"):
        return pick(rng, ["0", "1", "0f3F800000", "1.0"])
    return pick(rng, ["0", "1", "-1", "255", "65535", "0x7fffffff", "4294967295",
                      "18446744073709551615", "0f3F800000", "1.0", "'a'", "1+2", "(3*4)",
                      "-(1)", "~0", "1<<3"])


def array_init(rng, t: str, n: int) -> str:
    k = pick(rng, [n, n, max(n - 1, 0), n + 1, 0])
    return "{" + ", ".join(scalar_init(rng, t) for _ in range(k)) + "}"


# ---- templates: each returns (module text parts) ----

def kernel(body: str = "", params: str = "", perf: str = "", name: str = "k",
           link: str = ".visible") -> str:
    return f"{link} .entry {name}({params}){perf}\n{{\n{body}\tret;\n}}\n"


def t_header(rng, target, version):
    """The header: target lists, options, address size, versions."""
    tg = [target]
    opts = []
    if rng.random() < 0.4:
        tg.append(pick(rng, ["texmode_unified", "texmode_independent", "map_f64_to_f32",
                             "debug", "sm_80", "sm_52", "sm_90a", "texmode_raw", "sm_10"]))
    if rng.random() < 0.2:
        tg.append(pick(rng, ["texmode_unified", "debug", "map_f64_to_f32"]))
    sep = pick(rng, [", ", ",", " , ", ", ", " "])
    head = f".version {version}\n.target {sep.join(tg)}\n"
    asz = pick(rng, ["64", "64", "32", "16", "", "128"])
    if asz:
        head += f".address_size {asz}\n"
    if rng.random() < 0.15:
        head += pick(rng, [f".version {version}\n", f".target {target}\n",
                           ".address_size 64\n"])
    body = "\t.reg .b32 %r<2>;\n\tmov.b32 %r1, 1;\n"
    if "debug" in tg and rng.random() < 0.5:
        head += '.file 1 "a.cu"\n'
        body = "\t.loc 1 3 0\n" + body
    return head, "", kernel(body)


def t_variable(rng, target, version):
    """A module-scope variable: space, linkage, alignment, type, array, initializer."""
    space = pick(rng, SPACES + ["global", "const", "param", "reg", "tex"])
    t = pick(rng, VAR_TYPES)
    parts = []
    if rng.random() < 0.4:
        parts.append(pick(rng, [".extern", ".visible", ".weak", ".common", ".visible"]))
    parts.append("." + space)
    if rng.random() < 0.5:
        parts.append(".align " + pick(rng, ["1", "2", "4", "8", "16", "32", "64", "128", "3",
                                            "0", "256"]))
    if rng.random() < 0.2:
        parts.append("." + pick(rng, ["v2", "v4", "v8", "v3"]))
    parts.append("." + t)
    name = pick(rng, ["g", "g", "g", "$g", "_g", "g$x", "g.y", "%g", "g1"])
    dims = ""
    n = 1
    r = rng.random()
    if r < 0.3:
        n = int(pick(rng, ["1", "2", "4", "8", "16"]))
        dims = f"[{n}]"
    elif r < 0.4:
        dims = "[]"
        n = 3
    elif r < 0.5:
        dims = "[2][3]"
        n = 6
    elif r < 0.55:
        dims = pick(rng, ["[0]", "[-1]", "[2][]", "[][2]", "[1000000000]"])
    decl = " ".join(parts) + " " + name + dims
    r = rng.random()
    if r < 0.45:
        if dims == "[2][3]" and rng.random() < 0.6:
            decl += " = {" + ", ".join(array_init(rng, t, 3) for _ in range(2)) + "}"
        elif dims:
            decl += " = " + array_init(rng, t, n)
        else:
            decl += " = " + scalar_init(rng, t)
    elif r < 0.55:
        decl += " = " + pick(rng, ["h", "generic(h)", "h+4", "h-4", "generic(h)+8", "mask(h)",
                                   "{h, h+1}", "{generic(h), 0}", "k", "4+h"])
    use = ""
    if space in ("global", "const") and rng.random() < 0.5:
        use = f"\tmov.u64 %rd1, {name};\n"
    helper = ".global .align 4 .b32 h[4];\n" if rng.random() < 0.8 else ""
    body = "\t.reg .b64 %rd<2>;\n" + use
    return "", helper + decl + ";\n", kernel(body)


def t_local_decl(rng, target, version):
    """Declarations inside a kernel body: spaces, arrays, initializers, nested scopes."""
    lines = []
    space = pick(rng, ["reg", "reg", "local", "shared", "param", "global", "const"])
    t = pick(rng, TYPES)
    align = (".align " + pick(rng, ["4", "8", "16", "3"]) + " ") if rng.random() < 0.3 else ""
    name = pick(rng, ["%r", "%r", "%p", "x", "%x<4>", "%r<0>", "%r<100000>", "%r<-1>", "%r<1>",
                      "%0", "%r_a", "%tid", "%clock", "%r<2><3>"])
    dims = pick(rng, ["", "", "", "[4]", "[]"])
    init = ""
    if rng.random() < 0.2:
        init = " = " + pick(rng, ["0", "{1, 2, 3, 4}", "1.0"])
    lines.append(f"\t.{space} {align}.{t} {name}{dims}{init};")
    if rng.random() < 0.3:
        lines.append(pick(rng, [f"\t.{space} .{t} {name}{dims};",
                                "\t{\n\t.reg .b32 %r;\n\t}",
                                "\t{\n\t.reg .b32 %q;\n\tmov.b32 %q, 1;\n\t}\n\tmov.b32 %q, 2;",
                                "\t{\n\t}", "\t{{\n\t.reg .pred %p;\n\t}}"]))
    return "", "", kernel("\n".join(lines) + "\n")


def param_list(rng, entry: bool, n: int | None = None) -> str:
    k = n if n is not None else rng.randrange(0, 4)
    ps = []
    for i in range(k):
        r = rng.random()
        if r < 0.4:
            ps.append(f".param .{pick(rng, VAR_TYPES + ['b128', 'pred'])} p{i}")
        elif r < 0.55:
            ps.append(f".param .align {pick(rng, ['1', '4', '8', '16', '3'])} .b8 p{i}"
                      f"[{pick(rng, ['1', '16', '8', '', '0'])}]")
        elif r < 0.65:
            ps.append(f".param .u64 .ptr.{pick(rng, ['global', 'shared', 'const', 'local', 'generic'])}"
                      f".align {pick(rng, ['4', '8', '16', '3'])} p{i}")
        elif r < 0.75:
            ps.append(f".reg .{pick(rng, ['b32', 'u64', 'f32', 'pred', 'b8'])} p{i}")
        elif r < 0.8:
            ps.append(f".param .{pick(rng, ['u32', 'b64'])} p{pick(rng, ['0', str(i)])}")
        elif r < 0.85:
            ps.append(f".param .u32 .ptr.global p{i}")
        else:
            ps.append(f".param .b32 p{i}")
    if entry and rng.random() < 0.1:
        ps = [f".param .align 8 .b8 p{i}[{pick(rng, ['4096', '4097', '32764', '32768', '65536'])}]"
              for i in range(rng.randrange(1, 3))]
    return ", ".join(ps)


def t_function(rng, target, version):
    """.func declarations and definitions, linkage, parameters, returns, calls."""
    link = pick(rng, ["", "", ".visible ", ".extern ", ".weak ", ".common ", ".static "])
    ret = pick(rng, ["", "", "(.param .b32 r) ", "(.reg .b32 r) ", "(.param .align 8 .b8 r[8]) ",
                     "(.param .b32 r, .param .b32 s) "])
    params = param_list(rng, False)
    noret = " .noreturn" if rng.random() < 0.15 else ""
    proto = f".func {ret}f({params}){noret}"
    defined = link != ".extern " or rng.random() < 0.2
    body = "{\n\tret;\n}\n" if defined else ";\n"
    if noret and defined:
        body = "{\n\ttrap;\n}\n" if rng.random() < 0.7 else body
    decl = ""
    if rng.random() < 0.25:
        decl = f"{pick(rng, ['', '.extern ', '.visible ', '.weak '])}{proto};\n"
    # a call
    nargs = params.count(".param") + params.count(".reg")
    call = ""
    if rng.random() < 0.7:
        rets = ""
        if ret:
            rets = pick(rng, ["(rv), ", "(rv), ", "", "(rv, rv), "])
        args = ", ".join(["a"] * (nargs + pick(rng, [0, 0, 0, 1, -1])))
        args = f", ({args})" if (args or rng.random() < 0.5) else ""
        call = ("\t{\n\t.param .b64 a;\n\t.param .b32 rv;\n\t"
                f"call{pick(rng, ['', '', '.uni'])} {rets}f{args};\n\t}}\n")
        if rng.random() < 0.2:
            call = call.replace(".param .b64 a", ".reg .b64 a")
    order = decl + link + proto + body if rng.random() < 0.85 else ""
    tail = ""
    if not order:
        tail = link + proto + body
    return "", order, kernel(call) + tail


def t_callprototype(rng, target, version):
    """Indirect calls through .callprototype and target lists."""
    proto_ret = pick(rng, ["", "(.param .b32 _) ", "(.param .b32 r) "])
    proto_args = pick(rng, ["(.param .b32 _)", "(.param .b32 _, .param .b64 _)", "()",
                            "(.param .b32 x)", "(.reg .b32 _)", "(.param .align 8 .b8 _[8])"])
    fret = pick(rng, ["", "(.param .b32 r) "]) if rng.random() < 0.3 else proto_ret.replace("_", "r")
    fargs = proto_args.replace("_", "p") if rng.random() < 0.8 else "(.param .b32 q)"
    funcs = f".func {fret}f{fargs}\n{{\n\tret;\n}}\n"
    if rng.random() < 0.3:
        funcs += f".func {fret}g{fargs}\n{{\n\tret;\n}}\n"
    where = rng.random()
    proto = f"pr: .callprototype {proto_ret}_ {proto_args};\n"
    nargs = proto_args.count(".param") + proto_args.count(".reg")
    rets = "(rv), " if proto_ret and rng.random() < 0.9 else ""
    args = ", ".join(["a"] * nargs)
    argl = f"({args})" if args or rng.random() < 0.5 else "()"
    how = rng.random()
    if how < 0.4:
        tail = "pr"
    elif how < 0.7:
        tail = "tl"
    else:
        tail = pick(rng, ["f", "k", "nope", "%r1", "pr, tl"])
    body = "\t.reg .u64 %rd<2>;\n\t.reg .b32 %r<2>;\n"
    if tail == "tl":
        body += "tl: .branchtargets f;\n" if rng.random() < 0.3 else "\t.global .u64 tl[1] = {f};\n"
    if where < 0.5:
        body += "\t" + proto
    mov = pick(rng, ["\tmov.u64 %rd1, f;\n", "\tmov.u64 %rd1, f;\n", "\tmov.u32 %r1, f;\n",
                     "\tmov.u64 %rd1, pr;\n", "\tmov.u64 %rd1, k;\n"])
    body += mov + ("\t{\n\t.param .b32 a;\n\t.param .b64 a2;\n\t.param .b32 rv;\n"
                   f"\tcall {rets}%rd1, {argl}, {tail};\n\t}}\n")
    body = body.replace(", (), ", ", ") if rng.random() < 0.3 else body
    module_proto = proto if where >= 0.5 else ""
    return "", funcs + module_proto, kernel(body)


def t_perf(rng, target, version):
    """Performance-tuning directives on entries and functions."""
    d = []
    for _ in range(rng.randrange(1, 3)):
        r = rng.randrange(11)
        if r == 0:
            d.append(f".maxnreg {pick(rng, ['16', '32', '255', '256', '0', '24', '1'])}")
        elif r == 1:
            d.append(f".maxntid {pick(rng, ['256', '128, 1, 1', '32, 32', '1024', '1025', '0', '2048, 1', '32,32,2'])}")
        elif r == 2:
            d.append(f".reqntid {pick(rng, ['256', '128, 2', '64, 4, 4', '1025', '0', '32, 1, 1, 1'])}")
        elif r == 3:
            d.append(f".minnctapersm {pick(rng, ['1', '4', '0', '33'])}")
        elif r == 4:
            d.append(f".maxnctapersm {pick(rng, ['1', '4', '0'])}")
        elif r == 5:
            d.append(".noreturn")
        elif r == 6:
            d.append(f".reqnctapercluster {pick(rng, ['2', '2, 1', '2, 2, 2', '0', '9', '16'])}")
        elif r == 7:
            d.append(".explicitcluster")
        elif r == 8:
            d.append(f".maxclusterrank {pick(rng, ['8', '0', '16', '1'])}")
        elif r == 9:
            d.append(f".pragma \"{pick(rng, ['nounroll', 'used_bytes_mask 0xff', 'enable_smem_spilling', 'unknown'])}\";")
        else:
            d.append(f".blocksareclusters")
    perf = "\n" + "\n".join(d)
    body = ""
    if rng.random() < 0.3:
        body = f"\t.pragma \"{pick(rng, ['nounroll', 'foo', 'nounroll; x'])}\";\n"
    if rng.random() < 0.3:
        # on a function instead
        return "", f".func f(){perf}\n{{\n\tret;\n}}\n", kernel(body + "\tcall f;\n")
    return "", "", kernel(body, perf=perf)


def t_debug(rng, target, version):
    """.file, .loc (function_name / inlined_at), .section blocks."""
    files = f'.file 1 "{pick(rng, ["a.cu", "/x/b.cu", ""])}"'
    if rng.random() < 0.3:
        files += pick(rng, [", 1700000000, 1234", ", 0, 0", ", 1"])
    files += "\n"
    if rng.random() < 0.2:
        files += pick(rng, ['.file 1 "c.cu"\n', '.file 2 "c.cu"\n', '.file 0 "c.cu"\n'])
    loc = f"\t.loc {pick(rng, ['1', '1', '2', '0', '9'])} {pick(rng, ['3', '0', '-1'])} {pick(rng, ['0', '5'])}"
    if rng.random() < 0.3:
        loc += pick(rng, [", function_name $L__info_string0, inlined_at 1 2 0",
                          ", inlined_at 1 2 0", ", function_name $L__info_string0",
                          ", function_name nothere, inlined_at 1 2 0"])
    body = loc + "\n\t.reg .b32 %r<2>;\n\tmov.b32 %r1, 1;\n"
    sec = ""
    if rng.random() < 0.6:
        name = pick(rng, ["debug_info", "debug_abbrev", "debug_str", "debug_loc", "debug_line",
                          "nv_debug", "text", "debug_foo"])
        items = pick(rng, ["\t.b32 1\n\t.b8 2, 3\n", "\t.b64 k\n", "\t.b32 k\n",
                           "$L__info_string0:\n\t.b8 107, 0\n", "\t.b16 0x10\n",
                           "\t.b8 'a'\n", "\t.u32 1\n", "\t.b32 $L__x+4\n$L__x:\n"])
        sec = f"\t.section\t.{name}\n\t{{\n{items}\t}}\n"
    return "", files, kernel(body) + sec


def t_labels(rng, target, version):
    """Labels and branches: duplicates, undefined, across scopes and functions."""
    lines = ["\t.reg .pred %p;", "\tsetp.eq.u32 %p, 1, 1;"]
    r = rng.randrange(8)
    if r == 0:
        lines += ["L1:", "L1:"]
    elif r == 1:
        lines += ["\t@%p bra L9;"]
    elif r == 2:
        lines += ["\t{", "L2:", "\t}", "\t@%p bra L2;"]
    elif r == 3:
        lines += ["\t@%p bra L3;", "\t{", "L3:", "\t}"]
    elif r == 4:
        lines += ["\t@%p bra $L__BB0_1;", "$L__BB0_1:"]
    elif r == 5:
        lines += ["\t@%p bra FL;"]
    elif r == 6:
        lines += ["%L:", "\tbra %L;"]
    else:
        lines += ["L4: L5:", "\tbra.uni L4;"]
    extra = ".func g()\n{\nFL:\n\tret;\n}\n" if rng.random() < 0.5 else ""
    return "", extra, kernel("\n".join(lines) + "\n")


def t_names(rng, target, version):
    """Identifier rules, duplicates, shadowing, ranges, comments, continuation."""
    r = rng.randrange(14)
    body = ""
    mod = ""
    if r == 0:
        n = pick(rng, ["x" * 1024, "x" * 4096, "a$b$c", "_", "__", "$", "%", "a.b", "1a", "a-b",
                       "é", "a\u00e9"])
        body = f"\t.reg .b32 {'%' + n if rng.random() < 0.5 else n};\n"
    elif r == 1:
        body = "\t.reg .b32 %r<4>;\n\t.reg .b32 %r2;\n"
    elif r == 2:
        body = "\t.reg .b32 %r<4>;\n\tmov.b32 %r4, 1;\n"
    elif r == 3:
        mod = ".global .b32 g;\n.global .b32 g;\n"
    elif r == 4:
        mod = ".global .b32 k;\n"
    elif r == 5:
        mod = ".global .b32 g;\n"
        body = "\t.reg .b32 g;\n\tmov.b32 g, 1;\n"
    elif r == 6:
        body = pick(rng, ["\t/* c /* nested */ */\n", "\t/* unterminated\n", "\t// c\n",
                          "\t/**/\n", "\t// a /* b\n", "\t*/\n"])
    elif r == 7:
        body = pick(rng, ["\t.reg .b32 \\\n%r;\n", "\t.reg .b32 %r; \\\n", "\t.reg\\\n.b32 %r;\n"])
    elif r == 8:
        body = "\t.reg .b32 %r<" + pick(rng, ["1", "65536", "1000000", "2147483648", "0x10",
                                                "08", "1e2"]) + ">;\n"
    elif r == 9:
        mod = pick(rng, [".alias a, b;\n", ".global .b32 a;\n.alias b, a;\n",
                         ".func f()\n{\n\tret;\n}\n.alias g, f;\n"])
    elif r == 10:
        body = pick(rng, ["\t.reg .b32 %tid;\n", "\t.reg .b32 %ntid;\n", "\t.reg .b32 %laneid;\n",
                          "\t.reg .b32 %clock64;\n", "\t.reg .b32 %envreg0;\n", "\t.reg .b32 WARP_SZ;\n",
                          "\t.reg .b32 %pm0;\n", "\t.reg .b32 %r_0;\n"])
    elif r == 11:
        mod = pick(rng, [".global .b32 k[2];\n", ".func k()\n{\n\tret;\n}\n",
                         ".entry k()\n{\n\tret;\n}\n", ".global .b32 f;\n.func f()\n{\n\tret;\n}\n"])
    elif r == 12:
        body = "\t.reg .b32 %r;\n\t{\n\t.reg .b32 %r;\n\tmov.b32 %r, 1;\n\t}\n"
        if rng.random() < 0.5:
            body = "\t.reg .b32 %r;\n\t.reg .b32 %r;\n"
    else:
        body = pick(rng, ["\t.reg .b32 %r<2>, %s<2>;\n", "\t.reg .b32 %r, %s, %t;\n",
                          "\t.reg .v2 .b32 %v;\n", "\t.reg .v4 .f32 %v<2>;\n", "\t.reg .v8 .b32 %v;\n",
                          "\t.reg .v2 .pred %v;\n", "\t.reg .v4 .f64 %v;\n", "\t.reg .v2 .b128 %v;\n"])
    return "", mod, kernel(body)


def t_entry(rng, target, version):
    """Entry parameters: counts, types, sizes, alignment, linkage of entries."""
    link = pick(rng, [".visible", ".visible", "", ".extern", ".weak", ".common"])
    params = param_list(rng, True, n=pick(rng, [0, 1, 2, 3, 5]))
    body = ""
    if params and rng.random() < 0.5:
        body = "\t.reg .b64 %rd;\n\tld.param.u64 %rd, [p0];\n"
    txt = kernel(body, params=params, link=link)
    if link == ".extern":
        txt = f".extern .entry k({params});\n"
    if rng.random() < 0.15:
        txt += kernel("", name=pick(rng, ["k", "k2", "main"]))
    return "", "", txt


def t_special(rng, target, version):
    """Texture, sampler and surface references; global handles; generic addresses."""
    d = pick(rng, [".global .texref t;", ".global .samplerref s;", ".global .surfref s;",
                   ".global .texref t = { filter_mode = linear };",
                   ".global .samplerref s = { addr_mode_0 = clamp_to_edge, filter_mode = nearest };",
                   ".global .samplerref s = { addr_mode_0 = wrap, addr_mode_1 = mirror };",
                   ".global .samplerref s = { normalized_coords = 1 };",
                   ".global .samplerref s = { filter_mode = bogus };",
                   ".global .texref t[2];", ".const .texref t;", ".tex .u32 t;", ".tex .b32 t;",
                   ".shared .texref t;", ".global .surfref s = { width = 4 };",
                   ".global .samplerref s = { force_unnormalized_coords = 1 };"])
    if rng.random() < 0.3:
        d = ".extern " + d
    return "", d + "\n", kernel("")


ROOT = Path(__file__).resolve().parents[2]
_REAL: list[tuple[str, list[str]]] = []


def real_modules() -> list[tuple[str, list[str]]]:
    """(first .target, lines) of the repository's small .ptx files with a header."""
    if not _REAL:
        for path in sorted(ROOT.glob("ptx-samples/**/*.ptx")) + sorted(ROOT.glob("tests/**/*.ptx")):
            if path.stat().st_size > 16000:
                continue
            text = path.read_text(errors="replace")
            m = re.search(r"^\s*\.target\s+(sm_\d+[af]?)", text, re.M)
            if m and re.search(r"^\s*\.version", text, re.M):
                _REAL.append((m.group(1), text.splitlines()))
    return _REAL


def t_real(rng, target, version):
    """A module of the repository (nvcc, Triton, hand-written) with one or two of its
    declaration or directive lines mutated (or none, one time in five)."""
    target, lines = pick(rng, real_modules())
    lines = list(lines)
    candidates = [i for i, l in enumerate(lines)
                  if re.match(r"\s*(\.|\$?\w+:|call|\{|\})", l)
                  and not l.lstrip().startswith("//")]
    if candidates and rng.random() < 0.8:
        for _ in range(rng.randrange(1, 3)):
            i = pick(rng, candidates)
            lines[i] = mutate(rng, lines[i])
    return "\n".join(lines) + "\n", "", "", target


TEMPLATES = [t_header, t_variable, t_local_decl, t_function, t_callprototype, t_perf, t_debug,
             t_labels, t_names, t_entry, t_special, t_real, t_real, t_real]

TOKEN_RE = re.compile(r"\s+|[A-Za-z_$%.][\w$.]*|0[xX][0-9a-fA-F]+|\d+|\"[^\"]*\"|.", re.S)


def mutate(rng, text: str) -> str:
    toks = [t for t in TOKEN_RE.findall(text)]
    idx = [i for i, t in enumerate(toks) if not t.isspace()]
    if not idx:
        return text
    i = pick(rng, idx)
    r = rng.randrange(7)
    if r == 0:
        toks[i] = ""
    elif r == 1:
        toks[i] = toks[i] + " " + toks[i]
    elif r == 2:
        j = idx[idx.index(i) + 1] if idx.index(i) + 1 < len(idx) else i
        toks[i], toks[j] = toks[j], toks[i]
    elif r == 3:
        nums = [k for k in idx if re.fullmatch(r"\d+|0[xX][0-9a-fA-F]+", toks[k])]
        toks[pick(rng, nums) if nums else i] = pick(rng, NUMS)
    elif r == 4:
        words = [k for k in idx if toks[k].startswith(".")]
        toks[pick(rng, words) if words else i] = pick(rng, WORDS)
    elif r == 5:
        toks.insert(i, pick(rng, WORDS) + " ")
    else:
        puncts = [k for k in idx if toks[k] in ";,{}()[]=<>"]
        k = pick(rng, puncts) if puncts else i
        toks[k] = pick(rng, ["", ";", ",", "", "{", "}"])
    return "".join(toks)


def generate(seed: int, count: int) -> list[tuple[str, str]]:
    """(arch target, module text) for `count` modules."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        target, version = pick(rng, PAIRS)
        tmpl = pick(rng, TEMPLATES)
        if tmpl is t_real:
            text, _, _, target = t_real(rng, target, version)
            out.append((target, f"// modgen real\n{text}"))
            continue
        head, mod, body = tmpl(rng, target, version)
        if not head:
            head = f".version {version}\n.target {target}\n.address_size 64\n"
        if rng.random() < 0.5:
            for _ in range(rng.randrange(1, 3)):
                which = rng.randrange(3) if tmpl is t_header else rng.randrange(1, 3)
                if which == 0:
                    head = mutate(rng, head)
                elif which == 1 and mod:
                    mod = mutate(rng, mod)
                else:
                    body = mutate(rng, body)
        text = f"// modgen {tmpl.__name__[2:]}\n{head}\n{mod}\n{body}"
        out.append((target, text))
    return out


def ptxas_verdict(ptxas: str, target: str, path: Path, compute: bool = False) -> str:
    """'' if ptxas accepts, else its first error line; `compute`: `-arch compute_XX`, the
    assembler without code generation."""
    arch = gen.arch_for(target)
    if compute:
        arch = arch.replace("sm_", "compute_")
    try:
        p = subprocess.run([ptxas, "-arch", arch, str(path), "-o", os.devnull],
                           capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return "ptxas timed out"
    if p.returncode == 0:
        return ""
    lines = [l for l in (p.stdout + p.stderr).splitlines()
             if ("error" in l or "fatal" in l) and "aborted due to errors" not in l]
    lines = lines or (p.stdout + p.stderr).strip().splitlines() or [f"exit {p.returncode}"]
    return re.sub(r"^ptxas\s+", "", lines[0])


def ptxsim_verdicts(ptxsim: str, paths: list[Path]) -> dict[str, str]:
    """{file: first error ('' if none)} from `check --format json`, 500 files per call."""
    out: dict[str, str] = {}
    for i in range(0, len(paths), 500):
        chunk = [str(p) for p in paths[i:i + 500]]
        p = subprocess.run([ptxsim, "check", *chunk, "--format", "json", "--max-diagnostics",
                            "100"], capture_output=True, text=True, timeout=600)
        for line in p.stdout.splitlines():
            try:
                rep = json.loads(line)
            except json.JSONDecodeError:
                continue
            errs = [d for d in rep.get("diagnostics", []) if d.get("severity") == "error"]
            out[rep["file"]] = (f"{errs[0]['line']}: {errs[0]['code']} {errs[0]['message']}"
                                if errs else "")
        for f in chunk:
            out.setdefault(f, f"ptxsim gave no verdict (exit {p.returncode}): "
                              f"{p.stderr.strip()[:200]}")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--modules", type=int, default=1000)
    ap.add_argument("--out", help="write the modules here (without --judge)")
    ap.add_argument("--judge", action="store_true")
    ap.add_argument("--ptxsim")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--show", type=int, default=30)
    ap.add_argument("--tsv", help="write agreeing modules as verdict<TAB>module rows")
    ap.add_argument("--cache", help="a JSON file keeping ptxas's verdicts between runs")
    ap.add_argument("--max-chars", type=int, default=4000,
                    help="--tsv leaves out longer modules (whole repository files)")
    args = ap.parse_args()
    modules = generate(args.seed, args.modules)
    if not args.judge:
        out = Path(args.out or ".")
        out.mkdir(parents=True, exist_ok=True)
        for i, (target, text) in enumerate(modules):
            (out / f"{i:05}.ptx").write_text(text)
        return 0
    if not gen.PTXAS.exists() or not args.ptxsim:
        print(f"modgen.py: needs ptxas ({gen.PTXAS}) and --ptxsim", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for i, (target, text) in enumerate(modules):
            p = Path(tmp) / f"{i:05}.ptx"
            p.write_text(text)
            paths.append(p)
        cache = {}
        if args.cache and os.path.exists(args.cache):
            cache = json.loads(Path(args.cache).read_text())
        todo = [(m, p) for m, p in zip(modules, paths) if m[0] + m[1] not in cache]
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
            got = list(ex.map(lambda tp: ptxas_verdict(str(gen.PTXAS), tp[0][0], tp[1]), todo))
        for (m, p), v in zip(todo, got):
            cache[m[0] + m[1]] = re.sub(r"^\S*/\d+\.ptx, ", "", v)
        if args.cache:
            Path(args.cache).write_text(json.dumps(cache))
        nv = [cache[m[0] + m[1]] for m in modules]
        ours = ptxsim_verdicts(args.ptxsim, paths)
    rows = []
    agree = 0
    by_kind: dict[str, list[int]] = {}
    for (target, text), p, theirs in zip(modules, paths, nv):
        if theirs == "ptxas timed out" or theirs.startswith("exit -"):
            continue  # ptxas crashed or hung: no verdict
        mine = ours[str(p)]
        kind = text.split("\n", 1)[0].split()[-1]
        ok = (theirs == "") == (mine == "")
        agree += ok
        s = by_kind.setdefault(kind, [0, 0, 0, 0])
        s[0] += 1
        s[1] += ok
        s[2] += (not ok) and theirs == ""   # we reject, ptxas accepts
        s[3] += (not ok) and mine == ""     # we accept, ptxas rejects
        rows.append((ok, target, text, theirs, mine))
    n = len(rows)
    acc = sum(1 for r in rows if r[3] == "")
    print(f"modules {n}, ptxas accepts {acc}, agree {agree} ({100 * agree / n:.2f}%), "
          f"ptxsim rejects/ptxas accepts {sum(s[2] for s in by_kind.values())}, "
          f"ptxsim accepts/ptxas rejects {sum(s[3] for s in by_kind.values())}")
    for kind, s in sorted(by_kind.items()):
        print(f"  {kind:14} {s[0]:5} agree {s[1]:5} we-reject {s[2]:4} we-accept {s[3]:4}")
    shown = 0
    for ok, target, text, theirs, mine in rows:
        if ok or shown >= args.show:
            continue
        shown += 1
        print(f"==== {target}: ptxas: {theirs or 'accept'} | ptxsim: {mine or 'accept'}")
        print("\n".join(l for l in text.splitlines()[1:] if l.strip()))
    if args.tsv:
        with open(args.tsv, "w") as f:
            f.write("# generated by scripts/conformance/modgen.py; modules ptxas and ptxsim agree on\n")
            version = subprocess.run([str(gen.PTXAS), "--version"], capture_output=True,
                                     text=True).stdout.strip().splitlines()
            f.write(f"# ptxas: {version[-1] if version else '?'}\n")
            f.write(f"# command: modgen.py --seed {args.seed} --modules {args.modules}; "
                    "ptxas -arch <target> m.ptx -o /dev/null\n")
            f.write("verdict\tmodule\n")
            for ok, target, text, theirs, mine in rows:
                if ok and len(text) <= args.max_chars:
                    esc = text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")
                    f.write(f"{'accept' if theirs == '' else 'reject'}\t{esc}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
