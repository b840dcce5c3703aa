/** Generated WGSL reads like hand-written code, and refuses what WGSL cannot do with a clear error. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  expr as E,
  generateCode,
  globalArg,
  LoomError,
  makeKernel,
  prioritizeLoops,
  type DType,
  type KernelFunction,
  type ProgramAst,
  type Stmt,
} from '@loom/core';
import { foldedSize, generateWgsl, isReservedInWgsl, wgslTarget } from '@loom/codegen-wgsl';
import { compilationError } from '../packages/codegen-wgsl/src/errors.ts';

const lines = (s: string) =>
  s
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
const wgsl = (knl: Parameters<typeof generateCode>[0]) => generateCode(knl, wgslTarget()).code;

test('double a vector: the code of "Generating code"', () => {
  const knl = addDtypes(makeKernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]'), { a: 'float32' });
  assert.is(
    generateCode(knl, wgslTarget()).code,
    `struct Params {
  n: i32,
}

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;

@compute @workgroup_size(1)
fn loopy_kernel() {
  let n = params.n;
  for (var i: i32 = 0i; i <= -1i + n; i++) {
    out[i] = 2.0 * a[i];
  }
}
`,
  );
});

test('transpose and double: argument order, row-major indices, loop nests', () => {
  let knl = makeKernel(
    '{ [i,j,ii,jj]: 0<=i,j,ii,jj<n }',
    `
    out[j,i] = a[i,j] {id=transpose}
    out[ii,jj] = 2*out[ii,jj] {dep=transpose}
    `,
    [globalArg('out', { shape: 'auto', isInput: false }), '...'],
  );
  knl = prioritizeLoops(prioritizeLoops(knl, 'i,j'), 'ii,jj');
  const code = lines(wgsl(addDtypes(knl, { a: 'float32' })));
  const start = code.indexOf('fn loopy_kernel() {');
  assert.equal(code.slice(start - 1), [
    '@compute @workgroup_size(1)',
    'fn loopy_kernel() {',
    'let n = params.n;',
    'for (var i: i32 = 0i; i <= -1i + n; i++) {',
    'for (var j: i32 = 0i; j <= -1i + n; j++) {',
    'out[n * j + i] = a[n * i + j];',
    '}',
    '}',
    'for (var ii: i32 = 0i; ii <= -1i + n; ii++) {',
    'for (var jj: i32 = 0i; jj <= -1i + n; jj++) {',
    'out[n * ii + jj] = 2.0 * out[n * ii + jj];',
    '}',
    '}',
    '}',
  ]);
  assert.ok(code.includes('@group(0) @binding(0) var<storage, read_write> out: array<f32>;'));
  assert.ok(code.includes('@group(0) @binding(1) var<storage, read> a: array<f32>;'));
});

test("a non-negative index's // and % are WGSL's own / and %; anything that may be negative keeps the floor helpers", () => {
  const knl = makeKernel(
    '{ [i, j]: 0<=i<n and -3<=j<3 }',
    'out[i, j + 3] = (i // 4) * 10 + i % 4 + (2*i + 1) // 3 + j // 2 + j % 2 + (i - 5) // 2',
    [globalArg('out', { shape: ['n', 6], dtype: 'int32' }), '...'],
  );
  const code = wgsl(knl);
  assert.match(code, 'i / 4i * 10i + i % 4i + (2i * i + 1i) / 3i');
  // j starts at -3, and i - 5 may be negative: floor division and Python's remainder
  assert.match(code, 'floor_div_i32(j, 2i) + mod_i32(j, 2i) + floor_div_i32(i - 5i, 2i)');
});

test('every operand is converted explicitly and every literal is typed', () => {
  const tri = prioritizeLoops(
    makeKernel('{ [i,j]: 0<=j<=i<n }', 'out[i,j] = a[i] + j', [
      globalArg('out', { shape: ['n', 'n'], isInput: false, dtype: 'float32' }),
      '...',
    ]),
    'i,j',
  );
  assert.match(wgsl(addDtypes(tri, { a: 'float32' })), 'out[n * i + j] = a[i] + f32(j);');
  const ints = makeKernel('{ [i]: 0<=i<n }', 'out[i] = 3*a[i] - b[i] // 2 + b[i] % 3');
  const code = wgsl(addDtypes(ints, { a: 'int32', b: 'int32' }));
  assert.match(code, 'out[i] = 3i * a[i] - floor_div_i32(b[i], 2i) + mod_i32(b[i], 3i);');
  assert.match(code, 'fn floor_div_i32(a: i32, b: i32) -> i32 {');
  const unsigned = makeKernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i] + 1 - a[i] // 4 + -a[i]');
  // WGSL has no unary minus on u32
  assert.match(wgsl(addDtypes(unsigned, { a: 'uint32' })), 'out[i] = 2u * a[i] + 1u - a[i] / 4u + (0u - a[i]);');
  const mixed = makeKernel('{ [i]: 0<=i<n }', 'out[i] = if(a[i] > 0.5, a[i], 0.25) ** 2');
  const mixedCode = wgsl(addDtypes(mixed, { a: 'float32' }));
  assert.match(mixedCode, 'out[i] = pow_f32(select(0.25, a[i], a[i] > 0.5), 2.0);');
});

test('guards on the domain: divisibility with %, no helper', () => {
  const strided = makeKernel('{ [i]: 0<=i<n and i mod 3 = 0 }', 'out[i] = 1', [
    globalArg('out', { shape: ['n'], dtype: 'int32' }),
    '...',
  ]);
  const code = lines(wgsl(strided));
  const at = code.indexOf('if (i % 3i == 0i) {');
  assert.ok(at > 0, code.join('\n'));
  assert.is(code[at + 1], 'out[i] = 1i;');
});

test('float64 and 64-bit integers: a LoomError naming the argument, the dtype and where it runs', () => {
  const knl = makeKernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]');
  for (const dtype of ['float64', 'int64', 'uint64'] as const) {
    try {
      wgsl(addDtypes(knl, { a: dtype }));
      assert.unreachable(`${dtype} was accepted`);
    } catch (e) {
      assert.instance(e, LoomError);
      const message = (e as Error).message;
      assert.match(message, `'a'`);
      assert.match(message, dtype);
      assert.match(message, 'OpenCL');
      assert.match(message, 'CPU');
    }
  }
  // int32 with uint32 promotes to int64, which WGSL cannot compute either
  const mixed = makeKernel('{ [i]: 0<=i<n }', 'out[i] = float32(a[i] + b[i])');
  assert.throws(
    () => wgsl(addDtypes(mixed, { a: 'int32', b: 'uint32' })),
    (e: Error) => e instanceof LoomError && /int64/.test(e.message),
  );
  // ... but comparing them is exact without it
  const compare = makeKernel('{ [i]: 0<=i<n }', 'out[i] = if(a[i] < b[i], 1, 0)', [
    globalArg('out', { shape: ['n'], dtype: 'int32' }),
    '...',
  ]);
  assert.match(wgsl(addDtypes(compare, { a: 'int32', b: 'uint32' })), '(a[i] < 0i || u32(a[i]) < b[i])');
});

test('names WGSL reserves or predeclares are renamed, consistently', () => {
  for (const word of [
    'active',
    'filter',
    'sample',
    'ref',
    'target',
    'self',
    'select',
    'min',
    'f32',
    'read',
    'storage',
    'loop',
  ]) {
    assert.ok(isReservedInWgsl(word), word);
  }
  assert.not.ok(isReservedInWgsl('out'));
  const knl = makeKernel('{ [i]: 0<=i<n }', 'filter[i] = 2*active[i] + params[i]', ['...'], { name: 'select' });
  const code = wgsl(addDtypes(knl, { active: 'float32', params: 'float32' }));
  assert.match(code, 'var<storage, read> active_: array<f32>;');
  assert.match(code, 'var<storage, read_write> filter_: array<f32>;');
  assert.match(code, 'var<storage, read> params_: array<f32>;');
  assert.match(code, 'fn select_() {');
  assert.match(code, 'filter_[i] = 2.0 * active_[i] + params_[i];');
  assert.match(code, 'let n = params.n;');
});

test('float16 enables the extension, and is refused where the adapter lacks shader-f16', () => {
  const knl = addDtypes(makeKernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]'), { a: 'float16' });
  const code = wgsl(knl);
  assert.ok(code.startsWith('enable f16;\n'));
  assert.match(code, 'out[i] = 2.0h * a[i];');
  assert.throws(
    () => generateCode(knl, wgslTarget({ shaderF16: false })),
    (e: Error) => e instanceof LoomError && /shader-f16/.test(e.message) && /'a'/.test(e.message),
  );
});

test('8- and 16-bit arrays are packed in words; written ones through atomic words', () => {
  const knl = makeKernel('{ [i]: 0<=i<n }', 'out[i] = a[i] + b[i]', [
    globalArg('out', { shape: ['n'], dtype: 'int8', isInput: false }),
    '...',
  ]);
  const code = wgsl(addDtypes(knl, { a: 'int8', b: 'uint16' }));
  assert.match(code, 'var<storage, read> a: array<u32>; // int8, four to a word');
  assert.match(code, 'var<storage, read> b: array<u32>; // uint16, two to a word');
  assert.match(code, 'var<storage, read_write> out: array<atomic<u32>>; // int8, four to a word');
  assert.match(code, 'store_out(i, extractBits(load_a(i) + load_b(i), 0u, 8u));');
  assert.match(code, 'atomicAnd(&out[u32(index) / 4u], ~(0xffu << shift));');
  assert.match(code, 'return extractBits(bitcast<i32>(word), u32(index) % 4u * 8u, 8u);');
});

// --- hand-built programs: what the parallel code generation of the next issue will produce -----

const { call, int, variable, subscript, binary, compare } = E;
const gid = call('gid', [int(0)]);
const lid = call('lid', [int(0)]);
const globalIndex = binary('+', binary('*', gid, int(64)), lid);

function kernel(
  body: Stmt[],
  params: KernelFunction['params'],
  types: Record<string, DType>,
  localSize = [64],
): ProgramAst {
  return {
    kernels: [
      {
        name: 'knl',
        params,
        body: { kind: 'block', body },
        localSize: localSize.map(int),
        groupCount: [variable('groups')],
        types: new Map(Object.entries(types)),
      },
    ],
  };
}

/** `if (i < n) { tile[lid] = a[i]; barrier; out[i] = tile[63 - lid] }`: the barrier sits under a guard. */
function guardedBarrier(): ProgramAst {
  const body: Stmt[] = [
    { kind: 'declare', name: 'tile', dtype: 'float32', addressSpace: 'local', length: 64 },
    {
      kind: 'if',
      condition: compare('<', globalIndex, variable('n')),
      then: {
        kind: 'block',
        body: [
          {
            kind: 'assign',
            target: subscript('tile', [lid]),
            value: subscript('a', [globalIndex]),
            dtype: 'float32',
            atomic: false,
            insnId: 'load',
          },
          { kind: 'barrier', scope: 'local', comment: 'the tile is complete' },
          {
            kind: 'assign',
            target: subscript('out', [globalIndex]),
            value: subscript('tile', [binary('-', int(63), lid)]),
            dtype: 'float32',
            atomic: false,
            insnId: 'store',
          },
        ],
      },
    },
  ];
  return kernel(
    body,
    [
      { name: 'a', dtype: 'float32', kind: 'global', written: false },
      { name: 'out', dtype: 'float32', kind: 'global', written: true },
      { name: 'n', dtype: 'int32', kind: 'value', written: false },
    ],
    { a: 'float32', out: 'float32', tile: 'float32', n: 'int32' },
  );
}

