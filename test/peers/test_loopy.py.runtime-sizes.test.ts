/**
 * Ports of loopy's tests of sizes known only at run time (issue 27's first group): empty
 * and parametric domains on hardware axes, temporaries of parametric size, ILP over a
 * parametric extent, `sep` axes fixed by fixParameters, and makeKernel's fixedParameters.
 * Names are the originals'; each kernel runs on every test device against plain
 * JavaScript, as loopy's auto_test_vs_ref compares with the sequential kernel. Where Loom
 * does not follow loopy, test/peers/README.md says why.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  addPrefetch,
  chunkIname,
  collectWarnings,
  fixParameters,
  generateCode,
  globalArg,
  KernelCheckError,
  LoomError,
  makeCopyKernel,
  makeKernel,
  precompute,
  printExpr,
  prioritizeLoops,
  reductionArgToSubstRule,
  run,
  splitIname,
  splitReductionInward,
  splitReductionOutward,
  stringifyKernel,
  tagInames,
  targetFacts,
  valueArg,
  type Device,
  type LoopKernel,
} from '@loom/core';
import { cTarget } from '@loom/codegen-c';
import { cudaTarget } from '@loom/codegen-cuda';
import { jsTarget } from '@loom/codegen-js';
import { openclTarget } from '@loom/codegen-opencl';
import { wgslTarget } from '@loom/codegen-wgsl';
import { linearizeKernel } from '../../packages/core/src/codegen/generate.ts';
import { assertClose, randomFloat32, supportsDType, testDevices } from '../support/devices.ts';

const throwsLoom = (f: () => unknown, message: RegExp) =>
  assert.throws(f, (e: unknown) => e instanceof LoomError && message.test((e as Error).message));

/** float64 where the device has it (loopy's data), else float32: a copy is exact in either. */
const copyData = (device: Device, n: number) => {
  const values = Array.from(randomFloat32(n, 42));
  return supportsDType(device, 'float64') ? Float64Array.from(values) : Float32Array.from(values);
};

// {{{ hardware axes over empty and parametric domains

for (const device of testDevices()) {
  test(`${device.name}: test_empty_domain`, async () => {
    for (const tag of ['for', 'l.0', 'g.0', 'fixed'] as const) {
      let knl = makeKernel('{[i,j]: 0 <= i < n}', 'for i\n  c = 1\nend');
      // l.0: the work-group is n work-items, sized at launch as loopy does; n = 0 launches nothing
      const args: Record<string, number | Int32Array> = {};
      if (tag === 'fixed') knl = fixParameters(knl, { n: 0 });
      else {
        knl = tagInames(knl, { i: tag });
        args.n = 0;
      }
      const c = new Int32Array(1);
      await run(knl, device, { ...args, c });
      assert.equal(Array.from(c), [0], tag);
    }
  });

  test(`${device.name}: test_chunk_iname`, async () => {
    const chunkKernel = () =>
      makeKernel(
        '{ [i]: 0<=i<n }',
        'out[i] = 2*a[i]',
        [globalArg('out', { dtype: 'float32' }), globalArg('a', { dtype: 'float32' }), '...'],
        { assumptions: 'n>0' },
      );
    for (const fix of [true, false]) {
      for (const n of [130, 2, 3, 7]) {
        // a chunk is ceil(n/3) work-items: fixed with n, else sized when the kernel is launched
        let knl = chunkIname(chunkKernel(), 'i', 3, { innerTag: 'l.0' });
        knl = prioritizeLoops(knl, 'i_outer, i_inner');
        if (fix) knl = fixParameters(knl, { n });
        const a = randomFloat32(n, n);
        const { out } = await run(knl, device, fix ? { a } : { a, n });
        // as auto_test_vs_ref: against the kernel run sequentially (here, plain JavaScript)
        assertClose(
          out as Float32Array,
          Array.from(a, (x) => 2 * x),
          `fix=${fix}, n=${n}`,
          0,
          0,
        );
      }
    }
  });

  test(`${device.name}: test_chunk_iname (the work-group size beyond the device's, refused at launch)`, async () => {
    let knl = makeKernel(
      '{ [i]: 0<=i<n }',
      'out[i] = 2*a[i]',
      [globalArg('out', { dtype: 'float32' }), globalArg('a', { dtype: 'float32' }), '...'],
      { assumptions: 'n>0' },
    );
    knl = chunkIname(knl, 'i', 3, { innerTag: 'l.0' });
    const n = 3 * device.limits.maxWorkGroupSizes[0] + 3;
    const refused = await run(knl, device, { a: new Float32Array(n), n }).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(refused instanceof LoomError, String(refused));
    assert.match(
      (refused as Error).message,
      /work-group has \d+ work-items along axis 0 \(x\) \(\(n \+ 2\) \/\/ 3 at this launch\)/,
    );
  });
}

