/**
 * Callee kernels as device functions (codegen/device-functions.ts): each call site of a callee is
 * a function of its own (`twice`, `twice_0`), whatever arrays it passes; a callee's private
 * temporary is the function's local; the values computed are the inlined program's, on every
 * device (WGSL's functions reach the arrays through the module's bindings).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  generateCode,
  mapKernel,
  tagInames,
  globalArg,
  inlineCallableKernel,
  makeFunction,
  makeKernel,
  merge,
  run,
  targetFacts,
} from '@loom/core';
import { testDevices } from './support/devices.ts';

const twice = () => makeFunction('{[i]: 0<=i<4}', ['<> t = 2*a[i]', 'b[i] = t'], { name: 'twice' });

const caller = (second: string) =>
  makeKernel(
    '{[k, i1, i2]: 0<=k<3 and 0<=i1, i2<4}',
    `
    [i1]: y[k, i1] = twice([i1]: x[k, i1])
    [i2]: ${second}[k, i2] = twice([i2]: x[k, i2])
    `,
    [globalArg('x', { dtype: 'float32', shape: [3, 4] }), globalArg('y, z', { dtype: 'float32', shape: [3, 4] })],
  );

for (const device of testDevices()) {
  test(`${device.name}: a callee called from two sites`, async () => {
    const x = Float32Array.from({ length: 12 }, (_, k) => k - 5);
    for (const second of ['z', 'y'] as const) {
      const prog = merge([caller(second), twice()]);
      const code = generateCode(prog, device.target);
      const functions = code.program.deviceFunctions ?? [];
      if (targetFacts(device.target).deviceFunctions) {
        assert.equal(
          functions.map((f) => f.name),
          ['twice', 'twice_0'],
          `${second}: functions`,
        );
        // the callee's private temporary is declared in its function, not in the kernel
        for (const f of functions) assert.ok(JSON.stringify(f.body).includes('"declare"'), `${f.name} declares t`);
        assert.not.ok(JSON.stringify(code.program.kernels[0].body).includes('"declare"'), 'the kernel declares none');
      } else assert.is(functions.length, 0, 'inlined');
      const inlined = generateCode(inlineCallableKernel(prog, 'twice'), device.target);
      assert.is(inlined.program.deviceFunctions, undefined, 'inlineCallableKernel: no function');
      const out = await run(prog, device, { x });
      const expected = [...x].map((v) => 2 * v);
      assert.equal([...(out.y as Float32Array)], expected, `${second}: y`);
      if (second === 'z') assert.equal([...(out.z as Float32Array)], expected, 'z');
    }
  });
}

for (const device of testDevices()) {
  test(`${device.name}: a callee with a local barrier`, async () => {
    // the work-items exchange values through global memory between the barrier's sides
    let callee = makeFunction(
      '{[i]: 0<=i<4}',
      `
      b[i] = 2*a[i] {id=double}
      ... lbarrier {id=sync, dep=double, mem_kind=global}
      c[i] = b[3 - i] {dep=sync}
      `,
      [globalArg('a, b, c', { dtype: 'float32', shape: [4] })],
      { name: 'reverse_twice' },
    );
    callee = mapKernel(callee, 'reverse_twice', (k) => tagInames(k, { i: 'l.0' }));
    const knl = makeKernel('{[j, k]: 0<=j, k<4}', '[j]: b[j], [k]: c[k] = reverse_twice([j]: a[j], [j]: b[j])', [
      globalArg('a, b, c', { dtype: 'float32', shape: [4] }),
    ]);
    const prog = merge([knl, callee]);
    const code = generateCode(prog, device.target);
    const facts = targetFacts(device.target).deviceFunctions;
    // a function holds the barrier where the target's functions may (OpenCL, CUDA); elsewhere it is inlined
    assert.is((code.program.deviceFunctions ?? []).length, facts && facts.barriers ? 1 : 0);
    const a = Float32Array.from([1, 2, 3, 4]);
    const out = await run(prog, device, { a, b: new Float32Array(4) });
    assert.equal([...(out.c as Float32Array)], [8, 6, 4, 2]);
  });
}

test.run();
