/**
 * Vector types: arrays with a `vec` axis (arguments and temporaries), their lanes read
 * one by one (component access), and loops over `vec` inames, which become vector code
 * on OpenCL (`float4`) and are unrolled elsewhere, as loopy falls back to unrolling.
 * Every kernel runs on every device against plain JavaScript.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  assume,
  DeviceArray,
  generateCode,
  globalArg,
  KernelCheckError,
  LoomError,
  setTemporaryAddressSpace,
  makeKernel,
  parseExpression,
  prepareLaunch,
  run,
  splitArrayAxis,
  splitIname,
  tagArrayAxes,
  tagInames,
  valueArg,
  type LoopKernel,
} from '@loom/core';
import { openclTarget } from '@loom/codegen-opencl';
import { wgslTarget } from '@loom/codegen-wgsl';
import { jsTarget } from '@loom/codegen-js';
import { f32, f32x4, i32x8, kernel } from '@loom/dsl';
import { assertClose, randomFloat32, supportsDType, testDevices } from './support/devices.ts';

/** `out[i, k] = body` over n vectors of `lanes` lanes, `k` the lane iname tagged `vec`. */
function laneKernel(
  body: string,
  lanes: number,
  arrays = 'a,out',
  extra = '',
  dtype: 'float32' | 'float64' = 'float32',
): LoopKernel {
  let knl = makeKernel(`{ [i,k]: 0<=i<n and 0<=k<${lanes} }`, `${extra}out[i, k] = ${body}`);
  knl = addDtypes(knl, { a: dtype });
  knl = tagArrayAxes(knl, arrays, 'c,vec');
  return tagInames(knl, { k: 'vec' });
}

const clCode = (knl: LoopKernel) => generateCode(knl, openclTarget()).code;

test('a vec loop over vec axes is one vector statement in OpenCL', () => {
  const code = clCode(laneKernel('2*a[i, k] + 1', 4));
  assert.match(code, '__global float4 const *__restrict__ a');
  assert.match(code, 'out[i] = 2.0f * a[i] + 1.0f;');
  assert.not.match(code, 'for (int k');
});

/** out[i, k] = 2*a[i, k] for the first `m` floats of 1025 float4s, i in work-groups of 16 (the last one past the end). */
function edgeKernel(m: number): LoopKernel {
  let knl = makeKernel(`{ [i,k]: 0<=i<1025 and 0<=k<4 and 4*i + k < ${m} }`, 'out[i, k] = 2*a[i, k]');
  knl = tagArrayAxes(addDtypes(knl, { a: 'float32' }), 'a,out', 'c,vec');
  return splitIname(tagInames(knl, { k: 'vec' }), 'i', 16, { outerTag: 'g.0', innerTag: 'l.0' });
}

test('a guard the same for every lane of a vector (4i + k < 4100: whole vectors) keeps the vector statement; one that differs per lane goes lane by lane', () => {
  const whole = clCode(edgeKernel(4100));
  assert.match(
    whole,
    /if \(16 \* gid\(0\) <= -lid\(0\) \+ 1024\)\n\s*out\[16 \* gid\(0\) \+ lid\(0\)\] = 2\.0f \* a\[16 \* gid\(0\) \+ lid\(0\)\];/,
  );
  const partial = clCode(edgeKernel(4098));
  assert.match(
    partial,
    'if (1 <= -64 * gid(0) - 4 * lid(0) + 4097)\n    ((__global float *) out)[64 * gid(0) + 4 * lid(0) + 1] = 2.0f * a[16 * gid(0) + lid(0)].s1;',
  );
  assert.not.match(partial, /out\[16 \* gid\(0\) \+ lid\(0\)\] = /);
});

test('a scalar meets a vector: OpenCL broadcasts it', () => {
  const knl = addDtypes(laneKernel('a[i, k] * s - i', 4), { s: 'float32' });
  assert.match(clCode(knl), 'out[i] = a[i] * s - (float) i;');
});