test('a barrier under a guard: the guard is evaluated once and the statements around the barrier guarded alone', () => {
  const code = generateWgsl(guardedBarrier()).code;
  assert.match(code, 'var<workgroup> tile: array<f32, 64>;');
  const body = lines(code.slice(code.indexOf('let guard')));
  assert.equal(body.slice(0, 8), [
    'let guard = group_id.x * 64i + local_id.x < n;',
    'if (guard) {',
    'tile[local_id.x] = a[group_id.x * 64i + local_id.x];',
    '}',
    'workgroupBarrier(); // the tile is complete',
    'if (guard) {',
    'out[group_id.x * 64i + local_id.x] = tile[63i - local_id.x];',
    '}',
  ]);
  // no barrier is ever inside an `if`
  let depth = 0;
  for (const l of lines(code)) {
    if (l.startsWith('if (') && l.endsWith('{')) depth++;
    else if (l === '}' && depth > 0) depth--;
    if (l.includes('Barrier()')) assert.is(depth, 0, l);
  }
});

test('a barrier in a loop whose bounds differ between work-items is a LoomError naming the loop', () => {
  const loop: Stmt = {
    kind: 'for',
    iname: 'k',
    lower: int(0),
    upper: lid,
    body: { kind: 'barrier', scope: 'local' },
  };
  const program = kernel([loop], [], { k: 'int32' });
  assert.throws(
    () => generateWgsl(program),
    (e: Error) => e instanceof LoomError && /loop over 'k'/.test(e.message) && /barrier/.test(e.message),
  );
  const uniform = kernel(
    [{ ...loop, upper: variable('m') }],
    [{ name: 'm', dtype: 'int32', kind: 'value', written: false }],
    { k: 'int32', m: 'int32' },
  );
  assert.match(generateWgsl(uniform).code, 'for (var k: i32 = 0i; k <= m; k++) {\n    workgroupBarrier();');
});

