/**
 * Ports of loopy's test/test_loopy.py tests of issue 27's atomics group: atomic stores
 * (`atomic=init`, loopy's AtomicInit), atomic loads (every read of a `forAtomic` variable,
 * loopy's AtomicLoad) and `forAtomic` temporaries; and C code as an instruction
 * (`cInstruction`, loopy's CInstruction). Each runs on every test device and is checked
 * against plain JavaScript; a device whose target has no atomics of the dtype, or cannot
 * compile C, refuses the kernel with a LoomError before anything runs. Names are the originals'.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  cInstruction,
  fixParameters,
  preprocessKernel,
  generateCode,
  globalArg,
  LoomError,
  makeKernel,
  stringifyKernel,
  run,
  splitIname,
  tagInames,
  targetFacts,
  temporaryVariable,
  type Device,
  type DType,
  type LoopKernel,
  type RunArgument,
} from '@loom/core';
import { cudaTarget } from '@loom/codegen-cuda';
import { openclTarget } from '@loom/codegen-opencl';
import { cTarget } from '@loom/codegen-c';
import { assertClose, supportsDType, testDevices } from '../support/devices.ts';
import { wgslTarget } from '@loom/codegen-wgsl';
import { jsTarget } from '@loom/codegen-js';

const DTYPES = ['int32', 'int64', 'float32', 'float64'] as const;

/** The host array of `dtype` holding `values`. */
function hostArray(dtype: (typeof DTYPES)[number], values: readonly number[]) {
  switch (dtype) {
    case 'int32':
      return Int32Array.from(values);
    case 'int64':
      return BigInt64Array.from(values.map(BigInt));
    case 'float32':
      return Float32Array.from(values);
    case 'float64':
      return Float64Array.from(values);
  }
}

/** Whether `device` can run atomics of `dtype`: it holds the dtype and its target has atomics of it. */
const hasAtomics = (device: Device, dtype: DType) =>
  supportsDType(device, dtype) && targetFacts(device.target).atomicDTypes.has(dtype);

/** `run`'s refusal, asserted to be a LoomError about atomics. */
async function assertRefused(
  knl: LoopKernel,
  device: Device,
  data: Readonly<Record<string, RunArgument>>,
): Promise<void> {
  const refused = await run(knl, device, data).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(refused instanceof LoomError && /atomic|dtype/.test(refused.message), String(refused));
}

/** loopy's kernel of test_atomic_init: every work-item stores 0 into out[i % 4], atomically. */
function atomicInitKernel(dtype: DType, value = '0') {
  const knl = makeKernel(
    '{ [i]: 0<=i<100 }',
    `out[i%4] = ${value} {id=init, atomic=init}`,
    [globalArg('out', { dtype, shape: 'auto', forAtomic: true }), '...'],
    { silencedWarnings: ['write_race(init)'] },
  );
  return splitIname(knl, 'i', 4, { innerTag: 'l.0' });
}

/** loopy's kernel of test_atomic_load: a local counter every work-item of the group bumps atomically. */
function atomicLoadKernel(dtype: DType, n: number) {
  let knl = makeKernel(
    '{ [j]: 0<=j<n}',
    `for j
       temp = 0 {id=init, atomic}
       ... lbarrier {id=lb1, dep=init}
       temp = temp + 1 {id=temp_sum, dep=lb1, atomic}
       ... lbarrier {id=lb2, dep=temp_sum}
       out[j] = temp {id=final, dep=lb2, atomic,nosync=init:temp_sum}
     end`,
    [
      globalArg('out', { dtype, shape: 'auto', forAtomic: true }),
      temporaryVariable('temp', { dtype, forAtomic: true, addressSpace: 'local' }),
      '...',
    ],
    { silencedWarnings: ['write_race(temp_sum)', 'write_race(init)'] },
  );
  knl = fixParameters(knl, { n });
  return tagInames(knl, { j: 'l.0' });
}

