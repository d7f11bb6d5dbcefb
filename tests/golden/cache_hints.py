# numba-cuda's loads and stores with a cache hint: the prelude's p2c_ldca ... p2c_stwt, PTX's
# ld.global.ca ... st.global.wt on the element (docs/semantics.md, "Loads and stores with a cache
# hint"). The index is an element's, as a subscript's: negative indices wrap.
from numba import cuda


@cuda.jit
def hinted(r, x, m):
    i = cuda.grid(1)
    if i < r.size:
        cuda.stcg(r, i, cuda.ldca(x, i) + cuda.ldcg(x, -1 - i))
        cuda.stcs(m, (i, 0), cuda.ldcs(m, (i, 1)))
        cuda.stwb(r, 0, cuda.ldlu(x, 0))
        cuda.stwt(m, (0, 0), cuda.ldcv(m, (0, 0)))
