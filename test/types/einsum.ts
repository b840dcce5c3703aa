/**
 * The DSL's `einsum`: the compiler reads the spec, so the builder knows its inames and `run`
 * its arguments.
 */
import type { Device } from '@loom/core';
import { einsum, f32, type EinsumInames, type EinsumSignature } from '@loom/dsl';
import { value, type Equal, type Expect } from './helpers.ts';

type Inames<B> = B extends { readonly inames: readonly (infer N)[] } ? N : never;

export type EinsumCases = [
  Expect<Equal<EinsumInames<'ik,kj->ij'>, 'i' | 'j' | 'k'>>,
  Expect<Equal<EinsumInames<'i i, i ->'>, 'i'>>,
  Expect<Equal<EinsumInames<string>, string>>,
];

export async function einsumCases(): Promise<void> {
  const device = value<Device>();
  const matmul = einsum('ik,kj->ij', ['a', 'b']);
  type _inames = Expect<Equal<Inames<typeof matmul>, 'i' | 'j' | 'k'>>;
  const { out } = await matmul.run(device, { a: new Float32Array(4), b: new Float32Array(4), Ni: 2, Nj: 2, Nk: 2 });
  void out;
  // @ts-expect-error: b is an operand, so required
  await matmul.run(device, { a: new Float32Array(4) });
  // @ts-expect-error: 'c' is not an argument
  await matmul.run(device, { a: new Float32Array(4), b: new Float32Array(4), c: 1 });
  // @ts-expect-error: 'q' is no iname
  matmul.split('q', 2);
  matmul.split('k', 2).tag({ i: 'g.0', j: 'l.0' });
  // @ts-expect-error: two operands, one name
  einsum('ik,kj->ij', ['a']);
  // an operand without subscripts is a value
  type Scaled = EinsumSignature<'i,->i', ['x', 's']>;
  type _scaled = Expect<
    Equal<[Scaled['s']['kind'], Scaled['x']['kind'], Scaled['out']['output']], ['value', 'array', true]>
  >;
  await einsum('i,->i', ['x', 's']).run(device, { x: new Float32Array(3), s: 2 });
  // declarations type the dtypes
  const typed = einsum('ij,j->i', ['a', 'x']).args({ a: f32('Ni', 'Nj'), x: f32('Nj'), out: f32.out('Ni') });
  // @ts-expect-error: a is float32
  await typed.run(device, { a: new Float64Array(4), x: new Float32Array(2) });
}