test('a folded grid recovers the group ids and idles the groups past the end', () => {
  const code = generateWgsl(guardedBarrier(), { foldedGrid: true }).code;
  assert.match(code, '  group_count: vec3<u32>,');
  assert.match(code, '@builtin(num_workgroups) num_workgroups: vec3<u32>');
  // a 1-D grid: the group's number is its id, no divisions per work-item
  assert.match(code, 'if (group_index >= group_count.x) { return; }');
  assert.match(code, 'let group_id = vec3<i32>(i32(group_index), 0i, 0i);');
  const withAxes = (axes: number) => {
    const p = guardedBarrier();
    const k = p.kernels[0];
    return generateWgsl(
      { kernels: [{ ...k, groupCount: Array.from({ length: axes }, () => E.variable('groups')) }] },
      { foldedGrid: true },
    ).code;
  };
  assert.match(
    withAxes(2),
    'let group_id = vec3<i32>(vec3<u32>(group_index % group_count.x, group_index / group_count.x, 0u));',
  );
  assert.match(withAxes(3), 'if (group_index >= group_count.x * group_count.y * group_count.z) { return; }');
  assert.match(
    withAxes(3),
    'let group_id = vec3<i32>(vec3<u32>(group_index % group_count.x, group_index / group_count.x % group_count.y,',
  );
});

