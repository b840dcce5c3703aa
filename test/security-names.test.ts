/**
 * Names are the one piece of user text that reaches generated code (issue 11). Every
 * name is checked where it enters Loom and spelled per target away from keywords and
 * built-ins (packages/core/src/names.ts). Here: the reported injections, each API that
 * takes a name fed hostile ones, and keywords of every target used as ordinary names.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addPrefetch,
  commentText,
  duplicateInames,
  generateCode,
  joinInames,
  LoomError,
  makeKernel,
  precompute,
  renameIname,
  run,
  addDtypes,
  splitIname,
  tagInames,
  TargetNames,
  type LoopKernel,
} from '@loom/core';
import { cpuDevice, jsTarget } from '@loom/codegen-js';
import { openclTarget } from '@loom/codegen-opencl';
import { kernel } from '@loom/dsl';
import { testDevices } from './support/devices.ts';

const PWNED = 'a\nglobalThis.PWNED=1;//';
const pwned = () => (globalThis as { PWNED?: unknown }).PWNED;

/** Runs `build` and returns the LoomError it throws (failing the test if it throws anything else or nothing). */
function refusal(build: () => unknown, what: string): LoomError {
  try {
    build();
  } catch (e) {
    if (e instanceof LoomError) return e;
    throw new Error(`${what}: expected a LoomError, got ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
  }
  throw new Error(`${what}: the name was accepted`);
}

const a8 = () => Float32Array.from({ length: 8 }, (_, k) => k + 1);
const doubled = Array.from(a8(), (x) => 2 * x);

// ---- the reported reproductions ----

test('CPU device: a kernel name with a newline is refused, and no host code runs', async () => {
  const e = refusal(() => makeKernel('{[i]:0<=i<n}', 'out[i]=2*a[i]', undefined, { name: PWNED }), 'name');
  assert.match(e.message, /makeKernel: the kernel name/);
  assert.match(e.message, /"a\\nglobalThis\.PWNED=1;\/\/" is not a name/);
  assert.is(pwned(), undefined);
});

test('CPU device: names from id_prefix, splitIname and addPrefetch cannot end a comment either', async () => {
  const base = makeKernel('{[i]:0<=i<n}', 'out[i]=2*a[i]');
  for (const sep of ['\n', '\r', '\u2028']) {
    const hostile = `a${sep}globalThis.PWNED=1;//`;
    refusal(
      () => makeKernel('{[i]:0<=i<n}', `out[i]=2*a[i] {id_prefix=${hostile}}`),
      `id_prefix with ${JSON.stringify(sep)}`,
    );
    assert.match(
      refusal(() => splitIname(base, 'i', 4, { outerIname: hostile }), 'outerIname').message,
      /splitIname: option outerIname/,
    );
    assert.match(
      refusal(() => addPrefetch(base, 'a', ['i'], { temporaryName: hostile }), 'temporaryName').message,
      /addPrefetch: option temporaryName/,
    );
  }
  // the kernel still runs, and nothing ran on the host besides it
  const { out } = await run(splitIname(base, 'i', 4), cpuDevice(), { a: a8() });
  assert.equal(Array.from(out as Float32Array), doubled);
  assert.is(pwned(), undefined);
});

