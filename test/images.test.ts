/**
 * Image arguments (loopy's ImageArg, `changeArgToImage`, `imageArg`): a 2D and a 3D image read
 * in one kernel on every device, checked against plain JS (OpenCL reads images, WebGPU
 * textures, the CPU and C devices the arrays; CUDA refuses them, saying why); what an image may
 * not be; the limits a device checks at launch; and the printed OpenCL and WGSL (the whole text
 * is pinned in test/golden/features/images.*).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  changeArgToImage,
  generateCode,
  globalArg,
  imageArg,
  imageExtents,
  LoomError,
  makeKernel,
  prioritizeLoops,
  run,
  stringifyKernel,
  targetFacts,
  type DeviceLimits,
  type LaunchArgument,
} from '@loom/core';
import { openclTarget } from '@loom/codegen-opencl';
import { wgslTarget } from '@loom/codegen-wgsl';
import { cudaTarget } from '@loom/codegen-cuda';
import { f32, kernel } from '@loom/dsl';
import { testDevices } from './support/devices.ts';
import { imageKernel, imageReference } from './support/image-kernels.ts';

const throwsLoom = (f: () => unknown, message: RegExp) =>
  assert.throws(f, (e: unknown) => e instanceof LoomError && message.test(e.message));

async function rejectsLoom(f: () => Promise<unknown>, message: RegExp): Promise<void> {
  try {
    await f();
  } catch (e) {
    assert.ok(e instanceof LoomError, `a LoomError, not ${String(e)}`);
    assert.match((e as Error).message, message);
    return;
  }
  assert.unreachable('expected a LoomError');
}

/** Data for `imageKernel` of sizes n, m, p: values that differ along every axis. */
function imageData(n: number, m: number, p: number) {
  const a = Float32Array.from({ length: n * m }, (_, k) => ((k * 7) % 23) - 11.5);
  const b = Int32Array.from({ length: p * n * m }, (_, k) => ((k * 13) % 37) - 18);
  const w = Float32Array.from({ length: m }, (_, j) => 0.25 * j - 3);
  return { a, b, w };
}

test('an image is an argument of kind image; imageArg and changeArgToImage give the same one', () => {
  const knl = imageKernel();
  assert.equal(knl.arg('a')?.kind, 'image');
  assert.equal(knl.arg('b')?.kind, 'image');
  assert.equal(knl.arg('b')?.isOutput, false);
  assert.match(stringifyKernel(knl), /a: type: float32, shape: \(n, m\).* aspace: global image/);
  // changing it again changes nothing
  assert.is(changeArgToImage(knl, 'a'), knl);
});

test('the DSL verb .changeArgToImage gives the kernel the function gives', async () => {
  const built = kernel('{ [i, j]: 0<=i<n and 0<=j<m }', 'out[i, j] = 2*a[i, j]')
    .args({ a: f32('n', 'm'), out: f32.out('n', 'm') })
    .changeArgToImage('a');
  assert.equal(built.kernel.arg('a')?.kind, 'image');
  const plain = kernel('{ [i, j]: 0<=i<n and 0<=j<m }', 'out[i, j] = 2*a[i, j]').args({
    a: f32('n', 'm'),
    out: f32.out('n', 'm'),
  });
  assert.equal(changeArgToImage(plain.kernel, 'a').args, built.kernel.args);
});

test('OpenCL reads images through loopy sampler, WGSL through textureLoad, CUDA refuses them', () => {
  const cl = generateCode(imageKernel(), openclTarget()).code;
  assert.match(cl, 'read_only image2d_t a, read_only image3d_t b, __global float const *__restrict__ w');
  assert.match(
    cl,
    'const sampler_t loopy_sampler = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;',
  );
  // the coordinates are the indices reversed: x is the last, fastest axis
  assert.match(cl, 'read_imagef(a, loopy_sampler, (int2)(16 * gid(0) + lid(0), gid(1))).x');
  assert.match(cl, 'read_imagei(b, loopy_sampler, (int4)(16 * gid(0) + lid(0), gid(1), l, 0)).x');
  const wgsl = generateCode(imageKernel(), wgslTarget()).code;
  assert.match(wgsl, 'var a: texture_2d<f32>;');
  assert.match(wgsl, 'var b: texture_3d<i32>;');
  assert.match(wgsl, 'textureLoad(b, vec3<i32>(16i * group_id.x + local_id.x, group_id.y, l), 0).x');
  throwsLoom(() => generateCode(imageKernel(), cudaTarget()), /cuda: image arguments 'a', 'b': .*texture objects/);
});

