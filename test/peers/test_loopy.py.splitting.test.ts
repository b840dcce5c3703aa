/**
 * Ports of loopy's test/test_loopy.py tests of kernel splitting at global barriers (also
 * inside sequential loops, which the host then runs), of global temporaries and of
 * saveAndReloadTemporaries: each run on every test device against plain JavaScript.
 * Names are the originals'.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  aliasTemporaries,
  duplicateInames,
  generateCode,
  LoomError,
  makeKernel,
  MissingDefinitionError,
  run,
  saveAndReloadTemporaries,
  setTemporaryAddressSpace,
  splitIname,
  tagInames,
  type Device,
  type LoopKernel,
} from '@loom/core';
import { openclTarget } from '@loom/codegen-opencl';
import { testDevices } from '../support/devices.ts';

// {{{ kernel splitting

function splitting(withLoop: boolean) {
  const knl = withLoop
    ? makeKernel(
        '{ [i,k]: 0<=i<n and 0<=k<3 }',
        `for i, k
           ... gbarrier
           c[k,i] = a[k, i + 1]
           ... gbarrier
           out[k,i] = c[k,i]
         end`,
        undefined,
        { seqDependencies: true },
      )
    : makeKernel(
        '{ [i]: 0<=i<n }',
        `for i
           c[i] = a[i + 1]
           ... gbarrier
           out[i] = c[i]
         end`,
        undefined,
        { seqDependencies: true },
      );
  const typed = addDtypes(knl, { a: 'float32', c: 'float32', out: 'float32', n: 'int32' });
  return { ref: typed, knl: splitIname(typed, 'i', 128, { outerTag: 'g.0', innerTag: 'l.0' }) };
}

test('test_kernel_splitting: two device kernels', () => {
  assert.is(generateCode(splitting(false).knl, openclTarget()).kernels.length, 2);
});

test('test_kernel_splitting_with_loop: two device kernels, launched by a host loop over k', () => {
  const code = generateCode(splitting(true).knl, openclTarget());
  assert.is(code.kernels.length, 2);
  assert.equal(
    code.host.program.map((h) => h.kind),
    ['loop'],
  );
});

for (const device of testDevices()) {
  for (const withLoop of [false, true]) {
    const name = withLoop ? 'test_kernel_splitting_with_loop' : 'test_kernel_splitting';
    test(`${device.name}: ${name}`, async () => {
      // loopy's auto_test_vs_ref with n = 5: the split kernel against the unsplit one and plain JavaScript
      const n = 5;
      const rows = withLoop ? 3 : 1;
      const a = Float32Array.from({ length: rows * (n + 1) }, (_, k) => k * 0.25 - 1);
      const expected = Array.from({ length: rows * n }, (_, k) => a[Math.floor(k / n) * (n + 1) + (k % n) + 1]);
      const { knl, ref } = splitting(withLoop);
      for (const kernel of [knl, ref]) {
        const { out } = await run(kernel, device, { a, c: new Float32Array(rows * n), n });
        assert.equal(Array.from(out as Float32Array), expected);
      }
    });
  }
}

// }}}

// {{{ global temporaries

function globalTemporary() {
  // loopy's c has shape (n): a global temporary of parametric size, allocated by the host per call
  const knl = makeKernel(
    '{ [i]: 0<=i<n}',
    `for i
       <> c[i] = a[i + 1]
       ... gbarrier
       out[i] = c[i]
     end`,
    undefined,
    { seqDependencies: true },
  );
  const ref = setTemporaryAddressSpace(
    addDtypes(knl, { a: 'float32', c: 'float32', out: 'float32', n: 'int32' }),
    'c',
    'global',
  );
  return { ref, knl: splitIname(ref, 'i', 128, { outerTag: 'g.0', innerTag: 'l.0' }) };
}

test('test_global_temporary: two device kernels', () => {
  assert.is(generateCode(globalTemporary().knl, openclTarget()).kernels.length, 2);
});

for (const device of testDevices()) {
  test(`${device.name}: test_global_temporary`, async () => {
    const n = 5;
    const a = Float32Array.from({ length: n + 1 }, (_, k) => 3 - k * 0.5);
    for (const kernel of Object.values(globalTemporary())) {
      const { out } = await run(kernel, device, { a, n });
      assert.equal(Array.from(out as Float32Array), Array.from(a.subarray(1)));
    }
  });
}

// }}}

// {{{ save and reload

/** loopy's save_and_reload_temporaries_test: save and reload, run, compare `out` with `expected`. */
async function savedRun(device: Device, knl: LoopKernel, expected: readonly number[]): Promise<void> {
  const { out } = await run(saveAndReloadTemporaries(knl), device, {});
  assert.equal(Array.from(out as Int32Array, Number), expected);
}

