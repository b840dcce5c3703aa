/**
 * Ports of loopy's test/test_apps.py (the kernels its transformation tests build), run on
 * every test device against the same computation in plain JavaScript.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addAndInferDtypes,
  addPrefetch,
  assume,
  extractSubst,
  fixParameters,
  generateCode,
  globalArg,
  LoomError,
  makeKernel,
  precompute,
  prioritizeLoops,
  run,
  splitIname,
  tagInames,
  type LoopKernel,
} from '@loom/core';
import { openclTarget } from '@loom/codegen-opencl';
import { assertClose, randomFloat32, testDevices } from '../support/devices.ts';

/** An iname's tag as loopy prints it for a local axis (`l.1`), else `for`. */
function localAxis(knl: LoopKernel, iname: string): string {
  const tag = knl.inameTags.get(iname);
  return tag?.kind === 'local' ? `l.${tag.axis}` : (tag?.kind ?? 'for');
}

const range = (n: number, f: (k: number) => number) => Float32Array.from({ length: n }, (_, k) => f(k));

function stencil(n: number): LoopKernel {
  return makeKernel(
    `{[i,j]: 0<= i,j < ${n}}`,
    [
      'a_offset(ii, jj) := a[ii+1, jj+1]',
      'z[i,j] = -2*a_offset(i,j) + a_offset(i,j-1) + a_offset(i,j+1) + a_offset(i-1,j) + a_offset(i+1,j)',
    ],
    [
      globalArg('a', { dtype: 'float32', shape: [n + 2, n + 2] }),
      globalArg('z', { dtype: 'float32', shape: [n + 2, n + 2] }),
    ],
  );
}

for (const device of testDevices()) {
  test(`${device.name}: test_stencil`, async () => {
    // loopy runs n = 256; its comment: n = 32 is a corner case of the temporary's size
    for (const n of [32, 40]) {
      let knl = stencil(n);
      knl = splitIname(knl, 'i', 16, { outerTag: 'g.1', innerTag: 'l.1' });
      knl = splitIname(knl, 'j', 16, { outerTag: 'g.0', innerTag: 'l.0' });
      // l.auto fits the 18-value fetch axes to the 16-wide work-group by splitting them
      knl = addPrefetch(knl, 'a', ['i_inner', 'j_inner'], { fetchBoundingBox: true, defaultTag: 'l.auto' });
      knl = prioritizeLoops(knl, ['a_dim_0_outer', 'a_dim_1_outer']);
      assert.equal(
        ['a_dim_0_outer', 'a_dim_0_inner', 'a_dim_1_outer', 'a_dim_1_inner'].map((n) => localAxis(knl, n)),
        ['for', 'l.1', 'for', 'l.0'],
      );
      const w = n + 2;
      const a = range(w * w, (k) => ((k * 7) % 13) - 6);
      const expected = new Float32Array(w * w);
      for (let i = 0; i < n; i++)
        for (let j = 0; j < n; j++) {
          const at = (x: number, y: number) => a[(x + 1) * w + y + 1];
          expected[i * w + j] = -2 * at(i, j) + at(i, j - 1) + at(i, j + 1) + at(i - 1, j) + at(i + 1, j);
        }
      assertClose(
        (await run(knl, device, { a, z: new Float32Array(w * w) })).z as Float32Array,
        expected,
        `n=${n}`,
        0,
        0,
      );
    }
  });

  test(`${device.name}: test_fd_1d`, async () => {
    let knl = addAndInferDtypes(makeKernel('{[i]: 0<=i<n}', 'result[i] = u[i+1]-u[i]'), { u: 'float32' });
    knl = splitIname(knl, 'i', 16);
    knl = extractSubst(knl, 'u_acc', 'u[j]', 'j');
    knl = precompute(knl, 'u_acc', 'i_inner', { defaultTag: 'for' });
    knl = assume(knl, 'n mod 16 = 0');
    const n = 2048;
    const u = randomFloat32(n + 1, 3);
    assertClose(
      (await run(knl, device, { u, n })).result as Float32Array,
      range(n, (i) => u[i + 1] - u[i]),
      'result',
      0,
      0,
    );
  });

  test(`${device.name}: test_convolution (variant_2: a footprint f[ifeat, :, :, :] and a fetch of img)`, async () => {
    let knl = makeKernel(
      '{ [iimg, ifeat, icolor, im_x, im_y, f_x, f_y]: -f_w <= f_x,f_y <= f_w and 0 <= im_x < im_w and 0 <= im_y < im_h and 0<=iimg<=nimgs and 0<=ifeat<nfeats and 0<=icolor<ncolors }',
      `
      out[iimg, ifeat, im_x, im_y] = sum((f_x, f_y, icolor), img[iimg, f_w+im_x-f_x, f_w+im_y-f_y, icolor] * f[ifeat, f_w+f_x, f_w+f_y, icolor])
    `,
      [
        globalArg('f', { dtype: 'float32' }),
        globalArg('img', { dtype: 'float32' }),
        globalArg('out', { dtype: 'float32' }),
        '...',
      ],
      {
        assumptions: 'f_w>=1 and im_w, im_h >= 2*f_w+1 and nfeats>=1 and nimgs>=0',
      },
    );
    const fw = 1;
    knl = fixParameters(knl, { f_w: fw, ncolors: 3 });
    knl = splitIname(knl, 'im_x', 16, { outerTag: 'g.0', innerTag: 'l.0' });
    knl = splitIname(knl, 'im_y', 16, { outerTag: 'g.1', innerTag: 'l.1' });
    knl = tagInames(knl, { ifeat: 'g.2' });
    // l.auto fits f's three fetch axes into the work-group's two, as loopy's assign_automatic_axes does
    knl = addPrefetch(knl, 'f[ifeat,:,:,:]', [], {
      fetchOuterInames: ['im_x_outer', 'im_y_outer', 'ifeat'],
      defaultTag: 'l.auto',
    });
    knl = addPrefetch(knl, 'img', ['im_x_inner', 'im_y_inner', 'f_x', 'f_y'], {
      fetchOuterInames: ['iimg', 'im_x_outer', 'im_y_outer', 'ifeat', 'icolor'],
      defaultTag: 'l.auto',
    });
    // loopy: im_w = im_h = 128, nfeats = nimgs = 3
    const [imW, imH, nfeats, nimgs] = [20, 18, 2, 1];
    const W = imW + 2 * fw;
    const H = imH + 2 * fw;
    const img = range((nimgs + 1) * W * H * 3, (k) => ((k * 5) % 9) - 4);
    const f = range(nfeats * 3 * 3 * 3, (k) => ((k * 3) % 7) - 3);
    const expected = new Float32Array((nimgs + 1) * nfeats * imW * imH);
    for (let ii = 0; ii <= nimgs; ii++)
      for (let fe = 0; fe < nfeats; fe++)
        for (let x = 0; x < imW; x++)
          for (let y = 0; y < imH; y++) {
            let s = 0;
            for (let fx = -fw; fx <= fw; fx++)
              for (let fy = -fw; fy <= fw; fy++)
                for (let c = 0; c < 3; c++) {
                  s +=
                    img[((ii * W + fw + x - fx) * H + fw + y - fy) * 3 + c] *
                    f[((fe * 3 + fw + fx) * 3 + fw + fy) * 3 + c];
                }
            expected[((ii * nfeats + fe) * imW + x) * imH + y] = s;
          }
    const r = await run(knl, device, {
      img: { data: img, shape: [nimgs + 1, W, H, 3] },
      f: { data: f, shape: [nfeats, 3, 3, 3] },
      im_w: imW,
      im_h: imH,
      nfeats,
      nimgs,
    });
    assertClose(r.out as Float32Array, expected, 'out', 0, 0);
  });
}

