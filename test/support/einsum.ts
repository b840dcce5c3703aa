/**
 * numpy's einsum in plain JavaScript, the reference the einsum ports compare against: every
 * index of the spec runs over its length, the products of the operands' elements are summed
 * into the output's element, in increasing order of the summed indices (as the kernels do).
 */

/** An operand: its elements, its shape, and its strides in elements (default row-major). */
export interface Operand {
  readonly data: ArrayLike<number>;
  readonly shape: readonly number[];
  readonly strides?: readonly number[];
}

const rowMajor = (shape: readonly number[]) => shape.map((_, k) => shape.slice(k + 1).reduce((p, n) => p * n, 1));

/** `einsum('ij,j->i', a, b)`: the result, row-major, and its shape. */
export function einsum(spec: string, ...operands: Operand[]): { data: number[]; shape: number[] } {
  const [lhs, output] = spec.replace(/\s/g, '').split('->');
  const inputs = lhs.split(',');
  if (inputs.length !== operands.length) throw new Error(`einsum reference: ${inputs.length} subscripts`);
  const size = new Map<string, number>();
  inputs.forEach((s, k) => {
    [...s].forEach((c, axis) => size.set(c, operands[k].shape[axis]));
  });
  const indices = [...size.keys()];
  const outShape = [...output].map((c) => size.get(c)!);
  const outStrides = rowMajor(outShape);
  const data = new Array<number>(outShape.reduce((p, n) => p * n, 1)).fill(0);
  const strides = operands.map((o) => o.strides ?? rowMajor(o.shape));
  // output indices outermost, summed ones inside in increasing order: the kernels' order of summation
  const order = [...[...output], ...indices.filter((c) => !output.includes(c)).sort()];
  const at = new Map<string, number>();
  const visit = (depth: number) => {
    if (depth === order.length) {
      let product = 1;
      operands.forEach((o, k) => {
        let offset = 0;
        [...inputs[k]].forEach((c, axis) => {
          offset += at.get(c)! * strides[k][axis];
        });
        product *= o.data[offset];
      });
      let out = 0;
      [...output].forEach((c, axis) => {
        out += at.get(c)! * outStrides[axis];
      });
      data[out] += product;
      return;
    }
    for (let v = 0; v < size.get(order[depth])!; v++) {
      at.set(order[depth], v);
      visit(depth + 1);
    }
  };
  visit(0);
  return { data, shape: outShape };
}

/** Deterministic values in [0, 1) (numpy's `rng.random`), so failures reproduce. */
export function randomValues(n: number, seed: number): number[] {
  let s = (seed * 2654435761) >>> 0 || 1;
  return Array.from({ length: n }, () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  });
}
