/**
 * Kernels written with templates. The compiler cannot read a template's text, so such a
 * kernel is loosely typed — until `loom typegen` reads it (templates.loom.d.ts, next to
 * this file, generated) and registers its signature under the kernel's name.
 */
import type { Device, HostArray, RunOutputs } from '@loom/core';
import { domain, insn, kernel, type LooseSignature } from '@loom/dsl';
import type { Equal, Expect } from './helpers.ts';

const width = 3;
const body = insn`out[i] = sum(k, a[i + k]) / ${width}`;
const bounds = domain`{ [i, k]: 0<=i<n and 0<=k<${width} }`;

export async function templateCases(device: Device): Promise<void> {
  const a = new Float32Array(10);

  // named, and read by typegen: `a` is an input of shape (n + 2), so `n` may be left out
  const average = kernel(bounds, body, { name: 'types_moving_average' });
  type _inames = Expect<Equal<(typeof average.inames)[number], 'i' | 'k'>>;
  const { out } = await average.run(device, { a });
  type _out = Expect<Equal<typeof out, HostArray>>;
  // @ts-expect-error: missing input 'a'
  await average.run(device, { n: 8 });
  // @ts-expect-error: misspelled argument
  await average.run(device, { a, nn: 8 });
  // @ts-expect-error: unknown iname
  average.split('j', 4);
  average.split('i', 4).tag({ i_inner: 'unr' });

  // read and written: required, and returned as what was passed
  const inplace = kernel(domain`{ [i]: 0<=i<n }`, insn`a[i] = 2*a[i]`, { name: 'types_scale_in_place' });
  const { a: scaled } = await inplace.run(device, { a });
  type _scaled = Expect<Equal<typeof scaled, Float32Array<ArrayBuffer>>>;

  // unnamed: loose, anything goes, outputs untyped
  const unnamed = kernel(domain`{ [i]: 0<=i<n }`, insn`out[i] = a[i]`);
  type _loose = Expect<Equal<typeof unnamed, import('@loom/dsl').KernelBuilder<string, LooseSignature>>>;
  const outputs = await unnamed.run(device, { a, whatever: 1 });
  type _outputs = Expect<Equal<typeof outputs, RunOutputs>>;
}
