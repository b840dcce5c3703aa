/**
 * The kernel of differential seed 4041205870, which PoCL miscompiled: shared by its regression test
 * (test/regressions-differential.test.ts) and bench/repro-4041205870.ts, which runs it on every
 * device (the GPU machine's NVIDIA drivers included).
 */
import { fixParameters, globalArg, makeKernel, mapDomain, prioritizeLoops, splitIname } from '@loom/core';

/**
 * Two local-memory reduction trees, one in each branch of an if/else inside the sequential loop i
 * (k split so that a part is on l.0). Built optimised, PoCL 3.1 skipped work-item 0's last stage
 * and store in the i >= 2 branch (0 for 6, -1e30, 12): a PoCL miscompilation, so such kernels are
 * built with -cl-opt-disable there (pocl-barrier-guard.ts).
 */
export function twoTreesInBranches() {
  let knl = makeKernel(
    '{ [i,k]: 0<=i<n and 0<=k<m }',
    `
if (i >= 2)
  out[i] = sum(k, i) - imag(c[i])
else
  out[i] = (1 - c[i]) * sum(k, i)
end
`,
    [globalArg('c', { shape: ['n'], dtype: 'complex64' }), '...'],
    { assumptions: 'n >= 1 and m >= 1' },
  );
  knl = mapDomain(knl, '{ [k] -> [k_mo, k_mi] : 0 <= k_mi < 4 and k = 4*k_mo + k_mi }');
  knl = fixParameters(knl, { m: 3 });
  knl = splitIname(knl, 'k_mi', 1, { outerTag: 'l.0' });
  knl = mapDomain(knl, '{ [k_mo] -> [k_mo_mo, k_mo_mi] : 0 <= k_mo_mi < 4 and k_mo = 4*k_mo_mo + k_mo_mi }');
  return prioritizeLoops(knl, 'k_mi_inner,k_mo_mo,k_mo_mi');
}