const arange = (n: number) => Array.from({ length: n }, (_, k) => k);
const seq = { seqDependencies: true };

for (const device of testDevices()) {
  for (const hwLoop of [true, false]) {
    test(`${device.name}: test_save_of_private_scalar[hw_loop=${hwLoop}]`, async () => {
      const knl = makeKernel(
        '{ [i]: 0<=i<8 }',
        `for i
           <>t = i
           ... gbarrier
           out[i] = t
         end`,
        undefined,
        seq,
      );
      await savedRun(device, hwLoop ? tagInames(knl, { i: 'g.0' }) : knl, arange(8));
    });
  }

  test(`${device.name}: test_save_of_private_array`, async () => {
    const knl = makeKernel(
      '{ [i]: 0<=i<8 }',
      `for i
         <>t[i] = i
         ... gbarrier
         out[i] = t[i]
       end`,
      undefined,
      seq,
    );
    await savedRun(device, setTemporaryAddressSpace(knl, 't', 'private'), arange(8));
  });

  test(`${device.name}: test_save_of_private_array_in_hw_loop`, async () => {
    const knl = makeKernel(
      '{ [i,j,k]: 0<=i,j,k<8 }',
      `for i
         for j
           <>t[j] = j
         end
         ... gbarrier
         for k
           out[i,k] = t[k]
         end
       end`,
      undefined,
      seq,
    );
    await savedRun(
      device,
      setTemporaryAddressSpace(tagInames(knl, { i: 'g.0' }), 't', 'private'),
      Array.from({ length: 8 }, () => arange(8)).flat(),
    );
  });

  for (const hwLoop of [false, true]) {
    const name = hwLoop ? 'test_save_of_private_multidim_array_in_hw_loop' : 'test_save_of_private_multidim_array';
    test(`${device.name}: ${name}`, async () => {
      let knl = makeKernel(
        '{ [i,j,k,l,m]: 0<=i,j,k,l,m<8 }',
        `for i
           for j, k
             <>t[j,k] = k
           end
           ... gbarrier
           for l, m
             out[i,l,m] = t[l,m]
           end
         end`,
        undefined,
        seq,
      );
      knl = setTemporaryAddressSpace(knl, 't', 'private');
      if (hwLoop) knl = tagInames(knl, { i: 'g.0' });
      await savedRun(device, knl, Array.from({ length: 64 }, () => arange(8)).flat());
    });
  }

  for (const hwLoop of [true, false]) {
    test(`${device.name}: test_save_of_multiple_private_temporaries[hw_loop=${hwLoop}]`, async () => {
      let knl = makeKernel(
        '{ [i,j,k]: 0<=i,j,k<10 }',
        `for i
           for k
             <> t_arr[k] = k
           end
           <> t_scalar = 1
           for j
             ... gbarrier
             out[j] = t_scalar
             ... gbarrier
             t_scalar = 10
           end
           ... gbarrier
           <> flag = i == 9
           out[i] = t_arr[i] {if=flag}
         end`,
        undefined,
        seq,
      );
      knl = setTemporaryAddressSpace(knl, 't_arr', 'private');
      if (hwLoop) knl = tagInames(knl, { i: 'g.0' });
      await savedRun(device, knl, [1, 10, 10, 10, 10, 10, 10, 10, 10, 9]);
    });
  }

  for (const explicitBarrier of [false, true]) {
    const name = explicitBarrier ? 'test_save_of_local_array_with_explicit_local_barrier' : 'test_save_of_local_array';
    test(`${device.name}: ${name}`, async () => {
      const knl = makeKernel(
        '{ [i,j]: 0<=i,j<8 }',
        explicitBarrier
          ? `for i, j
               <>t[2*j] = j
               ... lbarrier
               t[2*j+1] = t[2*j]
               ... gbarrier
               out[i] = t[2*i]
             end`
          : `for i, j
               <>t[2*j] = j
               t[2*j+1] = j
               ... gbarrier
               out[i] = t[2*i]
             end`,
        undefined,
        seq,
      );
      await savedRun(device, tagInames(setTemporaryAddressSpace(knl, 't', 'local'), { i: 'g.0', j: 'l.0' }), arange(8));
    });
  }

  test(`${device.name}: test_save_local_multidim_array`, async () => {
    const knl = makeKernel(
      '{ [i,j,k]: 0<=i<2 and 0<=k<3 and 0<=j<2}',
      `for i, j, k
         ... gbarrier
         <> t_local[k,j] = 1
         ... gbarrier
         out[k,i*2+j] = t_local[k,j]
       end`,
      undefined,
      seq,
    );
    await savedRun(
      device,
      tagInames(setTemporaryAddressSpace(knl, 't_local', 'local'), { j: 'l.0', i: 'g.0' }),
      Array.from({ length: 12 }, () => 1),
    );
  });

  test(`${device.name}: test_save_with_base_storage`, async () => {
    let knl = makeKernel(
      '{[i]: 0 <= i < 10}',
      `<>a[i] = 0
       <>b[i] = i
       ... gbarrier
       out[i] = a[i]`,
      undefined,
      seq,
    );
    knl = tagInames(knl, { i: 'l.0' });
    knl = setTemporaryAddressSpace(setTemporaryAddressSpace(knl, 'a', 'local'), 'b', 'local');
    knl = aliasTemporaries(knl, ['a', 'b'], { synchronizeForExclusiveUse: false });
    // a and b are one storage: b's writes are what out reads
    await savedRun(device, knl, arange(10));
  });

  test(`${device.name}: test_save_across_inames_with_same_tag`, async () => {
    let knl = makeKernel(
      '{[i]: 0 <= i < 10}',
      `<>a[i] = i
       ... gbarrier
       out[i] = a[i]`,
      undefined,
      seq,
    );
    knl = tagInames(knl, { i: 'l.0' });
    knl = duplicateInames(knl, 'i', { within: 'reads:a', tags: { i: 'l.0' } });
    await savedRun(device, knl, arange(10));
  });
}

test('test_save_ambiguous_storage_requirements', () => {
  let knl = makeKernel(
    '{[i,j]: 0 <= i < 10 and 0 <= j < 10}',
    `<>a[j] = j
     ... gbarrier
     out[i,j] = a[j]`,
    undefined,
    seq,
  );
  knl = tagInames(knl, { i: 'g.0', j: 'l.0' });
  knl = duplicateInames(knl, 'j', { within: 'writes:out', tags: { j: 'l.0' } });
  knl = setTemporaryAddressSpace(knl, 'a', 'local');
  assert.throws(
    () => saveAndReloadTemporaries(knl),
    (e: unknown) => e instanceof LoomError && /its save slot would need both layouts/.test(e.message),
  );
});

test('test_missing_temporary_definition_detection', () => {
  const knl = makeKernel(
    '{ [i]: 0<=i<10 }',
    `for i
       <> t = 1
       ... gbarrier
       out[i] = t
     end`,
    undefined,
    seq,
  );
  assert.throws(
    () => generateCode(knl, openclTarget()),
    (e: unknown) => e instanceof MissingDefinitionError,
  );
});

// }}}

test.run();
