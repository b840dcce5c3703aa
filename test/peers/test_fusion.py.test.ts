/**
 * Ports of loopy's test/test_fusion.py: `fuseKernels` with data flow between the kernels,
 * each fused kernel run on every test device against plain JavaScript.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addNosync,
  fuseKernels,
  globalArg,
  makeKernel,
  renameArgument,
  renameIname,
  run,
  valueArg,
  type LoopKernel,
} from '@loom/core';
import { assertClose, supportsDType, testDevices } from '../support/devices.ts';

/** The kernel writing a zero matrix. */
const initGlobalMatrix = () =>
  makeKernel(
    ['{[idof]: 0 <= idof < n}', '{[jdof]: 0 <= jdof < m}'],
    'result[idof, jdof]  = 0 {id=init}',
    [globalArg('result', { shape: 'n, m', offset: 'auto' }), valueArg('n, m', 'int32'), '...'],
    { defaultOffset: 'auto', name: 'init_a_global_matrix' },
  );

/** The kernel writing `mat` into `result` at `(offset_i, offset_j)`. */
const writeIntoMatrix = () =>
  makeKernel(
    ['{[idof]: 0 <= idof < ndofs}', '{[jdof]: 0 <= jdof < mdofs}'],
    'result[offset_i + idof, offset_j + jdof] = mat[idof, jdof]',
    [
      globalArg('result', { shape: 'n, m', offset: 'auto' }),
      valueArg('n, m', 'int32'),
      globalArg('mat', { shape: 'ndofs, mdofs', offset: 'auto' }),
      valueArg('offset_i', 'int32'),
      valueArg('offset_j', 'int32'),
      '...',
    ],
    {
      defaultOffset: 'auto',
      name: 'write_into_global_matrix',
      // loopy's `<` here excludes its own second block (5 + 5 = n): Loom checks assumptions at run time
      assumptions: 'ndofs + offset_i <= n and mdofs + offset_j <= m and offset_i >= 0 and offset_j >= 0',
    },
  );

for (const device of testDevices()) {
  test(`${device.name}: test_two_kernel_fusion`, async () => {
    const knla = makeKernel('{[i]: 0<=i<10}', 'out[i] = i');
    const knlb = makeKernel('{[j]: 0<=j<10}', 'out[j] = j+100');
    const knl = fuseKernels([knla, knlb], { dataFlow: [['out', 0, 1]] });
    const out = (await run(knl, device, {})).out as ArrayLike<number>;
    assertClose(
      out,
      Array.from({ length: 10 }, (_, k) => 100 + k),
      'out',
    );
  });

  test(`${device.name}: test_write_block_matrix_fusion`, async () => {
    // float64 as loopy's numpy data, where the device has it
    const float64 = supportsDType(device, 'float64');
    const array = (xs: ArrayLike<number>) => (float64 ? Float64Array.from(xs) : Float32Array.from(xs));
    const [n, blockN] = [10, 5];
    let seed = 42;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 30 - 1;
    };
    const mats = [0, 1].map(() => array(Array.from({ length: blockN * blockN }, random)));
    const answer = new Float64Array(n * n);
    mats.forEach((mat, b) => {
      for (let i = 0; i < blockN; i++)
        for (let j = 0; j < blockN; j++) answer[(b * blockN + i) * n + b * blockN + j] = mat[i * blockN + j];
    });

    const data: Record<string, number | Float64Array | Float32Array> = { n, m: n };
    const kernels: LoopKernel[] = [initGlobalMatrix()];
    mats.forEach((mat, idx) => {
      let knl = renameArgument(writeIntoMatrix(), 'mat', `mat_${idx}`);
      data[`mat_${idx}`] = mat;
      for (const iname of knl.inames) knl = renameIname(knl, iname, `${iname}_${idx}`);
      knl = renameArgument(knl, 'ndofs', `ndofs_${idx}`);
      knl = renameArgument(knl, 'mdofs', `mdofs_${idx}`);
      data[`ndofs_${idx}`] = blockN;
      data[`mdofs_${idx}`] = blockN;
      knl = renameArgument(knl, 'offset_i', `offset_i_${idx}`);
      knl = renameArgument(knl, 'offset_j', `offset_j_${idx}`);
      data[`offset_i_${idx}`] = idx * blockN;
      data[`offset_j_${idx}`] = idx * blockN;
      kernels.push(knl);
    });

    let fused = fuseKernels(kernels, {
      dataFlow: [
        ['result', 0, 1],
        ['result', 1, 2],
      ],
    });
    fused = addNosync(fused, 'global', 'writes:result', 'writes:result', { bidirectional: true, force: true });
    // the writers of result run in the order the data flow gives
    const [init, first, second] = fused.instructions.map((i) => i.id);
    assert.ok(fused.instruction(first).dependsOn.includes(init));
    assert.ok(fused.instruction(second).dependsOn.includes(first));
    // offset: 'auto' takes the offset from the array passed, so the caller passes one (not zeroed: init must)
    const result = (await run(fused, device, { ...data, result: array(new Array(n * n).fill(7)) }))
      .result as ArrayLike<number>;
    assertClose(result, answer, 'result', 0, 0);
  });
}

test.run();