test('what an image may not be is a LoomError naming the argument', () => {
  const copy = (dtype: 'float32' | 'float64', shape: string) =>
    makeKernel('{ [i, j]: 0<=i<n and 0<=j<m }', 'out[i, j] = a[i, j]', [globalArg('a', { dtype, shape }), '...']);
  throwsLoom(() => changeArgToImage(copy('float32', 'n, m'), 'out'), /image argument 'out' is written by instruction/);
  throwsLoom(() => changeArgToImage(copy('float64', 'n, m'), 'a'), /'a' has dtype float64; an image holds float32/);
  throwsLoom(
    () => changeArgToImage(makeKernel('{ [i]: 0<=i<n }', 'out[i] = a[i]'), 'a'),
    /'a' has 1 axis; an image has 2 or 3/,
  );
  throwsLoom(() => changeArgToImage(copy('float32', 'n, m'), 'n'), /'n' is a value argument/);
  throwsLoom(() => changeArgToImage(copy('float32', 'n, m'), 'nope'), /no argument 'nope'/);
  throwsLoom(() => imageArg('a', { shape: 'n, m', dimensions: 3 }), /the shape has 2 axes, but dimensions says 3/);
  throwsLoom(() => imageArg('a', { dimensions: 4 as 3 }), /dimensions is 2 or 3, not 4/);
  throwsLoom(() => imageArg('a', { dimensions: 2 }), /dimensions checks the shape, which is not given/);
  throwsLoom(() => imageArg('a', { shap: 'n' } as never), /unknown option 'shap'/);
  // an image written by the kernel is refused when the kernel is generated, whatever its spelling
  const written = makeKernel('{ [i, j]: 0<=i<n and 0<=j<m }', 'a[i, j] = 1', [
    imageArg('a', { dtype: 'float32', shape: 'n, m' }),
    '...',
  ]);
  throwsLoom(() => generateCode(written, openclTarget()), /image argument 'a' is written by instruction/);
});

test('imageExtents: width first, checked against the device limits, naming the argument', () => {
  const generated = generateCode(imageKernel(), openclTarget());
  const device = generated.kernels[0];
  const args: LaunchArgument[] = device.parameters.map((p) =>
    p.kind === 'value'
      ? { kind: 'value', dtype: 'int32', value: { m: 70000, n: 2, p: 3 }[p.name as 'm' | 'n' | 'p'] }
      : { kind: 'buffer', buffer: { byteLength: 4 } },
  );
  const index = (name: string) => device.parameters.findIndex((p) => p.name === name);
  const limits = (sizes?: DeviceLimits['maxImageSizes']): DeviceLimits => ({
    maxWorkGroupSize: 1024,
    maxWorkGroupSizes: [1024, 1024, 64],
    maxLocalMemoryBytes: 32768,
    maxPrivateMemoryBytes: 8192,
    maxBufferBytes: 2 ** 31,
    ...(sizes ? { maxImageSizes: sizes } : {}),
  });
  const big = limits({ 2: [100000, 100000], 3: [100000, 100000, 100000] });
  assert.equal(imageExtents(device, args, index('a'), big, 'test'), [70000, 2]);
  assert.equal(imageExtents(device, args, index('b'), big, 'test'), [70000, 2, 3]);
  const small = limits({ 2: [16384, 16384], 3: [2048, 2048, 2048] });
  throwsLoom(
    () => imageExtents(device, args, index('a'), small, 'test'),
    /image argument 'a' of shape \(2, 70000\) is 70000 width, past test's largest 2D image \(16384 x 16384\)/,
  );
  throwsLoom(() => imageExtents(device, args, index('b'), limits(), 'test'), /test has no images/);
});

