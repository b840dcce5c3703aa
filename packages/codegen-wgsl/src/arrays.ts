/**
 * Declaring, reading and writing array arguments as `bindings.ts` placed them: the
 * `@binding` declarations and the uniform struct, accessor functions for packed words
 * (`load_flags(i)`, `store_flags(i, v)`), and atomic updates.
 */
import { InternalError, type DType } from '@loom/core';
import type { ArrayPlacement, ModuleLayout } from './bindings.ts';
import { call, primary, type Printed } from './printed.ts';
import type { NameTable } from './names.ts';
import { computeType } from './types.ts';

/** A simple atomic update WGSL has an instruction for: `atomicAdd(&a[i], v)`. */
export interface AtomicOperation {
  readonly op: 'add' | 'sub' | 'min' | 'max';
  readonly operand: Printed;
}

export class ArrayAccess {
  private readonly accessors = new Map<string, { load: string; store?: string }>();
  /** Accessor functions some statement called: only those are printed. */
  private readonly used = new Set<string>();

  constructor(
    private readonly layout: ModuleLayout,
    names: NameTable,
  ) {
    for (const a of layout.arrays.values()) {
      if (a.access.kind !== 'words') continue;
      const base = a.storage.pool ? names.of(a.name) : a.storage.name;
      this.accessors.set(a.name, {
        load: names.fresh(`load_${base}`),
        store: a.written ? names.fresh(`store_${base}`) : undefined,
      });
    }
  }

  has(array: string): boolean {
    return this.layout.arrays.has(array);
  }

  /** An array held as vectors: its variable and lanes (read and written through `ExpressionPrinter.vectorReference`). */
  vectorStorage(array: string): { readonly name: string; readonly lanes: number } | undefined {
    const a = this.layout.arrays.get(array);
    return a?.access.kind === 'vector' ? { name: a.storage.name, lanes: a.access.lanes } : undefined;
  }

  /** The `@binding` declarations and the uniform struct. */
  declarations(): string[] {
    const lines: string[] = [];
    const uniform = this.layout.uniform;
    if (uniform) {
      lines.push(`struct ${uniform.struct} {`, ...uniform.members.map((m) => `  ${m.name}: ${m.type},`), '}', '');
    }
    for (const s of this.layout.storage) {
      const note = s.pool
        ? ` // ${s.arrays.join(', ')}: more arrays than storage bindings, so they share this one`
        : describePacking(this.layout.arrays.get(s.arrays[0])!);
      lines.push(`@group(0) @binding(${s.binding}) var<storage, ${s.access}> ${s.name}: array<${s.element}>;${note}`);
    }
    for (const t of this.layout.textures.values())
      lines.push(`@group(0) @binding(${t.binding}) var ${t.name}: texture_${t.dimensions}d<${t.texel}>;`);
    if (uniform)
      lines.push(`@group(0) @binding(${uniform.binding}) var<uniform> ${uniform.variable}: ${uniform.struct};`);
    return lines;
  }

  /** Whether `array` is an image argument, bound as a texture. */
  isTexture(array: string): boolean {
    return this.layout.textures.has(array);
  }

  /** The texel of image `array` at `coordinates` (x, the last index, first), in its dtype's computation type. */
  loadTexel(array: string, coordinates: readonly Printed[]): Printed {
    const t = this.layout.textures.get(array);
    if (!t) throw new InternalError(`'${array}' is not bound as a texture`);
    const vector = `vec${coordinates.length}<i32>(${coordinates.map((c) => c.text).join(', ')})`;
    // mip level 0, the only one; the texel's first channel is the element
    return primary(`textureLoad(${t.name}, ${vector}, 0).x`, computeType(t.dtype));
  }

