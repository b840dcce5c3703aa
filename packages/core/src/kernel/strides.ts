/** Row-major (C) strides of an array from its shape, as expressions in the parameters. */
import { int, mul, type Expr } from '../expr/nodes.ts';
import { simplify } from '../expr/index.ts';

export function rowMajorStrides(shape: readonly Expr[]): Expr[] {
  const strides: Expr[] = new Array(shape.length);
  let stride: Expr = int(1);
  for (let axis = shape.length - 1; axis >= 0; axis--) {
    strides[axis] = stride;
    stride = simplify(mul(shape[axis], stride));
  }
  return strides;
}

/** The number of elements, as an expression. */
export function elementCount(shape: readonly Expr[]): Expr {
  return shape.reduce<Expr>((acc, s) => simplify(mul(acc, s)), int(1));
}
