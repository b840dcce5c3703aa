/**
 * What the ports of loopy's test/test_statistics.py share: its sizes and sub-group size, its
 * kernel-making helper, the basic kernel's instructions, and a global access count lookup.
 */
import {
  addDtypes,
  CountGranularity as CG,
  type DType,
  type getMemAccessMap,
  type LoopKernel,
  makeKernel,
  MemAccess,
} from '@loom/core';

/** The sub-group size loopy's tests count with. */
export const SGS = 32;
/** ceil(a / b), loopy's div_ceil. */
export const divCeil = (a: number, b: number) => Math.ceil(a / b);
export const n = 512;
export const m = 256;
export const ell = 128;
/** The parameter values the counts are evaluated at. */
export const params = { n, m, ell };

/** Uniform work (no parallel inames): one work-group of one work-item, one sub-group. */
export const nSubgroups = 1;

/** A kernel over `domain` with `insns`, named `name`, its arrays typed by `dtypes`. */
export function kernel(
  domain: string,
  insns: string,
  name: string,
  dtypes: Readonly<Record<string, DType>>,
  assumptions = 'n,m,ell >= 1',
): LoopKernel {
  return addDtypes(makeKernel(domain, insns, undefined, { name, assumptions }), dtypes);
}

/** The instructions of loopy's "basic" kernel. */
export const BASIC = `
  c[i, j, k] = a[i,j,k]*b[i,j,k]/3.0+a[i,j,k]
  e[i, k+1] = -g[i,k]*h[i,k+1]
`;

/** The count of one global access of `map` (sub-group granularity unless given), at `params`. */
export function globalCount(
  map: ReturnType<typeof getMemAccessMap>,
  dtype: DType,
  direction: 'load' | 'store',
  variable: string,
  kernelName: string,
  strides: { lid?: Record<number, number | string>; gid?: Record<number, number | string> } = {},
  countGranularity: CG = CG.SUBGROUP,
): number {
  return map
    .get(
      new MemAccess({
        mtype: 'global',
        dtype,
        lidStrides: strides.lid ?? {},
        gidStrides: strides.gid ?? {},
        direction,
        variable,
        countGranularity,
        kernelName,
      }),
    )
    .evalWithDict(params);
}
