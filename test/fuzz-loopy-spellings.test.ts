/**
 * loopy's spellings of arguments, and mutations of them, never raise anything but a
 * LoomError (issue 27: "inputs loopy accepts never raise a non-Loom exception"). A fixed
 * seed draws a few hundred makeKernel argument lists, shapes, option objects and addDtypes /
 * extractSubst / prioritizeLoops arguments; each either makes a kernel or is refused with a
 * LoomError that says what to write instead. The spellings loopy itself accepts must be accepted.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  LoomError,
  addDtypes,
  extractSubst,
  globalArg,
  makeKernel,
  prioritizeLoops,
  temporaryVariable,
  valueArg,
} from '@loom/core';

/** A small deterministic generator (mulberry32), so a failure names an input that comes back. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const random = rng(2027);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)];

/** Shapes loopy accepts for a one-axis array over `n`, then shapes no one should write. */
const GOOD_SHAPES: readonly unknown[] = ['n', '(n,)', '(n)', ['n'], 'auto', [10], 10, 'n, ', ' n '];
const ODD_SHAPES: readonly unknown[] = [
  null,
  {},
  [null],
  [[1]],
  true,
  '',
  ',',
  '(,)',
  'n,,',
  [1.5],
  -1,
  ['('],
  ')',
  '(n',
  Number.NaN,
  [Symbol.iterator.toString()],
];
/** Argument list entries loopy accepts, then odd ones. */
const GOOD_ENTRIES: readonly unknown[] = ['...', 'a', 'b', 'n', 'a, b', ' ... '];
const ODD_ENTRIES: readonly unknown[] = [
  null,
  3,
  {},
  [],
  ['a'],
  { name: 3 },
  { name: 'a,,b' },
  { name: '' },
  '1a',
  'a b',
  { kind: 'global' },
  Symbol('a'),
];
/** Third arguments of makeKernel: lists, strings, options; and odd ones. */
const ODD_THIRDS: readonly unknown[] = [
  null,
  3,
  true,
  { name: 3 },
  { nmae: 'k' },
  { name: 'k', assumptions: 5 },
  globalArg('a'),
  new Map(),
  () => 1,
];

function drawShape(): unknown {
  return random() < 0.6 ? pick(GOOD_SHAPES) : pick(ODD_SHAPES);
}

function drawEntry(): unknown {
  const r = random();
  if (r < 0.3) return pick(GOOD_ENTRIES);
  if (r < 0.5) return globalArg(pick(['a', 'b', 'a,b', 'a, b']), { shape: drawShape() } as never);
  if (r < 0.6) return valueArg('n', pick(['int32', 'int64', 'float', undefined]) as never);
  if (r < 0.7) return temporaryVariable(pick(['t', 'u']), { shape: drawShape() } as never);
  return pick(ODD_ENTRIES);
}

function drawArgs(): unknown {
  const r = random();
  if (r < 0.15) return undefined;
  if (r < 0.3) return pick(['...', 'a, b, ...', 'a,b,n', 'a', '', ',', 'a,,...']);
  if (r < 0.45) return random() < 0.5 ? { name: pick(['k', 'twice']) } : pick(ODD_THIRDS);
  return Array.from({ length: 1 + Math.floor(random() * 3) }, drawEntry);
}

/** Runs `f`; anything thrown must be a LoomError. */
function onlyLoomErrors(what: string, f: () => unknown): boolean {
  try {
    f();
    return true;
  } catch (e) {
    if (!(e instanceof LoomError))
      assert.unreachable(`${what}: ${e instanceof Error ? `${e.constructor.name}: ${e.message}` : String(e)}`);
    assert.ok((e as Error).message.length > 10, `${what}: the message says something`);
    return false;
  }
}

const describe = (x: unknown) => {
  try {
    return JSON.stringify(x) ?? String(x);
  } catch {
    return String(x);
  }
};

test('makeKernel: loopy spellings of the argument list and shapes raise only LoomErrors', () => {
  let accepted = 0;
  for (let k = 0; k < 300; k++) {
    const args = drawArgs();
    const options = random() < 0.1 ? { name: 'k' } : undefined;
    if (
      onlyLoomErrors(`makeKernel(..., ${describe(args)}, ${describe(options)})`, () =>
        makeKernel('{[i]: 0<=i<n}', 'b[i] = 2*a[i]', args as never, options),
      )
    )
      accepted++;
  }
  // most drawn inputs are loopy's: a generator that only produced refusals would test little
  assert.ok(accepted > 100, `${accepted} of 300 accepted`);
});

test('the spellings loopy accepts are accepted', () => {
  for (const shape of GOOD_SHAPES)
    makeKernel('{[i]: 0<=i<10}', 'b[i] = 2*a[i]', [globalArg('a', { shape } as never), '...']);
  for (const entry of GOOD_ENTRIES) makeKernel('{[i]: 0<=i<n}', 'b[i] = 2*a[i]', [entry as string, '...']);
  for (const third of ['...', 'a, b, n', { name: 'k' }, undefined])
    makeKernel('{[i]: 0<=i<n}', 'b[i] = 2*a[i]', third as never);
});

test('addDtypes, extractSubst, prioritizeLoops: comma-separated names and mutations raise only LoomErrors', () => {
  const knl = makeKernel('{[i,j]: 0<=i,j<n}', 'b[i, j] = 2*a[i, j] + a[j, i]');
  const keys = ['a', 'a,b', 'a, b', ' b ', 'a,,b', '', ',', 'c', 'a,c', '__proto__', 'constructor'];
  const dtypes = ['float32', 'float64', 'int32', 'float', 'np.float32', undefined, null, 3];
  for (let k = 0; k < 120; k++) {
    const table = random() < 0.1 ? pick([null, [], 'a', 3]) : { [pick(keys)]: pick(dtypes) };
    onlyLoomErrors(`addDtypes(${describe(table)})`, () => addDtypes(knl, table as never));
    const params = pick(['x', 'x, y', 'x,,y', '', ['x'], [3], null, 'x y', 'i']);
    onlyLoomErrors(`extractSubst(${describe(params)})`, () =>
      extractSubst(knl, 'r', pick(['a[x, y]', 'a[', '2*x', 'x']), params as never),
    );
    const order = pick(['i,j', 'j, i', 'i,,j', 'i,k', '', ['i', 'j'], [1], null, { i: 1 }]);
    onlyLoomErrors(`prioritizeLoops(${describe(order)})`, () => prioritizeLoops(knl, order as never));
  }
  assert.equal(
    addDtypes(knl, { 'a, b': 'float32' })
      .args.filter((a) => a.dtype === 'float32')
      .map((a) => a.name),
    ['a', 'b'],
  );
});

test.run();