test('test_atomic_init: atomic=init is an atomic store on every C-family target', () => {
  const knl = atomicInitKernel('float32');
  assert.ok(/atomic=init/.test(stringifyKernel(knl)), stringifyKernel(knl));
  const code = (target: Parameters<typeof generateCode>[1]) => generateCode(knl, target).code;
  assert.ok(/atomic_xchg\(&out\[/.test(code(openclTarget())), code(openclTarget()));
  assert.ok(/__global volatile float \*__restrict__ out/.test(code(openclTarget())), code(openclTarget()));
  assert.ok(/atomicExch\(&out\[/.test(code(cudaTarget())), code(cudaTarget()));
  assert.ok(/loom_atomic_store_float32\(&out\[/.test(code(cTarget())), code(cTarget()));
  const ints = generateCode(atomicInitKernel('int32'), cTarget()).code;
  assert.ok(/__atomic_store_n\(&out\[/.test(ints), ints);
  const doubles = generateCode(atomicInitKernel('float64'), openclTarget()).code;
  assert.ok(/atom_xchg\(\(volatile __global long \*\) &out\[/.test(doubles), doubles);
});

test('test_atomic_load: a forAtomic temporary is declared atomic, its reads are atomic loads', () => {
  const knl = atomicLoadKernel('float32', 10);
  assert.ok(/temp: .* for_atomic/.test(stringifyKernel(knl)), stringifyKernel(knl));
  const cl = generateCode(knl, openclTarget()).code;
  assert.ok(/__local volatile float temp;/.test(cl), cl);
  assert.ok(/loom_atomic_add_float32_local\(&temp, 1\.0f\)/.test(cl), cl);
  const cuda = generateCode(knl, cudaTarget()).code;
  assert.ok(/atomicExch\(&out\[[^\]]*\], \*\(volatile float const \*\) &temp\)/.test(cuda), cuda);
  const c = generateCode(knl, cTarget()).code;
  assert.ok(/loom_atomic_load_float32\(&temp\)/.test(c), c);
});

test('atomic=init: a value that reads its target, a value for atomic, a forAtomic not boolean are LoomErrors', () => {
  assert.throws(
    () => makeKernel('{ [i]: 0<=i<4 }', 'out[i] = out[i] + 1 {atomic=init}'),
    (e: unknown) => e instanceof LoomError && /atomic=init stores a value/.test(String(e)),
  );
  assert.throws(
    () => makeKernel('{ [i]: 0<=i<4 }', 'out[i] = out[i] + 1 {atomic=yes}'),
    (e: unknown) => e instanceof LoomError && /takes no value/.test(String(e)),
  );
  assert.throws(
    () =>
      makeKernel('{ [i]: 0<=i<4 }', 't = i\nout[i] = t', [temporaryVariable('t', { forAtomic: 1 as never }), '...']),
    (e: unknown) => e instanceof LoomError && /forAtomic must be true or false/.test(String(e)),
  );
});

for (const device of testDevices()) {
  for (const dtype of DTYPES) {
    test(`${device.name}: test_atomic_init[${dtype}]`, async () => {
      // loopy's kernel stores 0; a second value shows each element got its own store
      for (const value of ['0', '2*(i%4) + 1']) {
        const knl = atomicInitKernel(dtype, value);
        const out = () => hostArray(dtype, [7, 7, 7, 7]);
        if (!hasAtomics(device, dtype)) {
          await assertRefused(knl, device, { out: out() });
          continue;
        }
        const got = (await run(knl, device, { out: out() })).out as ArrayLike<number | bigint>;
        const expected = [0, 1, 2, 3].map((k) => (value === '0' ? 0 : 2 * k + 1));
        assert.equal(Array.from(got, Number), expected, value);
      }
    });

    test(`${device.name}: test_atomic_load[${dtype}]`, async () => {
      const n = 10;
      const knl = atomicLoadKernel(dtype, n);
      if (!hasAtomics(device, dtype)) {
        await assertRefused(knl, device, {});
        return;
      }
      const got = (await run(knl, device, {})).out as ArrayLike<number | bigint>;
      // what loopy asserts: every work-item saw the group's n increments
      assert.equal(
        Array.from(got, Number),
        Array.from({ length: n }, () => n),
      );
    });
  }
}

/** loopy's kernel of test_c_instruction: C code computes x, an assignment stores it. */
function cInstructionKernel() {
  const knl = makeKernel(
    '{[i,j]: 0<=i,j<n }',
    [cInstruction('i,j', '\n        x = sin((float) i*j);\n        ', { assignees: 'x' }), 'a[i,j] = x'],
    [globalArg('a', { shape: 'auto', dtype: 'float32' }), temporaryVariable('x', { dtype: 'float32' }), '...'],
    { assumptions: 'n>=1' },
  );
  return splitIname(knl, 'i', 128, { outerTag: 'g.0', innerTag: 'l.0' });
}

test('test_c_instruction: the code is printed as given, after the names it uses', () => {
  const knl = cInstructionKernel();
  assert.ok(/x <- CODE\(i,j\) "x = sin\(\(float\) i\*j\);"/.test(stringifyKernel(knl)), stringifyKernel(knl));
  for (const target of [openclTarget(), cudaTarget(), cTarget()]) {
    const code = generateCode(knl, target).code;
    // i is a hardware index here: the code gets it as a name of its own
    assert.ok(/int const i = [^;]+;\n\n\s+x = sin\(\(float\) i\*j\);/.test(code), code);
  }
  for (const target of [wgslTarget(), jsTarget()])
    assert.throws(
      () => generateCode(knl, target),
      (e: unknown) =>
        e instanceof LoomError && /instruction 'insn' is C code/.test(String(e)) && /OpenCL, CUDA, C/.test(String(e)),
    );
});

test('test_within_inames_and_reduction: C code writing phi leaves the reduction outside i', () => {
  const knl = makeKernel(
    '{[i,j] : 0<=i,j<n}',
    [cInstruction('i', 'doSomethingToGetPhi();', { assignees: 'phi' }), 'a = sum(j, phi[j]) {inames=}'],
    [
      globalArg('a', { dtype: 'float32', shape: [] }),
      temporaryVariable('phi', { dtype: 'float32', shape: 'n', addressSpace: 'global' }),
      '...',
    ],
  );
  const pre = preprocessKernel(knl, cTarget());
  const update = pre.instructions.find((insn) => /update/.test(insn.id));
  assert.ok(update, pre.instructions.map((insn) => insn.id).join(', '));
  assert.not.ok(update.withinInames.includes('i'), update.withinInames.join(', '));
});

test('cInstruction: bad input is a LoomError', () => {
  assert.throws(
    () => cInstruction('i', 'x = 1;', { assignees: 'x + 1' }),
    (e: unknown) => e instanceof LoomError && /assignee/.test(String(e)),
  );
  assert.throws(
    () => cInstruction('i', 'x = 1;', { assigness: 'x' } as never),
    (e: unknown) => e instanceof LoomError,
  );
  assert.throws(
    () => cInstruction('i', 42 as never),
    (e: unknown) => e instanceof LoomError && /string/.test(String(e)),
  );
});

for (const device of testDevices()) {
  test(`${device.name}: test_c_instruction`, async () => {
    const knl = cInstructionKernel();
    const n = 20;
    if (!targetFacts(device.target).cInstructions) {
      // the CPU device and WebGPU cannot compile C: refused before anything runs
      const refused = await run(knl, device, { n }).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(refused instanceof LoomError && /is C code/.test(refused.message), String(refused));
      return;
    }
    const { a } = await run(knl, device, { n });
    const expected = Array.from({ length: n * n }, (_, k) => Math.sin(Math.fround(Math.floor(k / n) * (k % n))));
    // OpenCL's float sin is held to 4 ulp
    assertClose(a as Float32Array, expected, 'a', 1e-5, 1e-6);
  });
}

test.run();