test('a temporary written in a vec loop becomes a vector (loopy privatizes over vec inames)', () => {
  const code = clCode(laneKernel('t + a[i, 3 - k]', 4, 'a,out', '<> t = 3*a[i, k]\n'));
  // each instruction is vector code or not on its own: t is written whole, then read lane by lane
  assert.match(code, 'float4 t[1];');
  assert.match(code, 't[0] = 3.0f * a[i];');
  assert.match(code, '((__global float *) out)[4 * i] = t[0].s0 + a[i].s3;');
  const vector = clCode(laneKernel('t*t', 4, 'a,out', '<> t = 3*a[i, k]\n'));
  assert.match(vector, 't[0] = 3.0f * a[i];');
  assert.match(vector, 'out[i] = t[0] * t[0];');
});

test('a vector conditional is a select; a call on a vector unrolls the loop', () => {
  const select = clCode(laneKernel('a[i, k]*3 if a[i, k] < 0 else a[i, k]*0.5', 4));
  assert.match(select, 'out[i] = select((float4)(a[i] * 0.5f), (float4)(a[i] * 3.0f), a[i] < 0.0f);');
  const call = clCode(laneKernel('sin(a[i, k])', 4));
  assert.match(call, '((__global float *) out)[4 * i + 2] = sin(a[i].s2);');
});

test('integer vectors are moved and selected whole, their arithmetic is unrolled', () => {
  const ints = (body: string) =>
    tagInames(
      makeKernel('{ [i,k]: 0<=i<n and 0<=k<4 }', `out[i, k] = ${body}`, [
        globalArg('a', { dtype: 'int4', shape: ['n'] }),
        globalArg('out', { dtype: 'int4', shape: ['n'] }),
        '...',
      ]),
      { k: 'vec' },
    );
  assert.match(clCode(ints('a[i, k]')), 'out[i] = a[i];');
  assert.match(clCode(ints('a[i, k] if a[i, k] > 0 else 0')), 'out[i] = select((int4)(0), (int4)(a[i]), a[i] > 0);');
  assert.match(clCode(ints('a[i, k] + 1')), '((__global int *) out)[4 * i + 3] =');
});

test('the lane used as a value unrolls the loop (loopy: unvectorizable)', () => {
  const code = clCode(laneKernel('a[i, k] + k', 2));
  assert.match(code, '((__global float *) out)[2 * i + 1] = a[i].s1 + 1.0f;');
});

test('three lanes: packed elements, read and written with vload3/vstore3', () => {
  const code = clCode(laneKernel('2*a[i, k]', 3));
  assert.match(code, '__global float const *__restrict__ a');
  assert.match(code, 'vstore3(2.0f * vload3(i, a), i, out);');
  // a single lane of a packed array is an element
  assert.match(clCode(laneKernel('a[i, 2]', 3)), 'a[3 * i + 2]');
});

const wgslCode = (knl: LoopKernel) => generateCode(knl, wgslTarget()).code;

test('WGSL: vec axes of 2 and 4 lanes of 32-bit dtypes are arrays of vectors; a vec loop over them is one vector statement', () => {
  const code = wgslCode(laneKernel('2*a[i, k] + 1', 4));
  assert.match(code, 'var<storage, read> a: array<vec4<f32>>;');
  assert.match(code, 'var<storage, read_write> out: array<vec4<f32>>;');
  assert.match(code, 'out[i] = 2.0 * a[i] + 1.0;');
  assert.not.match(code, 'for (var k');
  const two = wgslCode(addDtypes(laneKernel('a[i, k] * s - i', 2), { s: 'float32' }));
  assert.match(two, 'array<vec2<f32>>');
  assert.match(two, 'out[i] = a[i] * s - f32(i);');
  // a vector compared with a scalar: WGSL compares vectors with vectors, and selects between vectors
  assert.match(
    wgslCode(laneKernel('a[i, k]*3 if a[i, k] < 0 else 1', 4)),
    'out[i] = select(vec4<f32>(1.0), a[i] * 3.0, a[i] < vec4<f32>(0.0));',
  );
  // a value the same in every lane is spread over them
  const fill = tagInames(
    tagArrayAxes(
      addDtypes(makeKernel('{ [i,k]: 0<=i<n and 0<=k<4 }', 'out[i, k] = s'), { s: 'float32' }),
      'out',
      'c,vec',
    ),
    { k: 'vec' },
  );
  assert.match(wgslCode(fill), 'out[i] = vec4<f32>(s);');
});