  /** The accessor functions of packed words that the printed code calls, each a block of lines. */
  accessorFunctions(): string[] {
    const out: string[] = [];
    for (const [name, fns] of this.accessors) {
      const a = this.layout.arrays.get(name)!;
      const t = computeType(a.dtype);
      const bits = (a.access as { bits: number }).bits;
      const perWord = 32 / bits;
      const word = this.wordRef(a, perWord === 1 ? 'u32(index)' : `u32(index) / ${perWord}u`);
      const shift = `u32(index) % ${perWord}u * ${bits}u`;
      const atomic = a.storage.element.startsWith('atomic');
      const loaded = atomic ? `atomicLoad(&${word})` : word;
      if (this.used.has(fns.load))
        out.push(
          [
            `fn ${fns.load}(index: i32) -> ${t} {`,
            `  let word = ${loaded};`,
            `  return ${decode(a.dtype, bits, bits === 32 ? '' : shift)};`,
            '}',
          ].join('\n'),
        );
      if (!fns.store || !this.used.has(fns.store)) continue;
      const encoded = encode(a.dtype, bits);
      if (bits === 32) {
        out.push(
          [
            `fn ${fns.store}(index: i32, value: ${t}) {`,
            atomic ? `  atomicStore(&${word}, ${encoded});` : `  ${word} = ${encoded};`,
            '}',
          ].join('\n'),
        );
      } else {
        out.push(
          [
            `// other invocations may be storing the word's other ${bits === 8 ? 'bytes' : 'half'} at the same time: clear and set atomically`,
            `fn ${fns.store}(index: i32, value: ${t}) {`,
            `  let shift = ${shift};`,
            `  atomicAnd(&${word}, ~(${mask(bits)} << shift));`,
            `  atomicOr(&${word}, (${encoded} & ${mask(bits)}) << shift);`,
            '}',
          ].join('\n'),
        );
      }
    }
    return out;
  }

  /** Element `index` of `array`, in its dtype's computation type. */
  load(array: string, index: Printed): Printed {
    const a = this.placement(array);
    const t = computeType(a.dtype);
    const fns = this.accessors.get(array);
    if (fns) {
      this.used.add(fns.load);
      return call(fns.load, [index.text], t);
    }
    const element = `${a.storage.name}[${index.text}]`;
    return a.storage.element.startsWith('atomic') ? call('atomicLoad', [`&${element}`], t) : primary(element, t);
  }

  /** Element `index` of an array bound natively (a struct array's: structs.ts), as its storage spells it. */
  element(array: string, index: Printed): string {
    return `${this.placement(array).storage.name}[${index.text}]`;
  }

  /** The statement storing `value` (in the computation type) at `index`. */
  store(array: string, index: Printed, value: Printed): string {
    const a = this.placement(array);
    const fns = this.accessors.get(array);
    if (fns) {
      if (!fns.store) throw new InternalError(`'${array}' is written but was laid out read-only`);
      this.used.add(fns.store);
      return `${fns.store}(${index.text}, ${value.text});`;
    }
    const element = `${a.storage.name}[${index.text}]`;
    return a.storage.element.startsWith('atomic')
      ? `atomicStore(&${element}, ${value.text});`
      : `${element} = ${value.text};`;
  }

  /**
   * Lines updating element `index` of `array` atomically to `update(old)`: one atomic
   * instruction where WGSL has it (integer add, sub, min, max), else a compare-and-swap loop
   * that recomputes the value until no other invocation changed the element in between.
   */
  atomicUpdate(
    array: string,
    index: Printed,
    update: (old: Printed) => Printed,
    simple: AtomicOperation | undefined,
  ): string[] {
    const a = this.placement(array);
    if (!a.atomicUpdates) throw new InternalError(`'${array}' is updated atomically but was not laid out for it`);
    const ref = `&${a.storage.name}[${index.text}]`;
    const t = computeType(a.dtype);
    if (a.access.kind === 'native' && simple) {
      const fn = { add: 'atomicAdd', sub: 'atomicSub', min: 'atomicMin', max: 'atomicMax' }[simple.op];
      return [`${fn}(${ref}, ${simple.operand.text});`];
    }
    const native = a.access.kind === 'native';
    const oldValue = native ? 'old_bits' : decode(a.dtype, 32, '', 'old_bits');
    const next = update(primary('old_value', t));
    return [
      '{',
      `  var old_bits = atomicLoad(${ref});`,
      '  loop {',
      `    let old_value = ${oldValue};`,
      `    let swap = atomicCompareExchangeWeak(${ref}, old_bits, ${native ? next.text : encode(a.dtype, 32, next.text)});`,
      '    if (swap.exchanged) { break; }',
      '    old_bits = swap.old_value;',
      '  }',
      '}',
    ];
  }

