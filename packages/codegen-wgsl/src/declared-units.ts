/**
 * The units a temporary is declared in: vectors where it is held as vectors
 * (`array<vec4<f32>, N>`, `vectorLanesOf`), else its scalars; and an access's index in those units
 * (`declaredIndex`). The declarations (target.ts, statements.ts), the printer of accesses
 * (expressions.ts) and the layout of workgroup arrays in rows (array-rows.ts) all read them here,
 * so that none of them can disagree with another on what an index is.
 */
import { expr as E, laneOf, vectorIndex, type Expr, type Stmt, type VectorLoop } from '@loom/core';
import { VECTOR_ELEMENTS } from './bindings.ts';

/**
 * The lanes of the vectors a temporary is held as (an array with a `vec` axis of 2 or 4 lanes of a
 * 32-bit dtype, private or in workgroup memory: `array<vec4<f32>, N>`), or undefined where it is
 * held as scalars (a constant table, one of runtime size, one accessed atomically: `forAtomic` or
 * among the kernel's workgroup `atomics`). A vector statement reads and writes such an array a whole
 * vector at a time, one index and one robustness clamp for four lanes; a single lane is a component
 * (`a[i].z`). The declaration (target.ts) and the accesses (the printer) both ask here.
 */
export function vectorLanesOf(
  s: Extract<Stmt, { kind: 'declare' }>,
  atomics: ReadonlyMap<string, unknown>,
): 2 | 4 | undefined {
  const lanes = s.vectorWidth;
  if (lanes !== 2 && lanes !== 4) return undefined;
  const held = VECTOR_ELEMENTS.has(s.dtype) && !s.initializer && typeof s.length === 'number';
  return held && !s.forAtomic && !atomics.has(s.name) ? lanes : undefined;
}

/**
 * An access's index in the units its array is declared in: an element of an array of scalars; for
 * an array held as vectors, a whole vector (in a vector statement), a vector and a known lane
 * (`a[X].z`), or a vector and a lane computed at run time (`a[i / 4][i % 4]`, Python's division).
 * The printer (`ExpressionPrinter.vectorReference`) and the layout in rows (array-rows.ts) both read
 * accesses through it.
 */
export type DeclaredIndex =
  | { readonly kind: 'element'; readonly index: Expr }
  | { readonly kind: 'vector'; readonly index: Expr }
  | { readonly kind: 'lane'; readonly index: Expr; readonly lane: number }
  | { readonly kind: 'computed-lane'; readonly index: Expr; readonly lane: Expr };

/**
 * The declared-unit index of the flat `index` of an array held as `lanes`-lane vectors (undefined:
 * scalars), inside the vector statement over `vectorLoop` where one is being printed whole.
 */
export function declaredIndex(
  index: Expr,
  lanes: number | undefined,
  vectorLoop: VectorLoop | undefined,
): DeclaredIndex {
  if (!lanes) return { kind: 'element', index };
  const whole = vectorLoop && vectorIndex(index, vectorLoop, lanes);
  if (whole) return { kind: 'vector', index: whole };
  const known = laneOf(index, lanes);
  if (known) return { kind: 'lane', index: known.vector, lane: known.lane };
  return {
    kind: 'computed-lane',
    index: E.binary('//', index, E.int(lanes)),
    lane: E.binary('%', index, E.int(lanes)),
  };
}
