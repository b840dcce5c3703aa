/**
 * Local temporaries (`var<workgroup>`) accessed atomically: one declared `forAtomic`, or one an
 * `{atomic}` instruction writes. In WGSL atomicity belongs to the type (`atomic<i32>`), so every
 * access to such a variable is an atomic built-in: reads `atomicLoad`, stores `atomicStore`,
 * updates `atomicAdd`/`atomicSub`/`atomicMin`/`atomicMax` or a compare-and-swap loop. float32
 * is held as its bits in an `atomic<u32>`, as storage arrays updated atomically are (bindings.ts).
 */
import { LoomError, statementsOfKind, type DType, type KernelFunction } from '@loom/core';
import type { AtomicOperation } from './arrays.ts';
import { call, primary, type Printed } from './printed.ts';
import { computeType } from './types.ts';

/** The dtypes a workgroup variable can be accessed atomically in. */
const WORKGROUP_ATOMIC_DTYPES: readonly DType[] = ['int32', 'uint32', 'float32'];

/** The local temporaries of `k` held as WGSL atomics: name → dtype. */
export function workgroupAtomics(k: KernelFunction): Map<string, DType> {
  const locals = new Map(
    statementsOfKind(k.body, 'declare')
      .filter((d) => d.addressSpace === 'local')
      .map((d) => [d.name, d.dtype] as const),
  );
  const atomics = new Map<string, DType>();
  const add = (name: string) => {
    const dtype = locals.get(name);
    if (dtype === undefined) return;
    if (!WORKGROUP_ATOMIC_DTYPES.includes(dtype))
      throw new LoomError(
        `the local temporary '${name}' (${dtype}) is accessed atomically, but WGSL has atomics only of ${WORKGROUP_ATOMIC_DTYPES.join(', ')}`,
      );
    atomics.set(name, dtype);
  };
  for (const d of statementsOfKind(k.body, 'declare')) if (d.forAtomic) add(d.name);
  for (const s of statementsOfKind(k.body, 'assign'))
    if (s.atomic) add(s.target.kind === 'subscript' ? s.target.array : s.target.kind === 'var' ? s.target.name : '');
  return atomics;
}

/** The WGSL type of one element of a workgroup atomic of `dtype`. */
export function atomicElementType(dtype: DType): string {
  return dtype === 'int32' ? 'atomic<i32>' : 'atomic<u32>';
}

/** The value at `ref` (`&temp`, `&temp[i]`), an atomic load, in the computation type of `dtype`. */
export function atomicLoad(ref: string, dtype: DType): Printed {
  const loaded = `atomicLoad(${ref})`;
  return dtype === 'float32' ? call('bitcast<f32>', [loaded], 'f32') : call('atomicLoad', [ref], computeType(dtype));
}

/** The statement storing `value` (in the computation type of `dtype`) atomically at `ref`. */
export function atomicStore(ref: string, value: Printed, dtype: DType): string {
  return `atomicStore(${ref}, ${dtype === 'float32' ? `bitcast<u32>(${value.text})` : value.text});`;
}

/**
 * The lines updating the value at `ref` to `update(old)` atomically: one instruction where WGSL
 * has it (`simple`: integer add, sub, min, max), else a compare-and-swap loop that recomputes the
 * value until no other invocation changed it in between.
 */
export function atomicUpdate(
  ref: string,
  dtype: DType,
  update: (old: Printed) => Printed,
  simple: AtomicOperation | undefined,
): string[] {
  if (simple && dtype !== 'float32') {
    const fn = { add: 'atomicAdd', sub: 'atomicSub', min: 'atomicMin', max: 'atomicMax' }[simple.op];
    return [`${fn}(${ref}, ${simple.operand.text});`];
  }
  const float = dtype === 'float32';
  const next = update(primary('old_value', computeType(dtype))).text;
  return [
    '{',
    `  var old_bits = atomicLoad(${ref});`,
    '  loop {',
    `    let old_value = ${float ? 'bitcast<f32>(old_bits)' : 'old_bits'};`,
    `    let swap = atomicCompareExchangeWeak(${ref}, old_bits, ${float ? `bitcast<u32>(${next})` : next});`,
    '    if (swap.exchanged) { break; }',
    '    old_bits = swap.old_value;',
    '  }',
    '}',
  ];
}