// }}}

// {{{ temporaries of parametric size

/** Plain JS: the sums of the rows of the n by n `a`, in float32 as the kernel adds them. */
const rowSums = (a: Float32Array, n: number) =>
  Array.from({ length: n }, (_, i) => a.subarray(i * n, (i + 1) * n).reduce((s, x) => Math.fround(s + x), 0));

/** loopy's kernel: the whole of a (n by n) prefetched, with no tags, then summed along rows. */
function variableSizeKernel(options: Parameters<typeof addPrefetch>[3]): LoopKernel {
  const knl = addDtypes(makeKernel('{ [i,j]: 0<=i,j<n }', 'out[i] = sum(j, a[i,j])'), { a: 'float32' });
  return addPrefetch(knl, 'a[:,:]', [], options);
}

test('test_variable_size_temporary', () => {
  // as loopy: code generation succeeds with a private array of n*n elements, a C99
  // variable-length array where the target has them (C); OpenCL C, CUDA and WGSL have none,
  // and Loom says so before generating anything, naming the target and the way out
  const knl = variableSizeKernel({ defaultTag: undefined });
  const fetch = knl.temporaries.get('a_fetch')!;
  assert.equal(
    fetch.shape.map((e) => printExpr(e)),
    ['n', 'n'],
  );
  assert.match(generateCode(knl, cTarget()).code, /\bfloat a_fetch\[n \* n\];/);
  assert.match(generateCode(knl, jsTarget()).code, /const a_fetch = new Float32Array\(Math\.imul\(n, n\)\);/);
  for (const target of [openclTarget(), cudaTarget(), wgslTarget()])
    throwsLoom(
      () => generateCode(knl, target),
      new RegExp(
        `temporary 'a_fetch' in private memory has a size known only at launch \\(n\\*n elements\\), and the ${target.name} target cannot declare such an array.*temporaryAddressSpace: 'global'`,
      ),
    );
  const global = variableSizeKernel({ defaultTag: undefined, temporaryAddressSpace: 'global' });
  assert.equal(
    global.temporaries.get('a_fetch')!.shape.map((e) => printExpr(e)),
    ['n', 'n'],
  );
});

for (const device of testDevices()) {
  test(`${device.name}: test_variable_size_temporary (the private prefetch, run at several sizes where the target declares it)`, async () => {
    const knl = variableSizeKernel({ defaultTag: undefined });
    for (const n of [1, 5, 17]) {
      const a = randomFloat32(n * n, n);
      if (!targetFacts(device.target).runtimeSizedArrays.has('private')) {
        const refused = await run(knl, device, { a, n }).then(
          () => undefined,
          (e: unknown) => e,
        );
        assert.ok(refused instanceof LoomError, String(refused));
        assert.match((refused as Error).message, /'a_fetch' in private memory has a size known only at launch/);
        continue;
      }
      const { out } = await run(knl, device, { a, n });
      assertClose(out as Float32Array, rowSums(a, n), `n=${n}`, 1e-5, 1e-5);
    }
  });
}

for (const device of testDevices()) {
  test(`${device.name}: test_variable_size_temporary (the prefetch in global memory, run at several sizes)`, async () => {
    const knl = variableSizeKernel({ defaultTag: undefined, temporaryAddressSpace: 'global' });
    for (const n of [1, 5, 17]) {
      const a = randomFloat32(n * n, n);
      const { out } = await run(knl, device, { a, n });
      assertClose(out as Float32Array, rowSums(a, n), `n=${n}`, 1e-5, 1e-5);
    }
  });
}

test('test_reduction.py::test_global_parallel_reduction: the per-block sums go to a global temporary of floor((n-1)/2560)+1 cells', () => {
  // loopy's recipe with n left parametric (the run on every device, at several n, is in
  // test_reduction.py.test.ts)
  let knl = addDtypes(makeKernel('{[i]: 0 <= i < n }', 'z[0] = sum(i, a[i])'), { a: 'float32' });
  knl = splitIname(knl, 'i', 128 * 20);
  knl = splitIname(knl, 'i_inner', 128, { innerTag: 'l.0' });
  knl = splitReductionOutward(knl, 'i_outer');
  knl = splitReductionInward(knl, 'i_inner_outer');
  knl = reductionArgToSubstRule(knl, 'i_outer');
  knl = precompute(knl, 'red_i_outer_arg', 'i_outer', { temporaryAddressSpace: 'global' });
  const temp = knl.temporaries.get('red_i_outer_arg_0')!;
  assert.is(temp.addressSpace, 'global');
  assert.equal(
    temp.shape.map((e) => printExpr(e)),
    ['(n - 1) // 2560 + 1'],
  );
  // the store runs over exactly the blocks: 2560*i_outer_0 < n
  assert.match(stringifyKernel(knl), '[n] -> { [i_outer_0] : i_outer_0 >= 0 and 2560i_outer_0 < n }');
});

