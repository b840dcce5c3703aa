/**
 * loopy's n-body kernel as its test_nbody.py writes it (the rules `axdist` and `invdist`, the
 * bare `invdist` a call of the parameterless rule), and the potential it computes, in plain
 * JavaScript: shared by the ports of test_nbody.py that transform it differently.
 */
import { globalArg, makeKernel, valueArg, type LoopKernel } from '@loom/core';

/** The untransformed kernel: pot[i] = the sum over j != i of 1 / |x_i - x_j|. */
export function nbodyKernel(): LoopKernel {
  return makeKernel(
    '[N] -> {[i,j,k]: 0<=i,j<N and 0<=k<3 }',
    ['axdist(k) := x[i,k]-x[j,k]', 'invdist := rsqrt(sum(k, axdist(k)**2))', 'pot[i] = sum(j, if(i != j, invdist, 0))'],
    [
      globalArg('x', { dtype: 'float32', shape: ['N', 3] }),
      globalArg('pot', { dtype: 'float32', shape: ['N'] }),
      valueArg('N', 'int32'),
    ],
    { name: 'nbody', assumptions: 'N>=1' },
  );
}

/** The potential of the N particles of `x` (N x 3, row-major), as the kernel defines it. */
export function nbodyPotential(x: Float32Array, N: number): Float32Array {
  return Float32Array.from({ length: N }, (_, i) => {
    let s = 0;
    for (let j = 0; j < N; j++) {
      if (i === j) continue;
      let d = 0;
      for (let k = 0; k < 3; k++) d += (x[3 * i + k] - x[3 * j + k]) ** 2;
      s += 1 / Math.sqrt(d);
    }
    return s;
  });
}