test('test_fd_demo', () => {
  let knl = makeKernel(
    '{[i,j]: 0<=i,j<n}',
    'result[i+1,j+1] = u[i + 1, j + 1]**2 + -1 + (-4)*u[i + 1, j + 1] + u[i + 1 + 1, j + 1] + u[i + 1 + -1, j + 1] + u[i + 1, j + 1 + 1] + u[i + 1, j + 1 + -1]',
  );
  knl = splitIname(knl, 'i', 16, { outerTag: 'g.1', innerTag: 'l.1' });
  knl = splitIname(knl, 'j', 16, { outerTag: 'g.0', innerTag: 'l.0' });
  knl = addPrefetch(knl, 'u', ['i_inner', 'j_inner'], { fetchBoundingBox: true, defaultTag: 'l.auto' });
  knl = addAndInferDtypes(knl, { u: 'float32' });
  assert.not.match(generateCode(knl, openclTarget()).code, 'double');
});

test('test_prefetch_through_indirect_access', () => {
  let knl = makeKernel(
    '{[i, j, k]: 0 <= i,k < 10 and 0<=j<2}',
    `
    for i, j, k
      a[map1[indirect[i], j], k] = 2
    end
  `,
    [globalArg('a', { dtype: 'int32', shape: [10, 2] }), globalArg('map1', { shape: [10, 10], dtype: 'int32' }), '...'],
  );
  knl = prioritizeLoops(knl, 'i,j,k');
  assert.throws(
    () => addPrefetch(knl, 'map1[:, j]', [], { defaultTag: 'l.auto' }),
    (e: unknown) =>
      e instanceof LoomError && /index 'indirect\[i\]' of 'map1' \(axis 0\) is not affine/.test((e as Error).message),
  );
});

test.run();