test('WGSL: 3, 8 and 16 lanes, and narrow dtypes, stay arrays of elements, the vec loop unrolled', () => {
  for (const lanes of [3, 8, 16]) {
    const code = wgslCode(laneKernel('2*a[i, k]', lanes));
    assert.match(code, 'var<storage, read> a: array<f32>;', `${lanes}`);
    assert.match(code, `out[${lanes}i * i + 1i] = 2.0 * a[${lanes}i * i + 1i];`, `${lanes}`);
  }
  const bytes = tagInames(
    makeKernel('{ [i,k]: 0<=i<n and 0<=k<4 }', 'out[i, k] = a[i, k]', [
      globalArg('a', { dtype: 'int8', shape: ['n', 4] }),
      globalArg('out', { dtype: 'int8', shape: ['n', 4] }),
      '...',
    ]),
    { k: 'vec' },
  );
  const narrow = wgslCode(tagArrayAxes(bytes, 'a,out', 'c,vec'));
  assert.match(narrow, 'var<storage, read> a: array<u32>;');
  assert.not.match(narrow, 'vec4');
});

test('WGSL: components are .x .y .z .w; a private temporary with a vec axis is a vector; what has no vector form goes lane by lane', () => {
  assert.match(wgslCode(componentKernel()), 'out[i] = a[i].x + 2.0 * a[i].y + 3.0 * a[i].z + 4.0 * a[i].w;');
  const temporary = wgslCode(laneKernel('t + a[i, 3 - k]', 4, 'a,out', '<> t = 3*a[i, k]\n'));
  assert.match(temporary, 'var t: array<vec4<f32>, 1>;');
  assert.match(temporary, 't[0i] = 3.0 * a[i];');
  assert.match(temporary, 'out[i].y = t[0i].y + a[i].z;');
  // a NaN test on a vector: the lanes one by one
  const nan = wgslCode(laneKernel('0 if a[i, k] != a[i, k] else a[i, k]', 4));
  assert.match(nan, 'out[i].w = select(a[i].w, 0.0, is_nan_f32(a[i].w));');
  // int4 vectors are moved and selected whole; their arithmetic (which wraps) goes lane by lane
  const ints = (body: string) =>
    wgslCode(
      tagInames(
        makeKernel('{ [i,k]: 0<=i<n and 0<=k<4 }', `out[i, k] = ${body}`, [
          globalArg('a', { dtype: 'int4', shape: ['n'] }),
          globalArg('out', { dtype: 'int4', shape: ['n'] }),
          '...',
        ]),
        {
          k: 'vec',
        },
      ),
    );
  assert.match(ints('a[i, k] if a[i, k] > 0 else 0'), 'out[i] = select(vec4<i32>(0i), a[i], a[i] > vec4<i32>(0i));');
  assert.match(ints('a[i, k] + 1'), 'out[i].z = a[i].z + 1i;');
});

test('targets without vector types unroll a vec loop', () => {
  const code = generateCode(laneKernel('2*a[i, k]', 4), jsTarget()).code;
  assert.not.match(code, 'for (let k');
  assert.match(code, 'out[Math.imul(4, i) + 3] =');
});

test('a vec axis needs the lane count of a vector type', () => {
  const knl = laneKernel('a[i, k]', 5);
  assert.throws(
    () => generateCode(knl, jsTarget()),
    (e: unknown) =>
      e instanceof LoomError && /'(a|out)': a 'vec' axis needs 2, 3, 4, 8, 16 lanes .*not 5/.test((e as Error).message),
  );
});

/** `a` of n `float4`s, `out` of n floats: a dot product with (1, 2, 3, 4) by components. */
function componentKernel(): LoopKernel {
  return makeKernel('{ [i]: 0<=i<n }', 'out[i] = a[i].x + 2*a[i].y + 3*a[i].s2 + 4*a[i].w', [
    globalArg('a', { dtype: 'float4', shape: ['n'] }),
    globalArg('out', { dtype: 'float32', shape: ['n'] }),
    '...',
  ]);
}