  /** `&a[i]`, the element an atomic fetch updates (an int32 or uint32 array, bound natively as atomics). */
  atomicReference(array: string, index: Printed): string {
    const a = this.placement(array);
    if (!a.atomicUpdates || a.access.kind !== 'native')
      throw new InternalError(`'${array}' is fetched atomically but was not laid out as atomics`);
    return `&${a.storage.name}[${index.text}]`;
  }

  private placement(array: string): ArrayPlacement {
    const a = this.layout.arrays.get(array);
    if (!a) throw new InternalError(`'${array}' is not an array argument`);
    return a;
  }

  /** The word holding element `wordIndex` of the array's own region (offset within a pool). */
  private wordRef(a: ArrayPlacement, wordIndex: string): string {
    const offset = a.offsetMember ? `${this.layout.uniform!.variable}.${a.offsetMember} + ` : '';
    return `${a.storage.name}[${offset}${wordIndex}]`;
  }
}

function describePacking(a: ArrayPlacement): string {
  if (a.access.kind === 'native') return a.atomicUpdates ? ' // updated atomically' : '';
  if (a.access.kind === 'vector') return '';
  if (a.access.bits === 32) return ` // ${a.dtype} bits, updated atomically`;
  const count = a.access.bits === 8 ? 'four' : 'two';
  return ` // ${a.dtype}, ${count} to a word (storage buffers have no ${a.access.bits}-bit types)`;
}

function mask(bits: number): string {
  return bits === 8 ? '0xffu' : '0xffffu';
}

/** The element in `word` (at bit `shift` for packed ones), in its dtype's computation type. */
function decode(dtype: DType, bits: number, shift: string, word = 'word'): string {
  switch (dtype) {
    case 'bool':
      return `extractBits(${word}, ${shift}, 8u) != 0u`;
    case 'uint8':
    case 'uint16':
      return `i32(extractBits(${word}, ${shift}, ${bits}u))`;
    case 'int8':
    case 'int16':
      return `extractBits(bitcast<i32>(${word}), ${shift}, ${bits}u)`; // sign-extended
    case 'float16':
      return `f16(unpack2x16float(${word})[u32(index) % 2u])`;
    case 'bfloat16':
      // a bfloat16 is the upper half of an f32's bits: exact
      return `bitcast<f32>(extractBits(${word}, ${shift}, 16u) << 16u)`;
    case 'float32':
      return `bitcast<f32>(${word})`;
    case 'int32':
      return `bitcast<i32>(${word})`;
    case 'uint32':
      return word;
    default:
      throw new InternalError(`no packed words of ${dtype}`);
  }
}

/** `value` (in its computation type) as the low bits of a u32. */
function encode(dtype: DType, bits: number, value = 'value'): string {
  switch (dtype) {
    case 'bool':
      return `select(0u, 1u, ${value})`;
    case 'int8':
    case 'int16':
    case 'uint8':
    case 'uint16':
      return `u32(${value})`;
    case 'float16':
      return `pack2x16float(vec2<f32>(f32(${value}), 0.0))`;
    case 'bfloat16':
      // the value is a bfloat16 already (rounded where it was computed): its f32's upper half
      // (parenthesized: WGSL mixes a shift with `&` only so)
      return `(bitcast<u32>(${value}) >> 16u)`;
    case 'float32':
    case 'int32':
      return `bitcast<u32>(${value})`;
    case 'uint32':
      return value;
    default:
      throw new InternalError(`no ${bits}-bit words of ${dtype}`);
  }
}