test('a folded grid holds every group, at most the limit along each axis, and few to spare', () => {
  // 2^26 float32 as vec4s in groups of 256: 65536 groups, one more than an axis holds
  assert.equal(foldedSize(65536, 65535), [32768, 2, 1]);
  for (const max of [3, 7, 255, 65535]) {
    for (const total of [
      max + 1,
      2 * max,
      2 * max + 1,
      max * max - 1,
      max * max,
      max * max + 1,
      max * max * max,
      1234567,
    ]) {
      if (total > max ** 3) continue;
      const [x, y, z] = foldedSize(total, max);
      const rows = Math.ceil(total / max);
      assert.ok(
        [x, y, z].every((g) => Number.isInteger(g) && g >= 1 && g <= max),
        `${total} on ${max}: ${x} x ${y} x ${z}`,
      );
      assert.ok(x * y * z >= total, `${total} on ${max}: ${x} x ${y} x ${z} holds them all`);
      assert.ok(x * y * z - total < x * z + rows, `${total} on ${max}: ${x} x ${y} x ${z} idles ${x * y * z - total}`);
    }
  }
});

test('more arrays than storage bindings: the last ones share pools, at offsets from the uniform', () => {
  const names = ['a', 'b', 'c', 'd', 'e'];
  const knl = makeKernel(
    '{ [i]: 0<=i<n }',
    `
    out[i] = a[i] + b[i] + c[i] + d[i] + e[i]
    flags[i] = a[i] > 0
  `,
    [globalArg('flags', { shape: ['n'], dtype: 'bool', isInput: false }), '...'],
  );
  const typed = addDtypes(knl, Object.fromEntries(names.map((n) => [n, 'float32'])));
  const code = generateCode(typed, wgslTarget({ limits: { maxStorageBuffersPerShaderStage: 4 } })).code;
  assert.is((code.match(/var<storage/g) ?? []).length, 4, code);
  assert.match(code, /var<storage, read> pool_read: array<u32>; \/\/ [a-e, ]+: more arrays than storage bindings/);
  assert.match(code, 'var<storage, read_write> pool_read_write: array<u32>; // out: more arrays');
  assert.match(code, 'offset_out: u32,');
  assert.match(code, 'return bitcast<f32>(word);');
});

