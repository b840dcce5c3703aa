/**
 * Binding what the caller passes to `run` to the kernel's arguments: dtypes,
 * parameter values (given, or found from array sizes), shapes, and the checks that
 * keep a kernel from ever touching memory outside the caller's arrays.
 */
import { ownEntry } from '../names.ts';
import {
  byteSize,
  dtypeOfHostArray,
  isComplex,
  isDType,
  isFloat,
  isInteger,
  isNarrowFloat,
  promote,
  type DType,
  type HostArray,
} from '../dtypes.ts';
import { complexStorage, complexValueParts } from '../preprocess/lower-complex.ts';
import { LoomError } from '../errors.ts';
import { LruCache } from '../lru.ts';
import { perObject } from '../memo.ts';
import { printExpr, toLinear } from '../expr/index.ts';
import type { Expr } from '../expr/nodes.ts';
import type { KernelArg, LoopKernel } from '../kernel/model.ts';
import { INDEX_DTYPE } from '../kernel/type-inference.ts';
import type { GeneratedCode, HostArgument } from '../codegen/generated.ts';
import { DeviceArray, type DeviceArrayView } from './device.ts';
import { bindLayoutValues, checkViewsMatch, NO_VIEWS, type ViewLayout } from './views.ts';
import { evaluateInt, valuesEnv } from './evaluate.ts';
import { MAX_INDEX } from './limits.ts';
import { flatLengths, type FlatLengths } from './flat-lengths.ts';

/**
 * A host array with an explicit shape; with `strides` or `offset`, a view of `data` (numpy's
 * slicing): element `[i, j, ...]` is `data[offset + i*strides[0] + j*strides[1] + ...]`, and
 * `run` moves the whole of `data` (views.ts).
 */
export interface ShapedHostArray {
  /**
   * The elements, row-major (a view's whole buffer); without strides, laid out as the kernel
   * lays the argument out, a padded layout's gaps included (flat-lengths.ts).
   */
  readonly data: HostArray;
  /** The shape they have. */
  readonly shape: readonly number[];
  /** A view's strides, in elements; default row-major. */
  readonly strides?: readonly number[];
  /** Where a view's element 0 lies in `data`; default 0. */
  readonly offset?: number;
}

/** What `run` takes for an argument: a host array (shaped or flat), a DeviceArray or a view of one, or a scalar. */
export type RunArgument = HostArray | ShapedHostArray | DeviceArray | DeviceArrayView | number | bigint | ComplexScalar;

/** A complex value argument's value: its real and imaginary parts (a number alone is real). */
export type ComplexScalar = { readonly re: number; readonly im: number } | readonly [number, number];

/** A caller's array bound to a kernel argument, its dtype known once the code is generated. */
export interface BoundArray {
  readonly arg: KernelArg;
  readonly dtype: DType;
  readonly shape: readonly number[];
  /** What the caller passed, if anything. */
  readonly given?: HostArray | DeviceArray;
  /** A `sep` axis: split along `axis` into the device arrays `names` (codegen/generated.ts). */
  readonly sep?: HostArgument['sep'];
}

export interface Binding {
  /** The dtypes of the arguments, all of them. */
  readonly dtypes: ReadonlyMap<string, DType>;
  readonly values: ReadonlyMap<string, number | bigint>;
  readonly arrays: readonly BoundArray[];
}

/**
 * What the caller's arguments alone say: the dtypes of what was passed (and of value
 * arguments), values, shapes. An output nobody passed has the dtype code generation
 * infers for it; `typeBinding` takes it from the generated code.
 */
export interface ArgumentBinding {
  readonly dtypes: ReadonlyMap<string, DType>;
  readonly values: ReadonlyMap<string, number | bigint>;
  readonly arrays: readonly (Omit<BoundArray, 'dtype' | 'sep'> & { readonly dtype: DType | undefined })[];
}

function isHostArray(x: unknown): x is HostArray {
  return ArrayBuffer.isView(x) && !(x instanceof DataView);
}