test('a vector dtype is its lanes as a last vec axis; components are its lanes', () => {
  const knl = componentKernel();
  assert.equal(knl.arg('a')!.dtype, 'float32');
  assert.equal(knl.arg('a')!.dimTags?.at(-1), { kind: 'vec' });
  assert.match(clCode(knl), '__global float4 const *__restrict__ a');
  assert.match(clCode(knl), 'out[i] = a[i].s0 + 2.0f * a[i].s1 + 3.0f * a[i].s2 + 4.0f * a[i].s3;');
  // .x .y .z .w and .s0 ... .sf, on array elements and on names
  assert.equal(parseExpression('a[i, j].w + v.sa'), parseExpression('a[i, j, 3] + v[10]'));
});

test('a reduction over a vec iname is refused (its lanes run at once)', () => {
  const knl = tagInames(
    tagArrayAxes(makeKernel('{ [i,k]: 0<=i<n and 0<=k<4 }', 'out[i] = sum(k, a[i, k])'), 'a', 'c,vec'),
    { k: 'vec' },
  );
  assert.throws(
    () => generateCode(addDtypes(knl, { a: 'float32' }), jsTarget()),
    (e: unknown) => e instanceof KernelCheckError && /reduces over the vec iname\(s\) 'k'/.test((e as Error).message),
  );
});

test('vector dtypes and components: the errors', () => {
  const refused = (f: () => unknown, pattern: RegExp) =>
    assert.throws(f, (e: unknown) => e instanceof LoomError && pattern.test((e as Error).message));
  refused(
    () => makeKernel('{ [i]: 0<=i<n }', 'out[i] = a[i].x', [globalArg('a', { dtype: 'float4' }), '...']),
    /vector dtype float4: give its shape/,
  );
  // a float4 value argument is a vector: stored into a scalar array it is refused
  refused(
    () =>
      makeKernel('{ [i]: 0<=i<n }', 'out[i] = s', [
        valueArg('s', 'float4' as never),
        globalArg('out', { dtype: 'float32', shape: ['n'] }),
        '...',
      ]),
    /stores a vector of 4 lanes into 'out\[i\]', which holds scalars/,
  );
  refused(
    () =>
      makeKernel('{ [i]: 0<=i<n }', 'out[i] = a[i].x', [
        globalArg('a', { dtype: 'float5' as never, shape: ['n'] }),
        '...',
      ]),
    /unknown dtype 'float5'/,
  );
  // numpy's names win: int8 is the dtype, not eight ints
  assert.equal(
    makeKernel('{ [i]: 0<=i<n }', 'out[i] = a[i]', [globalArg('a', { dtype: 'int8', shape: ['n'] }), '...']).arg('a')!
      .shape!.length,
    1,
  );
  refused(() => parseExpression('f(x).x'), /unexpected character '\.'/);
  refused(() => parseExpression('a.b'), /a vector component is one of \.x \.y \.z \.w \.s0/);
  refused(
    () => parseExpression('a[[k]].x'),
    /a component \('\.x'\) follows an array element or a vector name, not a linear subscript/,
  );
});

/** n vectors of `lanes` floats: out[i, k] computed per element by `f(a, i, k)`. */
function reference(
  a: Float32Array,
  lanes: number,
  f: (x: (i: number, k: number) => number, i: number, k: number) => number,
): number[] {
  const at = (i: number, k: number) => a[lanes * i + k];
  return Array.from(a, (_, j) => Math.fround(f(at, Math.floor(j / lanes), j % lanes)));
}