for (const device of testDevices()) {
  const images = targetFacts(device.target).images;

  test(`${device.name}: a 2D and a 3D image read in one kernel, as plain JS computes`, async () => {
    // 37 columns: rows of 148 bytes (WebGPU copies them one by one), and a partial work-group;
    // 64 columns: rows of 256 bytes, one copy
    for (const [n, m, p] of [
      [5, 37, 3],
      [3, 64, 2],
    ] as const) {
      const data = imageData(n, m, p);
      if (typeof images === 'object') {
        await rejectsLoom(() => run(imageKernel(), device, { ...data, n, m, p }), /texture objects/);
        return;
      }
      const { out } = await run(imageKernel(), device, { ...data, n, m, p });
      assert.equal(Array.from(out as Float32Array), Array.from(imageReference(data.a, data.b, data.w, [n, m, p])));
      // again: the image is made anew from data written since
      const again = { ...data, a: data.a.map((x) => -x) };
      const second = await run(imageKernel(), device, { ...again, n, m, p });
      assert.equal(
        Array.from(second.out as Float32Array),
        Array.from(imageReference(again.a, again.b, again.w, [n, m, p])),
      );
    }
  });

  test(`${device.name}: an empty image (n = 0) runs no read, as an empty array`, async () => {
    const data = imageData(0, 5, 2);
    if (typeof images === 'object') {
      await rejectsLoom(() => run(imageKernel(), device, { ...data, n: 0, m: 5, p: 2 }), /texture objects/);
      return;
    }
    const { out } = await run(imageKernel(), device, { ...data, n: 0, m: 5, p: 2 });
    assert.is((out as Float32Array).length, 0);
  });

  test(`${device.name}: a uint32 image`, async () => {
    const knl = changeArgToImage(
      prioritizeLoops(
        makeKernel('{ [i, j]: 0<=i<n and 0<=j<m }', 'out[i, j] = c[i, j] + c[n - 1 - i, m - 1 - j]', [
          globalArg('c', { dtype: 'uint32', shape: 'n, m' }),
          '...',
        ]),
        'i,j',
      ),
      'c',
    );
    const [n, m] = [4, 6];
    const c = Uint32Array.from({ length: n * m }, (_, k) => 4000000000 - k * 1000);
    const expected = Array.from({ length: n * m }, (_, k) => {
      const [i, j] = [Math.floor(k / m), k % m];
      return (c[i * m + j] + c[(n - 1 - i) * m + (m - 1 - j)]) >>> 0;
    });
    if (typeof images === 'object') {
      await rejectsLoom(() => run(knl, device, { c, n, m }), /texture objects/);
      return;
    }
    const { out } = await run(knl, device, { c, n, m });
    assert.equal(Array.from(out as Uint32Array), expected);
  });

  if (images === 'native')
    test(`${device.name}: an image past the device's largest is a LoomError at launch naming it`, async () => {
      const widest = device.limits.maxImageSizes![3][0];
      const knl = changeArgToImage(
        prioritizeLoops(
          makeKernel('{ [i, j, k]: 0<=i<1 and 0<=j<1 and 0<=k<m }', 'out[i, j, k] = 2*a[i, j, k]', [
            globalArg('a', { dtype: 'float32', shape: '1, 1, m' }),
            '...',
          ]),
          'i,j,k',
        ),
        'a',
      );
      const m = widest + 1;
      await rejectsLoom(
        () => run(knl, device, { a: new Float32Array(m), m }),
        new RegExp(`image argument 'a' of shape \\(1, 1, ${m}\\) is ${m} width, past .*largest 3D image`),
      );
    });
}

test.run();
