import lzma, struct, numpy as np
raw = lzma.open('/work/.device/2/w/wgmma-golden.bin.xz').read()
assert raw[:14] == b'WGMMA-GOLDEN-1'
n, = struct.unpack_from('<I', raw, 16); off = 20
forms = []
for _ in range(n):
    name = raw[off:off+48].rstrip(b'\0').decode(); off += 48
    tiles, nd = struct.unpack_from('<II', raw, off); off += 8
    da, db = struct.unpack_from('<QQ', raw, off); off += 16
    T = []
    for t in range(tiles):
        A = raw[off:off+2048]; off += 2048
        B = raw[off:off+512]; off += 512
        C = np.frombuffer(raw, np.uint32, 128*nd, off).reshape(128, nd); off += 128*nd*4
        D = np.frombuffer(raw, np.uint32, 128*nd, off).reshape(128, nd); off += 128*nd*4
        T.append((A, B, C, D))
    forms.append((name, nd, T))
print([f[0] for f in forms])

def f16(b): return np.frombuffer(b, np.float16).astype(np.float64)
def f32bits(x): return np.array(x, np.uint32).view(np.float32).astype(np.float64)

def amat(A, M, K, esize, dec, kdir, mdir):
    out = np.zeros((M, K))
    per = 16 // esize
    for m in range(M):
        for k in range(K):
            o = (m//8)*mdir + (k//per)*kdir + (m%8)*16 + (k%per)*esize
            out[m, k] = dec(A[o:o+esize])
    return out

def dmap(nd, N, fp16acc=False):
    # returns list of (thread, reg, half) -> (m, n)
    res = {}
    for t in range(128):
        w, l = t//32, t%32; g, q = l//4, l%4
        for j in range(N//8):
            for i in range(4):
                m = 16*w + g + 8*(i//2); nn = 8*j + 2*q + (i%2)
                res[(t, 4*j+i)] = (m, nn)
    return res

def check(fi, M, N, K, esize, dec, hyp):
    name, nd, T = forms[fi]
    kdir, mdir = hyp
    ok = 0
    for A, B, C, D in T[:4]:
        Am = amat(A, M, K, esize, dec, kdir, mdir)
        Bm = amat(B, N, K, esize, dec, kdir, mdir)
        ref = Am @ Bm.T
        mp = dmap(nd, N)
        good = True
        for (t, i), (m, nn) in mp.items():
            if i >= nd and nd != 2: continue
            if nd == 2 or name.startswith('m64n8k16.f16') : pass
            c = f32bits(C[t, i]); d = f32bits(D[t, i])
            if abs(ref[m, nn] + c - d) > 0: good = False; break
        ok += good
    return ok

dec16 = lambda b: f16(b)[0]
for hyp in [(128, 256), (256, 128)]:
    print(hyp, 'f32.f16', check(0, 64, 8, 16, 2, dec16, hyp), 'n16', check(8, 64, 16, 16, 2, dec16, hyp))
def e4m3(b):
    x = b[0]; s = -1.0 if x & 0x80 else 1.0; e = (x >> 3) & 15; m = x & 7
    return s * (m/8*2.0**-6 if e == 0 else (1+m/8)*2.0**(e-7))
def e5m2(b):
    return float(np.frombuffer(bytes([0, b[0]]), np.float16)[0])
def bf16(b): return float(np.frombuffer(b'\0\0' + bytes(b), np.float32)[0])
def tf32(b): return float(np.frombuffer(bytes(b), np.float32)[0])
def s8(b): return float(np.frombuffer(bytes(b), np.int8)[0])
H=(128,256)
print('bf16', check(2, 64, 8, 16, 2, bf16, H))
print('tf32', check(3, 64, 8, 8, 4, tf32, H))
print('e4m3', check(4, 64, 8, 32, 1, e4m3, H))
def check_mixed(fi):
    name, nd, T = forms[fi]; ok=0
    for A,B,C,D in T[:4]:
        Am = amat(A,64,32,1,e5m2,*H); Bm = amat(B,8,32,1,e4m3,*H); ref=Am@Bm.T
        good=all(ref[m,nn]+f32bits(C[t,i])==f32bits(D[t,i]) for (t,i),(m,nn) in dmap(nd,8).items())
        ok+=good
    return ok
print('e5m2.e4m3', check_mixed(5))
def check_s8(fi):
    name, nd, T = forms[fi]; ok=0
    for A,B,C,D in T[:4]:
        Am = amat(A,64,32,1,s8,*H); Bm = amat(B,8,32,1,s8,*H); ref=Am@Bm.T
        good=all(ref[m,nn]+C[t,i].astype(np.int32)==D[t,i].astype(np.int32) for (t,i),(m,nn) in dmap(nd,8).items())
        ok+=good
    return ok
print('s8', check_s8(7))
def check_f16acc(fi, K, esize, dec):
    name, nd, T = forms[fi]; ok=0
    for A,B,C,D in T[:4]:
        Am = amat(A,64,K,esize,dec,*H); Bm = amat(B,8,K,esize,dec,*H); ref=Am@Bm.T
        good=True
        for t in range(128):
            w,l=t//32,t%32; g,q=l//4,l%4
            for r in range(2):
                for h in range(2):
                    m=16*w+g+8*r; nn=2*q+h
                    c=float(np.frombuffer(struct.pack('<H',(int(C[t,r])>>(16*h))&0xffff),np.float16)[0])
                    d=float(np.frombuffer(struct.pack('<H',(int(D[t,r])>>(16*h))&0xffff),np.float16)[0])
                    if ref[m,nn]+c!=d: good=False
        ok+=good
    return ok
print('f16acc f16', check_f16acc(1,16,2,dec16), 'f16acc e4m3', check_f16acc(6,32,1,e4m3))
# scale-a -1
name, nd, T = forms[9]; ok=0
for A,B,C,D in T[:4]:
    Am=-amat(A,64,16,2,dec16,*H); Bm=amat(B,8,16,2,dec16,*H); ref=Am@Bm.T
    ok+=all(ref[m,nn]+f32bits(C[t,i])==f32bits(D[t,i]) for (t,i),(m,nn) in dmap(nd,8).items())
print('scale-a -1', ok)
