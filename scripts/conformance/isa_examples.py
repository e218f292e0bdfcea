#!/usr/bin/env python3
"""Checks the example lines of the PTX ISA's instruction pages against ptxas and ptxsim.

Usage: scripts/conformance/isa_examples.py <ISA markdown dir> [ptxsim binary]

<ISA markdown dir> is a checkout of a Markdown rendering of the PTX ISA (one file per section
under 09-instruction-set/, each with an "**Examples**" code block), or a folder of one file per
instruction with "### Examples" blocks (the repository's `shared/spec/isa/`). Every example line is put
into a module with its names declared as registers (the instruction's types for its operands,
or one width for all, tried in turn; `.b64` for address bases, `.pred` for guards) and given to
`ptxas -arch compute_100a` (then compute_90a); for every line ptxas accepts in some typing,
ptxsim's `check` must accept the same module. Prints the count and each line ptxsim rejects.
Needs ptxas under $PTXSIM_NVIDIA_ROOT (default <repo>/.nv). Runs two ptxas at a time.
"""
import re, subprocess, sys, os, tempfile
from pathlib import Path
from concurrent.futures import ThreadPoolExecutor
REPO = Path(__file__).resolve().parents[2]
PTXAS = str(Path(os.environ.get("PTXSIM_NVIDIA_ROOT", REPO / ".nv")) / "nvidia" / "cu13" / "bin" / "ptxas")
PTXSIM = sys.argv[2] if len(sys.argv) > 2 else str(REPO / "target" / "release" / "ptxsim")
SPECIAL=re.compile(r"^%(tid|ntid|ctaid|nctaid|laneid|warpid|nwarpid|smid|nsmid|gridid|clock|clock64|clock_hi|lanemask_\w+|pm\d+|pm\d+_64|envreg\d+|globaltimer\w*|total_smem_size|aggr_smem_size|dynamic_smem_size|reserved_smem_\w+|current_graph_exec|cluster\w*|is_explicit_cluster|nclusterid|clusterid)(\.[xyzw])?$")
TYPES=["b8","b16","b32","b64","b128","u8","u16","u32","u64","s8","s16","s32","s64","f16","f16x2","bf16","bf16x2","f32","f64","tf32","e4m3x2","e5m2x2","pred"]
REGT={"u8":"b16","s8":"b16","b8":"b16","e4m3x2":"b16","e5m2x2":"b16","bf16":"b16","bf16x2":"b32","tf32":"b32","e4m3":"b16","e5m2":"b16","e2m1x2":"b16","e4m3x4":"b32","e5m2x4":"b32","ue8m0x2":"b16","e2m3x2":"b16","e3m2x2":"b16","s2f6x2":"b16"}
KEYWORDS={"_"}
def split_ops(s):
    out=[];depth=0;cur=""
    for ch in s:
        if ch in "[{(": depth+=1
        if ch in "]})": depth-=1
        if ch=="," and depth==0: out.append(cur.strip()); cur=""
        else: cur+=ch
    if cur.strip(): out.append(cur.strip())
    return out
def analyze(line):
    body=line.rstrip(';').strip()
    guard=None
    m=re.match(r"^@(!?)(\S+)\s+(.*)$",body)
    if m: guard=m.group(2); body=m.group(3)
    parts=body.split(None,1)
    mnem=parts[0]; ops=split_ops(parts[1]) if len(parts)>1 else []
    mods=mnem.split('.')[1:]
    tys=[t for t in mods if t in TYPES or t in REGT]
    return guard,mnem,ops,tys
IDENT=re.compile(r"(?<![\w.%$])(%?[A-Za-z_$][\w$]*)")
def names_in(op):
    return [n for n in IDENT.findall(op) if n not in KEYWORDS and not re.match(r"^0[xXfFdD][0-9a-fA-F]+$",n) and not SPECIAL.match(n)]
def regtype(t):
    return REGT.get(t,t)
def variants(line):
    guard,mnem,ops,tys=analyze(line)
    dt=regtype(tys[0]) if tys else None
    st=regtype(tys[-1]) if tys else None
    out=[]
    base_sets=[]
    for choice in ["dst/src","b32","b64","f32","b16","f64","b128","pred","u32"]:
        decl={}
        if guard: decl[guard]="pred"
        for i,op in enumerate(ops):
            inaddr=op.startswith('[')
            for j,n in enumerate(names_in(op)):
                if n in decl: continue
                if inaddr:
                    decl[n]="b64" if j==0 else ("b32")
                    continue
                if choice=="dst/src":
                    t = dt if i==0 else st
                    if t is None: t="b32"
                else: t=choice
                if op.startswith('_|') or '|' in op and op.split('|')[1].strip()==n: t="pred"
                decl[n]=t
        out.append((choice,decl))
    return out
def module(target,version,line,decl):
    regs="\n".join(f".reg .{t} {n};" for n,t in decl.items())
    return f".version {version}\n.target {target}\n.address_size 64\n.visible .entry k() {{\n{regs}\n{line}\nret;\n}}\n"
def ptxas_ok(text,arch):
    with tempfile.NamedTemporaryFile('w',suffix='.ptx',delete=False) as f: f.write(text); p=f.name
    r=subprocess.run([PTXAS,"-arch",arch,p,"-o","/dev/null"],capture_output=True,text=True)
    msg=(r.stdout+r.stderr).strip().splitlines()
    os.unlink(p)
    return r.returncode==0, (msg[0] if msg else "")
def ptxsim_ok(text):
    with tempfile.NamedTemporaryFile('w',suffix='.ptx',delete=False) as f: f.write(text); p=f.name
    r=subprocess.run([PTXSIM,"check",p],capture_output=True,text=True)
    os.unlink(p)
    return r.returncode==0, (r.stdout+r.stderr).strip().splitlines()[0] if r.returncode else ""
def one(item):
    f,line=item
    res=[]
    for target,arch in (("sm_100a","compute_100a"),("sm_90a","compute_90a")):
        for choice,decl in variants(line):
            text=module(target,"9.0",line,decl)
            ok,msg=ptxas_ok(text,arch)
            if ok:
                s,smsg=ptxsim_ok(text)
                return (f,line,target,choice,"accept",s,smsg,text)
    return (f,line,None,None,"reject",None,None,None)
def example_lines(root):
    lines = []
    paths = sorted(Path(root).glob("09-instruction-set/**/*.md")) or sorted(Path(root).glob("*.md"))
    for path in paths:
        text = path.read_text()
        pattern = r"(?:\*\*Examples\*\*|### Examples)\s*```(?:ptx)?\n(.*?)```"
        for m in re.finditer(pattern, text, re.S):
            for line in m.group(1).splitlines():
                line = line.split("//")[0].strip()
                if line and line.endswith(";") and not line.startswith("."):
                    lines.append((str(path.relative_to(root)), line))
    return lines
if len(sys.argv) < 2:
    sys.exit(__doc__)
items = example_lines(sys.argv[1])
with ThreadPoolExecutor(2) as ex:
    results=list(ex.map(one,items))
acc=[r for r in results if r[4]=="accept"]
bad=[r for r in acc if not r[5]]
print("lines",len(results),"ptxas-accepted",len(acc),"ptxsim rejects",len(bad))
for r in bad: print(r[1],"|",r[2],r[3],"|",r[6])
