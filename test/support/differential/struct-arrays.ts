/**
 * Differential cases for arrays of struct dtypes (`structArrays`): a seed draws a struct
 * (real fields, maybe a nested struct and an array field; int64 and float64 fields with
 * `wideTypes`) and a kernel writing every field of the output structs from fields of the
 * input structs of the same dtype (`out[i].f = in[i].g * k + in[i].h - c`), run on every
 * device with the input given as JS objects or as bytes, against plain JS. Values are small
 * integers (halves for floats): every result is exact. A device that cannot hold a field's
 * dtype must refuse the kernel with a LoomError.
 */
import {
  LoomError,
  fieldArray,
  globalArg,
  makeKernel,
  packStructs,
  run,
  structDType,
  structLayout,
  structLeaves,
  unpackStructs,
  type Device,
  type FieldType,
  type RealDType,
  type StructValue,
} from '@loom/core';
import { supportsDType } from '../devices.ts';
import type { FeatureSet } from './features.ts';
import { Rng } from './random.ts';

/** What one seed ran, and every disagreement (empty: none). */
export interface StructCaseResult {
  readonly seed: number;
  readonly ran: readonly string[];
  readonly findings: readonly string[];
}

type Leaf = { readonly path: readonly (string | number)[]; readonly dtype: RealDType };

export async function runStructCase(
  seed: number,
  features: FeatureSet,
  devices: readonly Device[],
): Promise<StructCaseResult> {
  const rng = new Rng(seed ^ 0x57ec7);
  const scalars: RealDType[] = [
    'int32',
    'uint32',
    'float32',
    ...(features.has('wideTypes') ? (['int64', 'float64'] as const) : []),
  ];
  const field = (): FieldType => (rng.chance(0.2) ? fieldArray(rng.pick(scalars), rng.int(2, 3)) : rng.pick(scalars));
  const fields: [string, FieldType][] = Array.from({ length: rng.int(2, 4) }, (_, k) => [`f${k}`, field()]);
  if (rng.chance(0.4))
    fields.splice(rng.int(0, fields.length), 0, [
      'inner',
      structDType(`inner_${seed >>> 0}`, [
        ['a', field()],
        ['b', field()],
      ]),
    ]);
  const struct = structDType(`s_${seed >>> 0}`, fields);
  const layout = structLayout(struct);
  const leaves: Leaf[] = structLeaves(layout).map((l) => ({ path: l.path, dtype: l.dtype }));
  const spell = (l: Leaf) => l.path.map((s) => (typeof s === 'number' ? `[${s}]` : `.${s}`)).join('');
  // each output field from two input fields of its dtype (maybe itself), a factor and a constant
  const formulas = leaves.map((l) => {
    const same = leaves.filter((x) => x.dtype === l.dtype);
    return { out: l, a: rng.pick(same), b: rng.pick(same), k: rng.int(0, 3), c: rng.int(0, 2) };
  });
  const n = rng.int(1, 40);
  const small = (dtype: RealDType) =>
    dtype === 'float32' || dtype === 'float64'
      ? rng.int(-20, 20) / 2
      : dtype.startsWith('u')
        ? rng.int(3, 40)
        : rng.int(-40, 40);
  const values: StructValue[] = Array.from({ length: n }, () =>
    build(leaves, (l) => (l.dtype === 'int64' ? BigInt(small(l.dtype)) : small(l.dtype))),
  );
  const get = (v: StructValue, l: Leaf): number =>
    Number(l.path.reduce<unknown>((x, s) => (x as Record<string | number, unknown>)[s], v));
  const expected = values.map((v) =>
    build(leaves, (l) => {
      const f = formulas.find((x) => x.out === l)!;
      const r = get(v, f.a) * f.k + get(v, f.b) - f.c;
      return l.dtype === 'int64' || l.dtype === 'uint64' ? BigInt(r) : r;
    }),
  );
  const text = formulas.map(
    (f, k) =>
      `out[i]${spell(f.out)} = inp[i]${spell(f.a)} * ${f.k} + inp[i]${spell(f.b)} - ${f.c} {id=w${k}, nosync_query=writes:out}`,
  );
  const knl = makeKernel('{ [i]: 0 <= i < n }', text.join('\n'), [
    globalArg('inp', { dtype: struct, shape: ['n'] }),
    globalArg('out', { dtype: struct, shape: ['n'] }),
    '...',
  ]);
  const asBytes = rng.chance(0.5);
  const ran = [
    `struct arrays: ${leaves.length} fields (${[...new Set(leaves.map((l) => l.dtype))].join(', ')}), ${n} elements, ${asBytes ? 'bytes' : 'objects'}`,
  ];
  const findings: string[] = [];
  const held = (d: Device) => leaves.every((l) => supportsDType(d, l.dtype));
  for (const device of devices) {
    const inp = asBytes ? (packStructs(layout, values).buffer as ArrayBuffer) : values;
    try {
      const { out } = await run(knl, device, { n, inp });
      if (!held(device)) {
        findings.push(
          `${device.name}: ran a struct of ${leaves.map((l) => l.dtype).join(', ')}, expected a LoomError (seed ${seed})`,
        );
        continue;
      }
      const got = unpackStructs(layout, out as Uint8Array);
      const bad = got.findIndex((g, k) => !sameValue(g, expected[k]));
      if (bad >= 0)
        findings.push(
          `${device.name}: struct ${bad} is ${show(got[bad])}, expected ${show(expected[bad])} (${text.join('; ')}; seed ${seed})`,
        );
    } catch (e) {
      if (!(e instanceof LoomError) || held(device))
        findings.push(`${device.name}: threw ${(e as Error).message} (${text.join('; ')}; seed ${seed})`);
    }
  }
  return { seed, ran, findings };
}

/** A struct value with each leaf's value from `value`. */
function build(leaves: readonly Leaf[], value: (l: Leaf) => number | bigint): StructValue {
  const root: Record<string, unknown> = {};
  for (const l of leaves) {
    let at: Record<string | number, unknown> = root;
    l.path.forEach((step, k) => {
      if (k === l.path.length - 1) at[step] = value(l);
      else at = (at[step] ??= typeof l.path[k + 1] === 'number' ? [] : {}) as Record<string | number, unknown>;
    });
  }
  return root as StructValue;
}

const show = (v: unknown) => JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? `${x}n` : x));
const sameValue = (a: unknown, b: unknown) => show(a) === show(b);
