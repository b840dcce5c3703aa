/**
 * What targets need to spell struct arrays (ast.ts `KernelParam.struct`): the structs to
 * declare, in an order each declaration can follow, and the element index of an access,
 * whose flattened index counts bytes (the struct array is its bytes to every pass before).
 */
import { binary, int, type Expr } from '../expr/nodes.ts';
import { simplify } from '../expr/simplify.ts';
import { structsInOrder, type StructDType } from '../structs/struct-dtype.ts';
import type { KernelFunction, ProgramAst } from './ast.ts';

/** The structs a program's parameters hold, nested ones first, each once. */
export function programStructs(program: ProgramAst | readonly KernelFunction[]): readonly StructDType[] {
  const kernels = Array.isArray(program) ? program : (program as ProgramAst).kernels;
  return structsInOrder(kernels.flatMap((k: KernelFunction) => k.params.flatMap((p) => (p.struct ? [p.struct] : []))));
}

/**
 * The index of the struct an access's first byte starts: `flat / size`, exact, since every
 * stride of a struct array's element axes is a multiple of the struct's size and its byte
 * axis is indexed 0 (frontend/struct-fields.ts). Constant factors are divided where they
 * stand (`16*i` → `i`), so that the targets print the plain element index.
 */
export function structElementIndex(flat: Expr, size: number): Expr {
  const divided = divideTerms(flat, size);
  return divided ?? simplify(binary('//', flat, int(size)), { integer: true });
}

function divideTerms(e: Expr, size: number): Expr | undefined {
  if (e.kind === 'int') return e.value % size === 0 ? int(e.value / size) : undefined;
  if (e.kind !== 'binary') return undefined;
  if (e.op === '+') {
    const left = divideTerms(e.left, size);
    const right = left && divideTerms(e.right, size);
    return right && binary('+', left, right);
  }
  if (e.op === '*') {
    const left = divideTerms(e.left, size);
    if (left) return simplify(binary('*', left, e.right), { integer: true });
    const right = divideTerms(e.right, size);
    return right && simplify(binary('*', e.left, right), { integer: true });
  }
  return undefined;
}