// }}}

// {{{ ILP over a parametric extent

test('test_ilp_write_race_detection_global', () => {
  const knl = tagInames(
    makeKernel(
      '[n] -> {[i,j]: 0<=i,j<n }',
      'a[i] = 5+i+j',
      [globalArg('a', { dtype: 'float32' }), valueArg('n', 'int32')],
      { assumptions: 'n>=1', name: 'loopy_kernel' },
    ),
    { j: 'ilp' },
  );
  // as loopy: it linearizes, warning that every ILP lane j writes the same a[i]
  const { warnings } = collectWarnings(() => linearizeKernel(knl));
  assert.ok(
    warnings.some((w) => w.category === 'WriteRaceConditionWarning'),
    warnings.map(String).join('\n'),
  );
  // and, as loopy's code generation, ILP lanes need their number: refused there, naming j
  assert.throws(
    () => collectWarnings(() => generateCode(knl, testDevices()[0].target)),
    (e: unknown) => e instanceof KernelCheckError && e.check === 'constant_iname_extent' && e.inames.includes('j'),
  );
});

// }}}

// {{{ sep axes of parametric length, fixed later

for (const device of testDevices()) {
  test(`${device.name}: test_make_copy_kernel`, async () => {
    // loopy passes numpy arrays that carry their shape: here, { data, shape } (row-major, as numpy's)
    const shape = [1024, 4, 3];
    const a1 = copyData(device, 1024 * 4 * 3);
    // the sep axis is n2 long, parametric until fixed
    throwsLoom(
      () => generateCode(makeCopyKernel('f,f,sep'), device.target),
      /axis 2 is tagged 'sep'.*not n2 \(fix it: fixParameters\(knl, \{ n2: \.\.\. \}\)/,
    );
    const cknl1 = fixParameters(makeCopyKernel('f,f,sep'), { n2: 3 });
    const { output: a2 } = await run(cknl1, device, { input: { data: a1, shape } });
    // each piece of a2 is column-major on the device; the caller's array stays row-major
    assert.equal(Array.from(a2 as Float64Array), Array.from(a1));
    const cknl2 = fixParameters(makeCopyKernel('c,c,c', 'f,f,sep'), { n2: 3 });
    const { output: a3 } = await run(cknl2, device, { input: { data: a2 as Float64Array, shape } });
    assert.equal(Array.from(a3 as Float64Array), Array.from(a1));
  });

  test(`${device.name}: test_make_copy_kernel_with_offsets`, async () => {
    const a1 = copyData(device, 3 * 1024 * 4);
    const cknl1 = fixParameters(makeCopyKernel('c,c,c', 'sep,c,c'), { n0: 3 });
    const { output: a2 } = await run(cknl1, device, { input: { data: a1, shape: [3, 1024, 4] } });
    assert.equal(Array.from(a2 as Float64Array), Array.from(a1));
  });
}

// }}}

// {{{ fixed parameters

for (const device of testDevices()) {
  test(`${device.name}: test_fixed_parameters`, async () => {
    const knl = makeKernel('[n] -> {[i]: 0 <= i < n}', '<>tmp[i] = i  {id=init}\ntmp[0] = 0  {dep=init}', undefined, {
      fixedParameters: { n: 1 },
    });
    // n is no argument any more, and the temporary has its fixed size
    assert.equal(
      knl.args.map((a) => a.name),
      [],
    );
    assert.equal(
      knl.temporaries.get('tmp')!.shape.map((e) => printExpr(e)),
      ['1'],
    );
    assert.equal(await run(knl, device, {}), {});
    // the option is fixParameters applied as the kernel is made: the same kernel, and results
    const made = makeKernel('{[i]: 0 <= i < n}', 'out[i] = 2*a[i]', [globalArg('a', { dtype: 'float32' }), '...'], {
      fixedParameters: { n: 5 },
    });
    assert.is(
      stringifyKernel(made),
      stringifyKernel(
        fixParameters(
          makeKernel('{[i]: 0 <= i < n}', 'out[i] = 2*a[i]', [globalArg('a', { dtype: 'float32' }), '...']),
          { n: 5 },
        ),
      ),
    );
    const a = randomFloat32(5, 3);
    const { out } = await run(made, device, { a });
    assertClose(
      out as Float32Array,
      Array.from(a, (x) => 2 * x),
      'out',
      0,
      0,
    );
    throwsLoom(() => makeKernel('{[i]: 0 <= i < n}', 'out[i] = i', undefined, { fixedParameters: { m: 5 } }), /m/);
  });
}

// }}}

test.run();