test('limits: work-group size and workgroup storage are LoomErrors naming the limit', () => {
  const big = kernel([{ kind: 'barrier', scope: 'local' }], [], {}, [16, 16, 2]);
  assert.throws(
    () => generateWgsl(big),
    (e: Error) =>
      e instanceof LoomError && /maxComputeInvocationsPerWorkgroup \(256\)/.test(e.message) && /512/.test(e.message),
  );
  const wide = kernel([], [], {}, [512]);
  assert.throws(
    () => generateWgsl(wide),
    (e: Error) => /maxComputeWorkgroupSizeX \(256\)/.test(e.message),
  );
  const tile = kernel([{ kind: 'declare', name: 'tile', dtype: 'float32', addressSpace: 'local', length: 8192 }], [], {
    tile: 'float32',
  });
  assert.throws(
    () => generateWgsl(tile),
    (e: Error) =>
      /32768 bytes/.test(e.message) &&
      /maxComputeWorkgroupStorageSize \(16384\)/.test(e.message) &&
      /tile/.test(e.message),
  );
  assert.not.throws(() => generateWgsl(tile, { limits: { maxComputeWorkgroupStorageSize: 32768 } }));
});

test('atomic updates: integer add in one instruction, float add by compare-and-swap', () => {
  const body: Stmt[] = [
    {
      kind: 'assign',
      target: subscript('total', [int(0)]),
      value: binary('+', subscript('total', [int(0)]), subscript('a', [globalIndex])),
      dtype: 'float32',
      atomic: true,
      insnId: 'sum',
    },
    {
      kind: 'assign',
      target: subscript('count', [int(0)]),
      value: binary('+', subscript('count', [int(0)]), int(1)),
      dtype: 'int32',
      atomic: true,
      insnId: 'count',
    },
  ];
  const code = generateWgsl(
    kernel(
      body,
      [
        { name: 'a', dtype: 'float32', kind: 'global', written: false },
        { name: 'total', dtype: 'float32', kind: 'global', written: true },
        { name: 'count', dtype: 'int32', kind: 'global', written: true },
      ],
      { a: 'float32', total: 'float32', count: 'int32' },
    ),
  ).code;
  assert.match(code, 'var<storage, read_write> total: array<atomic<u32>>; // float32 bits, updated atomically');
  assert.match(code, 'var<storage, read_write> count: array<atomic<i32>>; // updated atomically');
  assert.match(
    code,
    'let swap = atomicCompareExchangeWeak(&total[0i], old_bits, bitcast<u32>(old_value + a[group_id.x * 64i + local_id.x]));',
  );
  assert.match(code, 'atomicAdd(&count[0i], 1i);');
});

test('a compilation error points at the WGSL line', () => {
  const code = 'fn f() {\n  let active = 1;\n}\n';
  const error = compilationError("kernel 'f'", code, [
    {
      type: 'error',
      message: "'active' is a reserved keyword",
      lineNum: 2,
      linePos: 7,
      offset: 15,
      length: 6,
    } as GPUCompilationMessage,
  ]);
  assert.instance(error, LoomError);
  assert.match(error.message, "'active' is a reserved keyword\n  line 2:   let active = 1;\n                ^^^^^^");
});

test.run();