function isShaped(x: unknown): x is ShapedHostArray {
  return (
    typeof x === 'object' && x !== null && !isHostArray(x) && !(x instanceof DeviceArray) && 'data' in x && 'shape' in x
  );
}

/**
 * The kernel as the caller's data sees it: a complex argument is an array of its parts with a
 * trailing axis of 2 (a complex64 array of n elements is a Float32Array of 2n numbers).
 */
const storageView = perObject((knl: LoopKernel) =>
  knl.args.some((a) => a.dtype !== undefined && isComplex(a.dtype))
    ? knl.with({ args: knl.args.flatMap((a) => complexStorage(a, knl)) })
    : knl,
);

/**
 * The kernel with the dtype of each complex DeviceArray passed for an array argument of no
 * declared dtype: such an argument is complex as if declared so (its storage view has its
 * parts), never a real array that happens to hold them.
 */
function withPassedComplex(
  kernel: LoopKernel,
  given: Readonly<Record<string, RunArgument>>,
): { readonly typed: LoopKernel; readonly inferred: ReadonlyMap<string, DType> } {
  const inferred = new Map<string, DType>();
  for (const a of kernel.args) {
    const v = a.kind !== 'value' && a.dtype === undefined ? ownEntry(given, a.name) : undefined;
    if (v instanceof DeviceArray && isComplex(v.dtype)) inferred.set(a.name, v.dtype);
  }
  if (inferred.size === 0) return { typed: kernel, inferred };
  return {
    typed: kernel.with({
      args: kernel.args.map((a) => (inferred.has(a.name) ? { ...a, dtype: inferred.get(a.name) } : a)),
    }),
    inferred,
  };
}

/**
 * The arguments as the storage view sees them: each complex argument's DeviceArray as its parts
 * (`DeviceArray.partsView`), and its `{ data, shape }` with the parts' axis when the shape is the
 * elements' (as computations take it). Arrays passed for real arguments stay as they are: a
 * complex DeviceArray there is refused by its dtype, not read as its parts.
 */