test('OpenCL: an id_prefix that closes a comment is refused with a caret under it', () => {
  const text = 'out[i] = 2*a[i] {id_prefix=y*/;out[16*gid(0)+lid(0)]=-7.0f;return;/*z}';
  const e = refusal(() => makeKernel('{[i]:0<=i<n}', text), 'id_prefix');
  assert.match(e.message, /instruction attribute 'id_prefix': "y\*\/;out/);
  assert.ok(e.span, 'the error points into the instruction');
  assert.is(text.slice(e.span!.start, e.span!.start + 3), 'y*/');
  assert.match(e.message, /\n +\^+/);
});

test('OpenCL: "#define" smuggled through a transformation\'s names is refused by each of them', () => {
  const hostile = 'jj\r#define\tout\t(out+4)\r';
  const knl = makeKernel('{[i,j]:0<=i<n and 0<=j<4}', 'out[4*i+j]=2*a[4*i+j]');
  const cases: [string, () => unknown][] = [
    ['splitIname: option innerIname', () => splitIname(knl, 'i', 2, { innerIname: hostile })],
    ['splitIname: option outerIname', () => splitIname(knl, 'i', 2, { outerIname: hostile })],
    ['duplicateInames: option newNames', () => duplicateInames(knl, 'j', { newNames: [hostile] })],
    ['addPrefetch: option temporaryName', () => addPrefetch(knl, 'a', ['j'], { temporaryName: hostile })],
    ['addPrefetch: option dimNames', () => addPrefetch(knl, 'a', ['j'], { dimNames: [hostile] })],
  ];
  for (const [where, build] of cases) assert.ok(refusal(build, where).message.startsWith(where), where);
});

test('plain Errors are LoomErrors now: an id_prefix with a space', () => {
  const e = refusal(() => makeKernel('{[i]:0<=i<n}', 'out[i]=2*a[i] {id_prefix=a b}'), 'id_prefix');
  assert.match(e.message, /"a b" is not a name/);
});

test('a kernel assembled around the checks is still refused before any code exists', () => {
  const knl = makeKernel('{[i]:0<=i<n}', 'out[i]=2*a[i]');
  assert.match(refusal(() => knl.with({ name: PWNED }), 'with').message, /kernel name: "a\\nglobal/);
});

test('comments in generated code carry no line break, comment closer or backslash', () => {
  const text = commentText('a*/b/*c\nd\re\u2028f\\');
  assert.not.match(text, /\*\/|\/\*|[\n\r\u2028\\]/);
  assert.is(text, 'a* /b/ *c_d_e_f_');
});

// ---- every API that takes a name, fed names that are not names ----

const NOT_NAMES = [
  PWNED,
  'a\rb',
  'a\u2028b',
  'a\u2029b',
  'x*/',
  '/*x',
  '//x',
  '#define',
  'a b',
  ' a',
  'a\t',
  'a-b',
  'a.b',
  'a$',
  'ä',
  'naïve',
  '\u0430',
  '',
  '1a',
  '9',
  'a;b',
  "a'b",
  'a"b',
  'a`b',
  'a}',
  'a:b',
  'a(b)',
  'a[0]',
];

/**
 * Each API, given a name: the kernel it builds. `label`: what its LoomError names. APIs
 * without one read the name out of text, whose error points at it with a caret instead
 * (and whose surrounding blanks are no part of the name). Names inside expressions (arrays,
 * parameters) are not here: an expression's names are its tokens, so `a-b` there is a
 * subtraction, not a name.
 */
/** `trims`: the API reads loopy's comma-separated spelling, so ' a' is the name 'a' ('a, b' names two). */
const NAME_TAKERS: {
  readonly api: string;
  readonly label?: RegExp;
  readonly trims?: boolean;
  readonly build: (name: string) => unknown;
}[] = [
  {
    api: 'makeKernel name',
    label: /makeKernel: the kernel name/,
    build: (n) => makeKernel('{[i]:0<=i<n}', 'out[i]=a[i]', undefined, { name: n }),
  },
  {
    api: 'makeKernel argument',
    label: /makeKernel: (the )?argument name/,
    trims: true,
    build: (n) => makeKernel('{[i]:0<=i<n}', 'out[i]=a[i]', [{ name: n }, '...']),
  },
  { api: 'instruction id', build: (n) => makeKernel('{[i]:0<=i<n}', `out[i]=a[i] {id=${n}}`) },
  { api: 'id_prefix', build: (n) => makeKernel('{[i]:0<=i<n}', `out[i]=a[i] {id_prefix=${n}}`) },
  { api: 'iname in a domain', build: (n) => makeKernel(`{[${n}]:0<=${n}<n}`, `out[${n}]=a[${n}]`) },
  // (`a[0]` declares the array temporary a, a size in n: refused by a target without private arrays
  // sized at launch, as OpenCL C has none; the CPU device's JavaScript and C would declare it)
  {
    api: 'temporary',
    build: (n) => generateCode(makeKernel('{[i]:0<=i<n}', [`<float32> ${n} = a[i]`, `out[i] = ${n}`]), openclTarget()),
  },
  { api: 'rule name', build: (n) => makeKernel('{[i]:0<=i<n}', [`${n}(x) := 2*x`, `out[i] = ${n}(a[i])`]) },
  {
    api: 'splitIname outerIname',
    label: /splitIname: option outerIname/,
    build: (n) => splitIname(plain(), 'i', 2, { outerIname: n }),
  },
  {
    api: 'splitIname innerIname',
    label: /splitIname: option innerIname/,
    build: (n) => splitIname(plain(), 'i', 2, { innerIname: n }),
  },
  {
    api: 'duplicateInames newNames',
    label: /duplicateInames: option newNames/,
    build: (n) => duplicateInames(plain(), 'i', { newNames: [n] }),
  },
  { api: 'renameIname', label: /renameIname: the new name/, build: (n) => renameIname(plain(), 'i', n) },
  { api: 'joinInames', label: /joinInames: the new iname/, build: (n) => joinInames(plain2d(), ['i', 'j'], n) },
  {
    api: 'addPrefetch temporaryName',
    label: /addPrefetch: option temporaryName/,
    build: (n) => addPrefetch(plain(), 'a', ['i'], { temporaryName: n }),
  },
  {
    api: 'addPrefetch dimNames',
    label: /addPrefetch: option dimNames/,
    build: (n) => addPrefetch(plain(), 'a', ['i'], { dimNames: [n] }),
  },
  {
    api: 'addPrefetch prefetchInsnId',
    label: /addPrefetch: option prefetchInsnId/,
    build: (n) => addPrefetch(plain(), 'a', ['i'], { prefetchInsnId: n }),
  },
  {
    api: 'precompute temporaryName',
    label: /precompute: option temporaryName/,
    build: (n) => precompute(withRule(), 'twice', ['i'], { temporaryName: n }),
  },
  {
    api: 'precompute precomputeInames',
    label: /precompute: option precomputeInames/,
    build: (n) => precompute(withRule(), 'twice', ['i'], { precomputeInames: [n] }),
  },
  {
    api: 'dsl kernel name',
    label: /makeKernel: the kernel name/,
    build: (n) => kernel('{[i]:0<=i<n}', 'out[i]=a[i]', { name: n }),
  },
  {
    api: 'dsl .split outerIname',
    label: /splitIname: option outerIname/,
    build: (n) => kernel('{[i]:0<=i<n}', 'out[i]=a[i]').split('i', 2, { outerIname: n }),
  },
  {
    api: 'dsl .dup newNames',
    label: /duplicateInames: option newNames/,
    build: (n) => kernel('{[i]:0<=i<n}', 'out[i]=a[i]').dup('i', { newNames: [n] }),
  },
  {
    api: 'dsl .rename',
    label: /renameIname: the new name/,
    build: (n) => kernel('{[i]:0<=i<n}', 'out[i]=a[i]').rename('i', n),
  },
];

const plain = () => makeKernel('{[i]:0<=i<n}', 'out[i]=2*a[i]');
const plain2d = () => makeKernel('{[i,j]:0<=i<4 and 0<=j<2}', 'out[2*i+j]=2*a[2*i+j]');
const withRule = () => makeKernel('{[i]:0<=i<n}', ['twice(x) := 2*x', 'out[i] = twice(a[i])']);

test('every API that takes a name refuses what is not a name, with a LoomError naming the API', () => {
  for (const { api, label, trims, build } of NAME_TAKERS) {
    for (const name of NOT_NAMES) {
      if ((!label || trims) && name.trim() !== name) continue;
      const e = refusal(() => build(name), `${api} given ${JSON.stringify(name)}`);
      if (label) assert.match(e.message, label, `${api} given ${JSON.stringify(name)}: ${e.message}`);
    }
  }
  assert.is(pwned(), undefined);
});

// ---- keywords and built-ins of every target are ordinary names in Loom ----

const KEYWORDS = [
  // C and OpenCL C
  'int',
  'float',
  'kernel',
  'global',
  'local',
  'sqrt',
  'get_local_id',
  'float4',
  'barrier',
  'M_PI',
  'INFINITY',
  'lid',
  'gid',
  '__kernel',
  '_Bool',
  'loom_div_int32',
  'convert_int',
  // WGSL
  'var',
  'fn',
  'let',
  'array',
  'select',
  'workgroupBarrier',
  'filter',
  'params',
  'f32',
  // JavaScript, and what the generated JavaScript relies on
  'function',
  'this',
  'arguments',
  'eval',
  'new',
  'Math',
  'loom',
  'gid0',
  'undefined',
  // Object.prototype
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'valueOf',
];

/** Kernels that use `name` in one role each; all compute out = 2*a + 1 over 8 elements. */
function roles(name: string): [string, LoopKernel][] {
  return [
    [
      'kernel name and iname',
      makeKernel(`{[${name}]:0<=${name}<n}`, `out[${name}] = 2*a[${name}] + 1`, undefined, { name }),
    ],
    ['input array', makeKernel('{[i]:0<=i<n}', `out[i] = 2*${name}[i] + 1`)],
    ['output array', makeKernel('{[i]:0<=i<n}', `${name}[i] = 2*a[i] + 1`)],
    ['temporary', makeKernel('{[i]:0<=i<n}', [`<float32> ${name} = 2*a[i] {id=t}`, `out[i] = ${name} + 1 {dep=t}`])],
    ['domain parameter', makeKernel(`{[i]:0<=i<${name}}`, 'out[i] = 2*a[i] + 1')],
    ['rule', makeKernel('{[i]:0<=i<n}', [`${name}(x) := 2*x + 1`, `out[i] = ${name}(a[i])`])],
    [
      'split halves',
      tagInames(splitIname(plain1(), 'i', 4, { innerIname: name, outerIname: `${name}_` }), { [name]: 'l.0' }),
    ],
    [
      'prefetched copy',
      addPrefetch(makeKernel('{[i]:0<=i<8}', 'out[i] = 2*a[i] + 1'), 'a', ['i'], {
        temporaryName: name,
        dimNames: [`${name}_`],
      }),
    ],
  ];
}
const plain1 = () => makeKernel('{[i]:0<=i<n}', 'out[i] = 2*a[i] + 1');

/** The arrays and values a kernel from `roles` runs with, and where its result is. */
function launch(name: string, role: string): { args: Record<string, unknown>; result: string } {
  const args: Record<string, unknown> = {};
  Object.defineProperty(args, role === 'input array' ? name : 'a', { value: a8(), enumerable: true });
  if (role === 'domain parameter') Object.defineProperty(args, name, { value: 8, enumerable: true });
  return { args, result: role === 'output array' ? name : 'out' };
}

const expected = Array.from(a8(), (x) => 2 * x + 1);

for (const device of testDevices()) {
  test(`${device.name}: keywords and built-ins of every target work as names, in every role`, async () => {
    for (const name of KEYWORDS) {
      for (const [role, knl] of roles(name)) {
        const { args, result } = launch(name, role);
        let outputs;
        try {
          outputs = await run(knl, device, args as never);
        } catch (e) {
          throw new Error(`'${name}' as ${role}: ${e instanceof Error ? e.message : String(e)}`);
        }
        assert.ok(Object.hasOwn(outputs, result), `'${name}' as ${role}: no output '${result}'`);
        assert.equal(Array.from(outputs[result] as Float32Array), expected, `'${name}' as ${role}`);
      }
    }
  });
}

// ---- the spelling itself ----

test('OpenCL spells reserved names apart, never onto another name of the program', () => {
  const knl = makeKernel(
    '{[int]:0<=int<n}',
    ['int_[int] = 2*a[int]', 'float[int] = int_[int] + kernel[int]'],
    undefined,
    { name: 'kernel_' },
  );
  const code = generateCode(addDtypes(knl, { a: 'float32', kernel: 'float32' }), openclTarget()).code;
  assert.match(code, /for \(int int__ = 0; int__ <= -1 \+ n; \+\+int__\)/);
  assert.match(code, /int_\[int__\] = 2\.0f \* a\[int__\]/);
  assert.match(code, /float_\[int__\] = int_\[int__\] \+ kernel__\[int__\]/);
  assert.match(code, / kernel_\(/);
});

test('TargetNames: the spelling depends on the set of names only, and is one-to-one', () => {
  const reserved = (n: string) => ['int', 'for'].includes(n) || n.startsWith('__');
  const names = ['int', 'int_', 'for', '__x', 'v__x', 'x'];
  const one = new TargetNames(reserved, names);
  const other = new TargetNames(reserved, [...names].reverse());
  const spelled = names.map((n) => one.of(n));
  assert.equal(
    spelled,
    names.map((n) => other.of(n)),
  );
  assert.equal(spelled, ['int__', 'int_', 'for_', 'v__x_', 'v__x', 'x']);
  assert.is(new Set(spelled).size, names.length);
});

test('JavaScript: reserved names get a `$`, which no Loom name has', () => {
  const knl = makeKernel('{[i]:0<=i<n}', 'new[i] = 2*this[i]', undefined, { name: 'function' });
  const code = generateCode(addDtypes(knl, { this: 'float32' }), jsTarget()).code;
  assert.match(code, /function function\$\(/);
  assert.match(code, /new\$\[i\] = /);
});

test.run();