for (const device of testDevices()) {
  for (const lanes of [2, 3, 4, 8, 16]) {
    test(`${device.name}: vector arithmetic with a scalar, ${lanes} lanes`, async () => {
      const a = randomFloat32(7 * lanes, lanes);
      const knl = addDtypes(laneKernel('a[i, k] * s - 1.5', lanes), { s: 'float32' });
      const { out } = await run(knl, device, { a, s: 2.5 });
      assertClose(
        out as Float32Array,
        reference(a, lanes, (x, i, k) => Math.fround(x(i, k) * 2.5) - 1.5),
        'out',
      );
    });
  }

  test(`${device.name}: a vector statement under a guard the same for every lane, and lanes guarded one by one`, async () => {
    const a = randomFloat32(4100, 5);
    for (const m of [4100, 4098]) {
      const { out } = await run(edgeKernel(m), device, { a });
      assert.equal(
        Array.from(out as Float32Array),
        Array.from(a, (x, j) => (j < m ? 2 * x : 0)),
        `m = ${m}`,
      );
    }
  });

  test(`${device.name}: vector temporaries, component access and conditionals`, async () => {
    const a = randomFloat32(40, 3);
    const cases: [LoopKernel, (x: (i: number, k: number) => number, i: number, k: number) => number][] = [
      [
        laneKernel('t + a[i, 3 - k]', 4, 'a,out', '<> t = 3*a[i, k]\n'),
        (x, i, k) => Math.fround(3 * x(i, k)) + x(i, 3 - k),
      ],
      [laneKernel('t*t', 4, 'a,out', '<> t = 3*a[i, k]\n'), (x, i, k) => Math.fround(3 * x(i, k)) ** 2],
      [
        laneKernel('a[i, k]*3 if a[i, k] < 0 else a[i, k]*0.5', 4),
        (x, i, k) => (x(i, k) < 0 ? Math.fround(x(i, k) * 3) : x(i, k) * 0.5),
      ],
      [laneKernel('a[i, 1] - a[i, k]', 4), (x, i, k) => x(i, 1) - x(i, k)],
      [laneKernel('a[i, k] + k', 4), (x, i, k) => x(i, k) + k],
    ];
    for (const [knl, f] of cases) {
      const { out } = await run(knl, device, { a });
      assertClose(out as Float32Array, reference(a, 4, f), 'out', 1e-6, 1e-6);
    }
  });

  test(`${device.name}: a float4 argument is a Float32Array of 4n, read by components`, async () => {
    const a = randomFloat32(4 * 9, 7);
    const { out } = await run(componentKernel(), device, { a });
    const expected = Array.from({ length: 9 }, (_, i) => {
      const [x, y, z, w] = a.subarray(4 * i, 4 * i + 4);
      return Math.fround(Math.fround(Math.fround(x + Math.fround(2 * y)) + Math.fround(3 * z)) + Math.fround(4 * w));
    });
    assertClose(out as Float32Array, expected, 'out');
  });

  test(`${device.name}: the DSL's f32x4: n float4s are a Float32Array of 4n`, async () => {
    const scale = kernel('{ [i,k]: 0<=i<n and 0<=k<4 }', 'out[i, k] = s*a[i, k] + a[i].w')
      .args({ a: f32x4('n'), out: f32x4.out('n'), s: f32.value() })
      .tag({ k: 'vec' });
    const a = randomFloat32(4 * 5, 2);
    const { out } = await scale.run(device, { a, s: 3 });
    assertClose(
      out,
      reference(a, 4, (x, i, k) => Math.fround(3 * x(i, k)) + x(i, 3)),
      'out',
    );
  });

  test(`${device.name}: prepareLaunch takes a float4 array as a device array of 4n float32s`, async () => {
    const knl = tagInames(
      makeKernel('{ [i,k]: 0<=i<n and 0<=k<4 }', 'out[i, k] = out[i, k] + a[i, k]', [
        globalArg('a', { dtype: 'float4', shape: ['n'] }),
        globalArg('out', { dtype: 'float4', shape: ['n'] }),
        '...',
      ]),
      { k: 'vec' },
    );
    const a = randomFloat32(4 * 6, 11);
    // a device array has a shape: n vectors of 4 lanes
    const da = await DeviceArray.from(device, a, 'float32', [6, 4]);
    const dout = await DeviceArray.from(device, new Float32Array(24), 'float32', [6, 4]);
    const prepared = await prepareLaunch(knl, device, { a: da, out: dout });
    await prepared.launch();
    await prepared.launch();
    assert.equal(
      Array.from((await dout.toHost()) as Float32Array),
      Array.from(a, (x) => Math.fround(x + x)),
    );
    prepared.release();
    da.release();
    dout.release();
  });

  test(`${device.name}: the DSL's i32x8 (OpenCL's int8, which numpy's int8 names otherwise)`, async () => {
    const knl = kernel('{ [i,k]: 0<=i<n and 0<=k<8 }', 'out[i, k] = a[i, k] + a[i].s7')
      .args({ a: i32x8('n'), out: i32x8.out('n') })
      .tag({ k: 'vec' });
    assert.match(clCode(knl.kernel), '__global int8 const *__restrict__ a');
    const a = Int32Array.from({ length: 24 }, (_, j) => j * 3 - 30);
    const { out } = await knl.run(device, { a });
    assert.equal(
      Array.from(out),
      Array.from(a, (x, j) => x + a[j - (j % 8) + 7]),
    );
  });

  test(`${device.name}: integer vectors moved, selected and added`, async () => {
    const a = Int32Array.from({ length: 20 }, (_, j) => ((j * 37) % 23) - 11);
    for (const [body, f] of [
      ['a[i, k]', (x: number) => x],
      ['a[i, k] if a[i, k] > 0 else 0', (x: number) => Math.max(x, 0)],
      ['a[i, k] + 1', (x: number) => x + 1],
    ] as const) {
      const knl = tagInames(
        makeKernel('{ [i,k]: 0<=i<n and 0<=k<4 }', `out[i, k] = ${body}`, [
          globalArg('a', { dtype: 'int4', shape: ['n'] }),
          globalArg('out', { dtype: 'int4', shape: ['n'] }),
          '...',
        ]),
        { k: 'vec' },
      );
      assert.equal(Array.from((await run(knl, device, { a })).out as Int32Array), Array.from(a, f), body);
    }
  });

  test(`${device.name}: a vec axis first: lane k of vector i is at 4*i + k (loopy's layout)`, async () => {
    const knl = tagArrayAxes(
      addDtypes(makeKernel('{ [k,i]: 0<=k<4 and 0<=i<n }', 'out[k, i] = 10*k + a[k, i]'), { a: 'float32' }),
      'a,out',
      'vec,c',
    );
    const a = Float32Array.from({ length: 12 }, (_, j) => j);
    const { out } = await run(knl, device, { a, n: 3 });
    assert.equal(
      Array.from(out as Float32Array),
      Array.from(a, (x, j) => 10 * (j % 4) + x),
    );
  });

  test(`${device.name}: int4 arguments and a vec iname`, async () => {
    let knl = makeKernel('{ [i,k]: 0<=i<n and 0<=k<4 }', 'out[i, k] = a[i, 3 - k]', [
      globalArg('a', { dtype: 'int4', shape: ['n'] }),
      globalArg('out', { dtype: 'int4', shape: ['n'] }),
      '...',
    ]);
    knl = tagInames(knl, { k: 'vec' });
    const a = Int32Array.from({ length: 12 }, (_, j) => j * 7 - 20);
    const { out } = await run(knl, device, { a });
    assert.equal(
      Array.from(out as Int32Array),
      Array.from(a, (_, j) => a[j - (j % 4) + 3 - (j % 4)]),
    );
  });

  test(`${device.name}: vector code under a parallel iname, and in local and global temporaries`, async () => {
    const a = randomFloat32(32, 13);
    const kernels = (insns: string, transform: (k: LoopKernel) => LoopKernel): [LoopKernel, LoopKernel] => {
      const plain = makeKernel('{ [i,k]: 0<=i<8 and 0<=k<4 }', insns, [
        globalArg('a', { dtype: 'float32', shape: [8, 4] }),
        globalArg('out', { dtype: 'float32', shape: [8, 4] }),
        '...',
      ]);
      return [plain, tagInames(transform(tagArrayAxes(plain, 'a,out', 'c,vec')), { k: 'vec' })];
    };
    const pairs = [
      kernels('out[i, k] = a[i, k] * a[i, k]', (k) => tagInames(k, { i: 'l.0' })),
      kernels('<> t[i, k] = 2*a[i, k]\nout[i, k] = t[i, k] + 1', (k) =>
        setTemporaryAddressSpace(tagArrayAxes(k, 't', 'c,vec'), 't', 'local'),
      ),
      kernels('<> t[i, k] = 2*a[i, k]\nout[i, k] = t[i, k] + 1', (k) =>
        setTemporaryAddressSpace(tagArrayAxes(k, 't', 'c,vec'), 't', 'global'),
      ),
    ];
    assert.match(clCode(pairs[0][1]), 'out[lid(0)] = a[lid(0)] * a[lid(0)];');
    assert.match(clCode(pairs[1][1]), '__local float4 t[8];');
    for (const [plain, vector] of pairs) {
      const expected = (await run(plain, device, { a })).out as Float32Array;
      assert.equal(Array.from((await run(vector, device, { a })).out as Float32Array), Array.from(expected));
    }
  });

  test(`${device.name}: a lane chosen at run time, a value spread over the lanes, a NaN test on a vector`, async () => {
    const a = randomFloat32(4 * 6, 17);
    const shaped = makeKernel('{ [i,k]: 0<=i<n and 0<=k<4 }', 'out[i, k] = a[i, s] + a[i, k]', [
      globalArg('a', { dtype: 'float32', shape: ['n', 4] }),
      globalArg('out', { dtype: 'float32', shape: ['n', 4] }),
      valueArg('s', 'int32'),
      '...',
    ]);
    const picked = tagInames(tagArrayAxes(shaped, 'a,out', 'c,vec'), { k: 'vec' });
    assertClose(
      (await run(picked, device, { a, s: 2 })).out as Float32Array,
      reference(a, 4, (x, i, k) => x(i, 2) + x(i, k)),
      'a[i, s]',
    );
    const fill = tagInames(
      tagArrayAxes(
        addDtypes(makeKernel('{ [i,k]: 0<=i<n and 0<=k<2 }', 'out[i, k] = s'), { s: 'float32' }),
        'out',
        'c,vec',
      ),
      { k: 'vec' },
    );
    assert.equal(
      Array.from((await run(fill, device, { s: 1.5, n: 3 })).out as Float32Array),
      [1.5, 1.5, 1.5, 1.5, 1.5, 1.5],
    );
    const nan = laneKernel('0 if a[i, k] != a[i, k] else a[i, k]', 4);
    const holes = Float32Array.from(a, (x, j) => (j % 5 === 0 ? Number.NaN : x));
    assert.equal(
      Array.from((await run(nan, device, { a: holes })).out as Float32Array),
      Array.from(holes, (x) => (Number.isNaN(x) ? 0 : x)),
    );
  });

  test(`${device.name}: more vec arrays than storage bindings (WebGPU pools the last ones, read as elements)`, async () => {
    const names = Array.from({ length: 10 }, (_, j) => `a${j}`);
    let knl = makeKernel('{ [i,k]: 0<=i<n and 0<=k<4 }', `out[i, k] = ${names.map((a) => `${a}[i, k]`).join(' + ')}`);
    knl = addDtypes(knl, Object.fromEntries(names.map((a) => [a, 'float32' as const])));
    knl = tagInames(tagArrayAxes(knl, [...names, 'out'].join(','), 'c,vec'), { k: 'vec' });
    const args = Object.fromEntries(names.map((a, j) => [a, Float32Array.from({ length: 12 }, (_, e) => e * (j + 1))]));
    const { out } = await run(knl, device, args);
    assert.equal(
      Array.from(out as Float32Array),
      Array.from({ length: 12 }, (_, e) => names.reduce((sum, _a, j) => Math.fround(sum + e * (j + 1)), 0)),
    );
  });

  test(`${device.name}: float64 vectors`, async () => {
    if (!supportsDType(device, 'float64')) {
      console.log(`  (${device.name} has no float64: skipped)`);
      return;
    }
    const a = Float64Array.from(randomFloat32(16, 5), (x) => x / 3);
    const knl = laneKernel('2*a[i, k] + 1', 4, 'a,out', '', 'float64');
    const { out } = await run(knl, device, { a });
    assert.equal(
      Array.from(out as Float64Array),
      Array.from(a, (x) => 2 * x + 1),
    );
  });

  test(`${device.name}: a split iname over a split array axis (loopy's test_vectorize)`, async () => {
    let knl = makeKernel('{ [i]: 0<=i<n }', '<> temp = 2*b[i]\na[i] = temp');
    knl = addDtypes(knl, { b: 'float32' });
    knl = splitArrayAxis(knl, 'a,b', 0, 4);
    knl = splitIname(knl, 'i', 4);
    knl = tagArrayAxes(knl, 'a,b', 'c,vec');
    knl = assume(tagInames(knl, { i_inner: 'vec' }), 'n mod 4 = 0 and n > 0');
    assert.match(clCode(knl), 'a[i_outer] = temp[0];');
    const b = randomFloat32(32, 9);
    const { a } = await run(knl, device, { b, n: 32 });
    assert.equal(
      Array.from(a as Float32Array),
      Array.from(b, (x) => 2 * x),
    );
  });
}

test.run();