function partsViews(
  typed: LoopKernel,
  given: Readonly<Record<string, RunArgument>>,
): Readonly<Record<string, RunArgument>> {
  const out: Record<string, RunArgument> = { ...given };
  for (const a of typed.args) {
    if (a.dtype === undefined || !isComplex(a.dtype)) continue;
    const v = ownEntry(given, a.name);
    if (a.kind === 'value') {
      if (v === undefined) continue;
      const parts = complexValueParts(a, typed);
      const [re, im] = complexScalar(a.name, v);
      delete out[a.name];
      for (const [name, part] of [
        [parts.re, re],
        [parts.im, im],
      ] as const)
        Object.defineProperty(out, name, { value: part, enumerable: true, writable: true, configurable: true });
      continue;
    }
    const view =
      v instanceof DeviceArray
        ? v.partsView()
        : isShaped(v) && v.shape.length === a.shape?.length
          ? { data: v.data, shape: [...v.shape, 2] }
          : undefined;
    // defined, not assigned: an argument called `__proto__` is an argument like any other
    if (view) Object.defineProperty(out, a.name, { value: view, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/**
 * A complex value as its parts: a number is real (`5` is 5+0j), `{ re, im }` and `[re, im]`
 * give both parts (JavaScript has no complex numbers; these are the spellings Loom's complex
 * outputs and `pointwise()` payloads use).
 */
function complexScalar(name: string, v: unknown): [number, number] {
  if (typeof v === 'number') return [v, 0];
  if (Array.isArray(v) && v.length === 2 && v.every((p) => typeof p === 'number')) return [v[0], v[1]];
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
    const { re, im } = v as { re?: unknown; im?: unknown };
    if (typeof re === 'number' && typeof im === 'number' && Object.keys(v).length === 2) return [re, im];
  }
  throw new LoomError(
    `argument '${name}' is a complex value argument: pass a number, { re, im } or [re, im], not ${describe(v)}`,
  );
}

/**
 * The caller's arguments bound to the kernel's. `views`: the layouts of the arrays passed as
 * views (views.ts), whose plain arrays `given` holds.
 */
export function bindArguments(
  kernel: LoopKernel,
  given: Readonly<Record<string, RunArgument>>,
  views: ReadonlyMap<string, ViewLayout> = NO_VIEWS,
): ArgumentBinding {
  for (const name of views.keys()) {
    const dtype = kernel.arg(name)?.dtype;
    if (dtype !== undefined && isComplex(dtype))
      throw new LoomError(
        `argument '${name}' is complex: pass it as a whole array, not a view (views of complex arrays are not supported)`,
      );
  }
  const { typed, inferred } = withPassedComplex(kernel, given);
  const knl =
    typed === kernel ? storageView(kernel) : typed.with({ args: typed.args.flatMap((a) => complexStorage(a, typed)) });
  // the storage view has no complex arrays: a complex array is passed as its parts
  const args = knl !== kernel ? partsViews(typed, given) : given;
  const known = new Map(knl.args.map((a) => [a.name, a]));
  for (const name of Object.keys(args)) {
    if (!known.has(name)) {
      throw new LoomError(
        `kernel '${knl.name}' has no argument '${name}' (arguments: ${knl.args.map((a) => a.name).join(', ')})`,
      );
    }
  }
  const dtypes = new Map<string, DType>();
  const values = new Map<string, number | bigint>();
  const domainParams = new Set(knl.domains.flatMap((d) => d.params));

  for (const arg of knl.args) {
    const v = ownEntry(args, arg.name);
    if (arg.kind === 'value') {
      if (v === undefined) continue;
      if (typeof v !== 'number' && typeof v !== 'bigint') {
        throw new LoomError(`argument '${arg.name}' is a value argument: pass a number, not ${describe(v)}`);
      }
      if (typeof v === 'number' && !Number.isFinite(v) && (arg.dtype === undefined || !isFloat(arg.dtype))) {
        throw new LoomError(`argument '${arg.name}' must be a finite number, got ${v}`);
      }
      const dtype =
        arg.dtype ??
        (domainParams.has(arg.name)
          ? INDEX_DTYPE
          : typeof v === 'bigint'
            ? 'int64'
            : Number.isInteger(v)
              ? 'int32'
              : floatForScalar(knl, args));
      if (!isFloat(dtype) && typeof v === 'number' && !Number.isInteger(v)) {
        throw new LoomError(`argument '${arg.name}' is ${dtype} but got the non-integer ${v}`);
      }
      checkFits(knl, arg.name, dtype, v);
      dtypes.set(arg.name, dtype);
      values.set(arg.name, v);
      continue;
    }
    if (v === undefined) continue;
    const data = v instanceof DeviceArray ? undefined : isShaped(v) ? v.data : v;
    if (!(v instanceof DeviceArray) && !isHostArray(data)) {
      throw new LoomError(
        `argument '${arg.name}' is an array: pass a TypedArray, { data, shape } or a DeviceArray, not ${describe(v)}`,
      );
    }
    const passed: DType = v instanceof DeviceArray ? v.dtype : dtypeOfHostArray(data)!;
    const compatible =
      arg.dtype === undefined ||
      arg.dtype === passed ||
      (arg.dtype === 'bool' && passed === 'uint8') ||
      (isNarrowFloat(arg.dtype) && passed === 'uint16');
    if (!compatible) {
      throw new LoomError(`argument '${arg.name}' is ${arg.dtype}, but ${describe(v)} (${passed}) was passed`);
    }
    // before any parameter is solved from it: an array with other axes than the argument's is no instance of it
    if ((v instanceof DeviceArray || isShaped(v)) && v.shape.length !== arg.shape!.length) {
      const declared = typed.arg(arg.name)!.shape!;
      const shape = (ownEntry(given, arg.name) as DeviceArray | ShapedHostArray).shape;
      throw new LoomError(
        `argument '${arg.name}' has shape (${shape.join(', ')}), but the kernel needs ${declared.length} axes: (${declared.map(printExpr).join(', ')})`,
      );
    }
    // an argument typed by the complex DeviceArray passed is generated for its complex dtype
    dtypes.set(arg.name, inferred.get(arg.name) ?? arg.dtype ?? passed);
  }
  for (const arg of knl.args)
    if (arg.kind === 'value' && !dtypes.has(arg.name)) dtypes.set(arg.name, arg.dtype ?? INDEX_DTYPE);

  inferParameters(knl, args, values);
  bindLayoutValues(knl, args, views, values, (arg) =>
    arg.shape!.map((s, axis) => evaluate(s, values, `axis ${axis} of '${arg.name}'`)),
  );
  for (const arg of knl.args) {
    if (arg.kind === 'value' && !values.has(arg.name)) {
      throw new LoomError(
        `missing value for argument '${arg.name}': pass it, or pass an array whose size determines it`,
      );
    }
  }
  checkAssumptions(knl, values);

  const arrays: ArgumentBinding['arrays'][number][] = [];
  for (const arg of knl.args) {
    if (arg.kind === 'value') continue;
    const shape = arg.shape!.map((s, axis) => {
      const n = evaluate(s, values, `axis ${axis} of '${arg.name}'`);
      if (n < 0)
        throw new LoomError(
          `argument '${arg.name}' would have a negative size ${n} along axis ${axis} (shape ${printExpr(s)})`,
        );
      return n;
    });
    const elements = shape.reduce((a, b) => a * b, 1);
    if (elements > MAX_INDEX) {
      throw new LoomError(
        `kernel '${knl.name}': argument '${arg.name}' would have ${elements} elements (shape (${shape.join(', ')})), ` +
          `more than the ${MAX_INDEX} that the generated code's 32-bit indices reach; split the problem into smaller arrays`,
      );
    }
    const v = ownEntry(args, arg.name);
    if (v === undefined) {
      if (arg.isInput)
        throw new LoomError(`missing input array '${arg.name}' (shape (${arg.shape!.map(printExpr).join(', ')}))`);
      arrays.push({ arg, dtype: dtypes.get(arg.name), shape });
      continue;
    }
    const expected = shape.reduce((a, b) => a * b, 1);
    if (v instanceof DeviceArray || isShaped(v)) {
      const got = v.shape;
      if (got.length !== shape.length || got.some((g, k) => g !== shape[k])) {
        throw new LoomError(
          `argument '${arg.name}' has shape (${got.join(', ')}), but the kernel needs (${shape.join(', ')})`,
        );
      }
      // a view's data is its whole buffer, checked against the layout (bounds-check.ts)
      if (isShaped(v) && !views.has(arg.name)) {
        const lengths = flatLengths(arg, shape, values);
        if (v.data.length < lengths.least || v.data.length > lengths.most)
          throw new LoomError(
            lengths.least === expected && lengths.most === expected
              ? `argument '${arg.name}': data has ${v.data.length} elements, but its shape (${got.join(', ')}) has ${expected}`
              : `argument '${arg.name}': data has ${v.data.length} elements, but ${paddedLayout(arg.name, shape, lengths)}`,
          );
      }
      arrays.push({ arg, dtype: dtypes.get(arg.name)!, shape, given: v instanceof DeviceArray ? v : v.data });
    } else {
      const data = v as HostArray;
      // the array is the argument's buffer: a padded layout's gaps included
      const lengths = flatLengths(arg, shape, values);
      if (data.length < lengths.least || data.length > lengths.most) {
        throw new LoomError(
          lengths.least === expected && lengths.most === expected
            ? `argument '${arg.name}' has ${data.length} elements, but shape (${arg.shape!.map(printExpr).join(', ')}) = (${shape.join(', ')}) needs ${expected}`
            : `argument '${arg.name}' has ${data.length} elements, but ${paddedLayout(arg.name, shape, lengths)}`,
        );
      }
      arrays.push({ arg, dtype: dtypes.get(arg.name)!, shape, given: data });
    }
  }
  checkViewsMatch(knl, views, values);
  return { dtypes, values, arrays };
}

/**
 * A JS number with a fraction, for an undeclared value argument: like a Python float
 * next to numpy arrays (a weak scalar), it takes the widest float type of the arrays
 * passed — float32 data keeps the kernel in float32 — and float64 when there is none.
 */
function floatForScalar(knl: LoopKernel, given: Readonly<Record<string, RunArgument>>): DType {
  const floats = knl.args.flatMap((a) => {
    const v = ownEntry(given, a.name);
    const t =
      a.dtype ??
      (v instanceof DeviceArray
        ? v.dtype
        : isHostArray(v)
          ? dtypeOfHostArray(v)
          : isShaped(v)
            ? dtypeOfHostArray(v.data)
            : undefined);
    return t !== undefined && isFloat(t) ? [t] : [];
  });
  if (floats.length === 0) return 'float64';
  return floats.reduce<DType>((wider, t) => promote(wider, t), floats[0]);
}

/** What a padded (or offset) layout asks of a flat array, for the error that refuses one. */
function paddedLayout(name: string, shape: readonly number[], lengths: FlatLengths): string {
  const range = lengths.least === lengths.most ? `${lengths.least}` : `${lengths.least} to ${lengths.most}`;
  return (
    `the kernel lays '${name}' out with ${lengths.offset ? `offset ${lengths.offset} and ` : ''}strides (${lengths.strides?.join(', ')}) ` +
    `for shape (${shape.join(', ')}), so a flat array is its buffer with those gaps: pass ${range} elements, ` +
    `element [i, j, ...] at ${lengths.offset ? `${lengths.offset} + ` : ''}i*stride0 + j*stride1 + ...`
  );
}

function describe(v: unknown): string {
  if (v instanceof DeviceArray) return `a DeviceArray of ${v.dtype}`;
  if (isHostArray(v)) return `a ${v.constructor.name}`;
  if (isShaped(v)) return `a { data: ${v.data?.constructor?.name} } array`;
  return typeof v === 'object' ? (JSON.stringify(v)?.slice(0, 40) ?? String(v)) : `${typeof v} ${String(v)}`;
}

function evaluate(e: Expr, values: ReadonlyMap<string, number | bigint>, what: string): number {
  return evaluateInt(e, valuesEnv(values, what), what);
}

/** Finds missing parameters from array sizes: `n` from `a`'s length when `a` has shape (n) or (n, n). */
function inferParameters(
  knl: LoopKernel,
  given: Readonly<Record<string, RunArgument>>,
  values: Map<string, number | bigint>,
): void {
  const missing = () => knl.args.filter((a) => a.kind === 'value' && !values.has(a.name)).map((a) => a.name);
  for (let progress = true; progress && missing().length; ) {
    progress = false;
    for (const arg of knl.args) {
      const v = ownEntry(given, arg.name);
      if (arg.kind === 'value' || v === undefined || !arg.shape) continue;
      const dims = v instanceof DeviceArray || isShaped(v) ? v.shape : undefined;
      if (dims) {
        arg.shape.forEach((s, axis) => {
          const lin = toLinear(s);
          if (!lin || dims.length !== arg.shape!.length) return;
          const unknown = lin.variables.filter((n) => !values.has(n));
          if (unknown.length !== 1) return;
          const p = unknown[0];
          const rest = lin.without([p]).evaluate(Object.fromEntries([...values].map(([k, x]) => [k, Number(x)])));
          const c = lin.coeff(p);
          if ((dims[axis] - rest) % c === 0) {
            values.set(p, (dims[axis] - rest) / c);
            progress = true;
          }
        });
        continue;
      }
      // a flat host array: its length is what the layout takes (the product of the shape when
      // dense, up to the padded block when padded); solve for a single unknown, the smallest that fits
      const length = (v as HostArray).length;
      const names = new Set(arg.shape.flatMap((s) => [...freeNames(s)]));
      const unknown = [...names].filter((n) => !values.has(n) && knl.arg(n)?.kind === 'value');
      if (unknown.length !== 1) continue;
      const p = unknown[0];
      const lengthsAt = (x: number) => {
        const env = new Map(values);
        env.set(p, x);
        return flatLengths(
          arg,
          arg.shape!.map((s) => evaluate(s, env, 'a size')),
          env,
        );
      };
      let lo = 0;
      let hi = Math.max(1, length);
      while (lo < hi) {
        const mid = Math.floor((lo + hi) / 2);
        if (lengthsAt(mid).most < length) lo = mid + 1;
        else hi = mid;
      }
      const fits = lengthsAt(lo);
      if (fits.least <= length && length <= fits.most) {
        values.set(p, lo);
        progress = true;
      }
    }
  }
}

function freeNames(e: Expr): Set<string> {
  const out = new Set<string>();
  const walk = (x: Expr) => {
    if (x.kind === 'var') out.add(x.name);
    else if (x.kind === 'binary') {
      walk(x.left);
      walk(x.right);
    } else if (x.kind === 'neg') walk(x.operand);
  };
  walk(e);
  return out;
}

function checkAssumptions(knl: LoopKernel, values: ReadonlyMap<string, number | bigint>): void {
  const params = knl.assumptions.params;
  if (params.length === 0 && knl.assumptions.constraints.length === 0) return;
  // no prototype: a parameter called `__proto__` or `constructor` is a key like any other
  const point: Record<string, number> = Object.create(null);
  for (const p of params) {
    const v = values.get(p);
    if (v === undefined) return;
    point[p] = Number(v);
  }
  const key = params.map((p) => point[p]).join(',');
  const ok = assumptionsHold(knl);
  if (ok.has(key)) return;
  if (!knl.assumptions.contains(point)) {
    const given = params.map((p) => `${p} = ${point[p]}`).join(', ');
    throw new LoomError(`${given} violates the kernel's assumptions ${knl.assumptions.toString()}`);
  }
  ok.set(key, true);
}

/**
 * A value must fit its dtype: the generated code would otherwise see it wrapped (2^31 as an
 * int32 is -2^31, and a loop to n never runs, or indices overflow).
 */
function checkFits(knl: LoopKernel, name: string, dtype: DType, v: number | bigint): void {
  if (!isInteger(dtype)) return;
  const bits = BigInt(byteSize(dtype) * 8);
  const signed = dtype.startsWith('int');
  const [lo, hi] = signed ? [-(2n ** (bits - 1n)), 2n ** (bits - 1n) - 1n] : [0n, 2n ** bits - 1n];
  const value = BigInt(v);
  if (value >= lo && value <= hi) return;
  const index = dtype === INDEX_DTYPE && knl.domains.some((d) => d.params.includes(name));
  throw new LoomError(
    `kernel '${knl.name}': argument '${name}' = ${v} does not fit its dtype ${dtype} (${lo} to ${hi})` +
      (index
        ? '; loop bounds and indices are 32-bit integers in the generated code: split the problem into launches with smaller sizes'
        : ''),
  );
}

/** Per kernel (weakly), the parameter values known to satisfy its assumptions; bounded, as every size may come. */
const assumptionsHold = perObject((_: LoopKernel) => new LruCache<string, true>(CHECKED_PER_KERNEL));
const CHECKED_PER_KERNEL = 256;

/** The binding with every dtype known: those of outputs nobody passed as the generated code has them. */
export function typeBinding(bound: ArgumentBinding, code: GeneratedCode): Binding {
  const dtypes = new Map(bound.dtypes);
  for (const a of code.host.arguments) dtypes.set(a.name, a.dtype);
  const hosts = new Map(code.host.arguments.map((a) => [a.name, a]));
  const arrays = bound.arrays.map((a): BoundArray => {
    const host = hosts.get(a.arg.name)!;
    // an output whose complex dtype was inferred: its parts take a trailing axis of 2
    const shape = host.complex !== undefined && a.arg.dtype === undefined ? [...a.shape, 2] : a.shape;
    return host.sep ? { ...a, shape, dtype: host.dtype, sep: host.sep } : { ...a, shape, dtype: host.dtype };
  });
  return { dtypes, values: bound.values, arrays };
}

export function checkDTypeName(d: string): DType {
  if (!isDType(d)) throw new LoomError(`unknown dtype '${d}'`);
  return d;
}

export function byteLengthOf(dtype: DType, shape: readonly number[]): number {
  return shape.reduce((a, b) => a * b, 1) * byteSize(dtype);
}
