/**
 * Signatures inferred from literal strings: the compiler reads the domain and the
 * instructions, and `run` takes exactly what the kernel needs.
 */
import type { Device, HostArray } from '@loom/core';
import { kernel, type InamesOfDomains, type InferredSignature, type ParamsOfDomains } from '@loom/dsl';
import { value, type Equal, type Expect } from './helpers.ts';

type Facts<S> = {
  inputs: { [K in keyof S]: S[K] extends { kind: 'array'; required: true } ? K : never }[keyof S];
  outputs: { [K in keyof S]: S[K] extends { output: true } ? K : never }[keyof S];
  required: { [K in keyof S]: S[K] extends { required: true } ? K : never }[keyof S];
  values: { [K in keyof S]: S[K] extends { kind: 'value' } ? K : never }[keyof S];
};

// ---- domains ----
export type DomainCases = [
  Expect<Equal<InamesOfDomains<'{ [i]: 0<=i<n }'>, 'i'>>,
  Expect<Equal<ParamsOfDomains<'{ [i]: 0<=i<n }'>, 'n'>>,
  Expect<Equal<InamesOfDomains<'{ [i, j]: 0<=i,j<n }'>, 'i' | 'j'>>,
  Expect<Equal<ParamsOfDomains<'[n] -> { [i]: 0 < i <= 15 }'>, 'n'>>,
  Expect<Equal<ParamsOfDomains<'{ [i]: 0<=i<n and i mod 3 = 0 }'>, 'n'>>,
  Expect<Equal<ParamsOfDomains<'{ [i]: (exists l: i = 2*l) and 0<=i<n }'>, 'n'>>,
  Expect<Equal<InamesOfDomains<['{ [i]: 0<=i<n }', '{ [j]: 0<=j<=i }']>, 'i' | 'j'>>,
  Expect<Equal<ParamsOfDomains<['{ [i]: 0<=i<n }', '{ [j]: 0<=j<=i }']>, 'n'>>,
  // not a literal: anything goes
  Expect<Equal<InamesOfDomains<string>, string>>,
];

// ---- instructions ----
type Double = InferredSignature<'{ [i]: 0<=i<n }', 'out[i] = 2*a[i]'>;
type Tutorial = InferredSignature<
  '{ [i,j,ii,jj]: 0<=i,j,ii,jj<n }',
  `
  out[j,i] = a[i,j] {id=transpose}
  out[ii,jj] = 2*out[ii,jj] {dep=transpose}   # a comment: b[i] is not read
  `
>;
type Everything = InferredSignature<
  '{ [i,k]: 0<=i<n and 0<=k<m }',
  `
  sq(x) := x*x + shift
  <> t = alpha * b[i]
  <float32> u = t + sum(k, c[i, k])
  for i
    if mask[i] > 0
      z[i] = sq(u) + exp(t)
    end
  end
  total = 0
  ... gbarrier
  `
>;
type Reductions = InferredSignature<
  '{ [i,j]: 0<=i<n and 0<=j<=i }',
  `
  max_val, max_idx = argmax(j, abs(a[j]), j)
  out[i], <>flag = reduce(segmented(sum), j, arr[j], segflag[j])
  res[i] = reduce(sum, j, b[i, j]) + simul_reduce(max, [j], c[j]) * scale
  `
>;
type Subgroups = InferredSignature<
  '{ [l]: 0<=l<64 }',
  `
  out[l] = subgroupAdd(a[l]) + subgroupShuffle(b[l], k) + subgroupSize() + subgroupLocalId()
  lanes[l] = subgroupBroadcast(a[l], subgroupId()) + subgroupExclusiveAdd(b[l])
  `
>;
export type InstructionCases = [
  // subgroup functions, with or without arguments, are no arguments of the kernel
  Expect<
    Equal<Facts<Subgroups>, { inputs: 'a' | 'b'; outputs: 'out' | 'lanes'; required: 'a' | 'b' | 'k'; values: 'k' }>
  >,
  // a multiple assignment writes each of its targets; a reduction's operation is no argument
  Expect<
    Equal<
      Facts<Reductions>,
      {
        inputs: 'a' | 'arr' | 'segflag' | 'b' | 'c';
        outputs: 'max_val' | 'max_idx' | 'out' | 'res';
        required: 'a' | 'arr' | 'segflag' | 'b' | 'c' | 'scale';
        values: 'scale' | 'n';
      }
    >
  >,
  Expect<Equal<Facts<Double>, { inputs: 'a'; outputs: 'out'; required: 'a'; values: 'n' }>>,
  // `out` is read as well as written: an input the caller passes
  Expect<Equal<Facts<Tutorial>, { inputs: 'a' | 'out'; outputs: 'out'; required: 'a' | 'out'; values: 'n' }>>,
  // rules and their parameters, temporaries, functions and reductions are no arguments;
  // scalars read are required values, domain parameters optional (inputs settle them)
  Expect<
    Equal<
      Facts<Everything>,
      {
        inputs: 'b' | 'c' | 'mask';
        outputs: 'z' | 'total';
        required: 'b' | 'c' | 'mask' | 'alpha' | 'shift';
        values: 'alpha' | 'shift' | 'n' | 'm';
      }
    >
  >,
  // a template or a computed string: loose
  Expect<Equal<InferredSignature<'{ [i]: 0<=i<n }', string>, import('@loom/dsl').LooseSignature>>,
];

// ---- run ----
export async function runCases(device: Device): Promise<void> {
  const double = kernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]');
  const a = new Float32Array(8);

  const { out } = await double.run(device, { a });
  type _out = Expect<Equal<typeof out, HostArray>>;
  await double.run(device, { a, n: 8, out: new Float32Array(8) });
  const given = await double.run(device, { a, out: new Int32Array(8) });
  type _given = Expect<Equal<typeof given.out, Int32Array<ArrayBuffer>>>;

  // @ts-expect-error: missing argument 'a'
  await double.run(device, { n: 8 });
  // @ts-expect-error: misspelled argument
  await double.run(device, { a, nn: 8 });
  // @ts-expect-error: 'n' is a number
  await double.run(device, { a, n: 'eight' });
  // @ts-expect-error: 'a' is an array
  await double.run(device, { a: 3 });
  // @ts-expect-error: no output 'b'
  out.length + (await double.run(device, { a })).b;

  // nothing required: the arguments may be left out
  const fill = kernel('{ [i]: 0<=i<10 }', 'out[i] = i');
  await fill.run(device);
  // a scalar read is a required value
  const scale = kernel('{ [i]: 0<=i<n }', 'out[i] = alpha*a[i]');
  await scale.run(device, { a, alpha: 2 });
  // @ts-expect-error: missing value 'alpha'
  await scale.run(device, { a });

  // a computed string: loose, every name accepted
  const text = value<string>();
  await kernel('{ [i]: 0<=i<n }', text).run(device, { anything: a });
}
