/**
 * autoSchedule's space: the reductions across a work-group it always ranks, the climb's moves
 * (work-items between axes, inames exchanging places, tiles double-buffered or copied
 * asynchronously), a convolution's window staged for the tile, and rows that several passes read
 * held in registers; each kind of candidate computes what the kernel as written computes (the
 * trees, the windows and the held rows on every device present, the climb's tiles on the CPU device).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  applySchedule,
  makeKernel,
  run,
  type LoopKernel,
  scheduleScript,
  generateCode,
  fixParameters,
} from '@loom/core';
import { cudaTarget } from '@loom/codegen-cuda';
import { kernel } from '@loom/dsl';
import { openclTarget } from '@loom/codegen-opencl';
import { wgslTarget } from '@loom/codegen-wgsl';
import {
  analyzeKernel,
  enumerateCandidates,
  neighbourCandidates,
} from '../packages/core/src/tune/auto-schedule/space.ts';
import { randomFloat32, testDevices } from './support/devices.ts';
import { cpu, CASES, coreKernel, checkResults } from './support/auto-schedule-cases.ts';

/**
 * The reductions across a work-group the space always ranks: a tree a row a group, several rows a
 * group side by side on l.1, and the tree on l.1 under 32 columns of l.0; each computes batched
 * matrix-vector products, or column sums, at sizes no tile divides, on every device.
 */
interface ReductionCase {
  readonly knl: LoopKernel;
  readonly sizes: Record<string, number>;
  readonly inputs: () => Record<string, Float32Array>;
  readonly reference: (inputs: Record<string, Float32Array>) => number[];
}

const REDUCTIONS = (
  [
    {
      knl: addDtypes(
        makeKernel('{ [l,i,j]: 0<=l<nb and 0<=i<n and 0<=j<m }', 'out[l, i] = sum(j, a[l, i, j]*x[l, j])', undefined, {
          name: 'matvec',
        }),
        { a: 'float32', x: 'float32' },
      ),
      sizes: { nb: 3, n: 37, m: 70 },
      inputs: () => ({ a: randomFloat32(3 * 37 * 70, 7), x: randomFloat32(3 * 70, 8) }),
      reference: ({ a, x }: Record<string, Float32Array>) =>
        Array.from({ length: 3 * 37 }, (_, r) => {
          let s = 0;
          for (let j = 0; j < 70; j++) s += a![r * 70 + j]! * x![Math.floor(r / 37) * 70 + j]!;
          return s;
        }),
    },
    {
      knl: addDtypes(
        makeKernel('{ [j,i]: 0<=i<n and 0<=j<m }', 'out[j] = sum(i, a[i, j])', undefined, { name: 'column_sums' }),
        { a: 'float32' },
      ),
      sizes: { n: 45, m: 70 },
      inputs: () => ({ a: randomFloat32(45 * 70, 9) }),
      reference: ({ a }: Record<string, Float32Array>) =>
        Array.from({ length: 70 }, (_, j) => {
          let s = 0;
          for (let i = 0; i < 45; i++) s += a![i * 70 + j]!;
          return s;
        }),
    },
  ] as ReductionCase[]
).map((r) => ({
  ...r,
  trees: enumerateCandidates(analyzeKernel(r.knl, r.sizes), { candidates: 0, maxGroup: 256 }, 1).filter(
    (c) => c.steps.length > 0,
  ),
}));

test('the trees the space always ranks: a row a group, rows side by side on l.1, the tree on l.1', () => {
  const [matvec, columns] = REDUCTIONS.map((r) => r.trees.map((c) => c.label));
  assert.ok(matvec!.includes('j: a tree over 32 work-items'), matvec!.join('\n'));
  assert.ok(matvec!.includes('j: a tree over 32 work-items, 8 i a group on l.1'), matvec!.join('\n'));
  // no group past the limit: 256 work-items of a tree, or 128 beside 4 rows
  assert.not.ok(
    matvec!.some((l) => /over (256 work-items, \d|128 work-items, [48]) i a group/.test(l)),
    matvec!.join('\n'),
  );
  assert.ok(columns!.includes('i: a tree over 8 work-items of l.1, j over 32 of l.0'), columns!.join('\n'));
});

for (const device of testDevices())
  test(`${device.name}: every tree candidate computes batched matrix-vector products and column sums`, async () => {
    for (const { knl, sizes, inputs, reference, trees } of REDUCTIONS) {
      const data = inputs();
      const want = reference(data);
      for (const c of trees) {
        const { out } = (await run(applySchedule(knl, c.steps), device, { ...data, ...sizes })) as {
          out: Float32Array;
        };
        want.forEach((v, k) => {
          if (!(Math.abs(out[k]! - v) <= 1e-4 * (1 + Math.abs(v))))
            assert.unreachable(`${knl.name}, ${c.label}: out[${k}] is ${out[k]}, not ${v}`);
        });
      }
    }
  });

test("the climb's moves: work-items traded between axes at the same group size, and two inames exchanging places", () => {
  const knl = addDtypes(
    makeKernel('{ [b,i,j,k]: 0<=b<4 and 0<=i,j,k<64 }', 'out[b, i, j] = sum(k, x[b, i, k]*w[k, j])'),
    { x: 'float32', w: 'float32' },
  );
  const analysis = analyzeKernel(knl, {});
  const restrictions = { candidates: 200, maxGroup: 1024 };
  const place = (iname: string, axis: number | undefined, local: number, block: number) => ({
    iname,
    extent: iname === 'b' ? 4 : 64,
    local,
    block,
    ...(axis === undefined ? {} : { axis }),
  });
  const knobs = { placements: [place('j', 0, 16, 2), place('b', 1, 4, 1), place('i', 2, 1, 1)], staged: 16 };
  // (a script is a step a line)
  const scripts = neighbourCandidates(analysis, restrictions, knobs).map((c) =>
    scheduleScript(c.steps).replace(/\n/g, ' '),
  );
  const has = (text: string) => scripts.some((s) => s.includes(text));
  // 16 x 4 work-items become 32 x 2 (8 x 8 would put 8 work-items over b's 4: not offered)
  const traded =
    ".split('j', 64, { outer: 'g.0' }) .split('j_inner', 32, { outer: 'ilp', inner: 'l.0' }) .split('b', 2, { outer: 'g.1', inner: 'l.1' })";
  assert.ok(has(traded), scripts.join('\n'));
  assert.not.ok(has(".split('b', 8, { outer: 'g.1', inner: 'l.1' })"));
  // i and b exchange places: the tile along i, the batch whole on g.2
  assert.ok(has(".split('i', 4, { outer: 'g.1', inner: 'l.1' }) .tag({ b: 'g.2' })"), scripts.join('\n'));
  for (const c of neighbourCandidates(analysis, restrictions, knobs)) applySchedule(knl, c.steps);
});

test("a staged candidate's neighbours include its tiles double-buffered; the script rebuilds that kernel, which computes the product", async () => {
  const c = CASES[0]!;
  const knl = coreKernel(c);
  const analysis = analyzeKernel(knl, c.sizes);
  const restrictions = { candidates: 200, maxGroup: cpu.limits.maxWorkGroupSize };
  const staged = enumerateCandidates(analysis, restrictions, 1).find((x) => (x.knobs?.staged ?? 0) > 0);
  assert.ok(staged?.knobs, 'a staged candidate in the sample');
  const doubled = neighbourCandidates(analysis, restrictions, staged.knobs).find((x) => x.knobs?.doubleBuffered);
  assert.ok(doubled, 'a double-buffered neighbour');
  const script = scheduleScript(doubled.steps);
  assert.match(
    script,
    /\.doubleBuffer\(\['a_fetch', 'b_fetch'\], 'k_outer'\)|\.doubleBuffer\(\['(a|b)_fetch'\], 'k_outer'\)/,
  );
  assert.match(doubled.label, 'double-buffered');
  // one buffer again from there
  assert.ok(
    neighbourCandidates(analysis, restrictions, doubled.knobs!).some((x) => x.knobs && !x.knobs.doubleBuffered),
  );
  const built = applySchedule(knl, doubled.steps);
  assert.ok(built.inames.includes('k_outer_parity'));
  await checkResults(c, built, cpu, doubled.label);
});

test("where the device issues asynchronous copies, a staged candidate's neighbours include its tiles copied so; the script rebuilds it", async () => {
  const c = CASES[0]!;
  const knl = coreKernel(c);
  const analysis = analyzeKernel(knl, c.sizes);
  const restrictions = { candidates: 200, maxGroup: 1024 };
  const staged = enumerateCandidates(analysis, restrictions, 1).find((x) => (x.knobs?.staged ?? 0) > 0);
  assert.ok(staged?.knobs, 'a staged candidate in the sample');
  // not where the device has none (the default restrictions: OpenCL, WebGPU, the CPU device)
  assert.not.ok(neighbourCandidates(analysis, restrictions, staged.knobs).some((x) => x.knobs?.asyncCopies));
  const copied = neighbourCandidates(analysis, { ...restrictions, asyncCopies: true }, staged.knobs).find(
    (x) => x.knobs?.asyncCopies,
  );
  assert.ok(copied, 'a neighbour with asynchronous copies');
  assert.match(scheduleScript(copied.steps), /\.asyncCopies\(\['(a|b)_fetch'(, '(a|b)_fetch')?\]\)/);
  assert.match(copied.label, 'async');
  const built = applySchedule(knl, copied.steps);
  assert.ok(built.instructions.some((i) => i.asyncCopy));
  // CUDA issues them (cp.async); the CPU device completes them at once, and the product is right
  assert.match(generateCode(fixParameters(built, c.sizes), cudaTarget()).code, 'loom_copy_async_');
  await checkResults(c, built, cpu, copied.label);
});

test("a double-buffered, asynchronously copied candidate's neighbours fill 3 and 4 buffers; the script rebuilds the pipeline", async () => {
  const c = CASES[0]!;
  const knl = coreKernel(c);
  const analysis = analyzeKernel(knl, c.sizes);
  const restrictions = { candidates: 200, maxGroup: 1024, asyncCopies: true };
  const staged = enumerateCandidates(analysis, restrictions, 1).find((x) => (x.knobs?.staged ?? 0) > 0);
  assert.ok(staged?.knobs, 'a staged candidate in the sample');
  // one buffer, or two without asynchronous copies: no pipeline offered (its later steps could not stay in flight)
  assert.not.ok(neighbourCandidates(analysis, restrictions, staged.knobs).some((x) => x.knobs?.stages));
  const doubled = { ...staged.knobs, doubleBuffered: true };
  assert.not.ok(neighbourCandidates(analysis, restrictions, doubled).some((x) => x.knobs?.stages));
  const pipelines = neighbourCandidates(analysis, restrictions, { ...doubled, asyncCopies: true }).filter(
    (x) => x.knobs?.stages,
  );
  assert.equal(pipelines.map((x) => x.knobs!.stages).sort(), [3, 4]);
  const three = pipelines.find((x) => x.knobs!.stages === 3)!;
  assert.match(scheduleScript(three.steps), /\.doubleBuffer\(\[[^\]]*\], 'k_outer', \{ stages: 3 \}\)/);
  assert.match(three.label, '3 buffers async');
  // and back to two from there
  assert.ok(
    neighbourCandidates(analysis, restrictions, three.knobs!).some((x) => x.knobs?.doubleBuffered && !x.knobs.stages),
  );
  const built = applySchedule(knl, three.steps);
  // CUDA leaves two steps' copies in flight at each barrier; the CPU device computes the product
  assert.match(generateCode(fixParameters(built, c.sizes), cudaTarget()).code, 'loom_copy_async_wait_leaving_1');
  await checkResults(c, built, cpu, three.label);
});

/** A 3 x 3 filter over an (n+2) x (m+2) image: reductions over a window of taps, no single reduction iname. */
const CONVOLUTION = (() => {
  const knl = addDtypes(
    makeKernel(
      '{ [i,j,di,dj]: 0<=i<n and 0<=j<m and 0<=di,dj<3 }',
      'out[i, j] = sum((di, dj), w[di, dj]*a[i + di, j + dj])',
      undefined,
      {
        name: 'conv',
      },
    ),
    { a: 'float32', w: 'float32' },
  );
  const sizes = { n: 21, m: 38 };
  const a = randomFloat32((sizes.n + 2) * (sizes.m + 2), 11);
  const w = randomFloat32(9, 12);
  const want = Array.from({ length: sizes.n * sizes.m }, (_, k) => {
    const i = Math.floor(k / sizes.m);
    const j = k % sizes.m;
    let s = 0;
    for (let t = 0; t < 9; t++) s += w[t]! * a[(i + Math.floor(t / 3)) * (sizes.m + 2) + j + (t % 3)]!;
    return s;
  });
  return { knl, sizes, a, w, want };
})();

test("a convolution's taps make a window: the space stages the filter and the tile's image, halo included, or reads them where they are", () => {
  const { knl, sizes } = CONVOLUTION;
  const analysis = analyzeKernel(knl, sizes);
  assert.equal(
    analysis.window?.inames.map((w) => `${w.iname}:${w.extent}`),
    ['di:3', 'dj:3'],
  );
  const restrictions = { candidates: 400, maxGroup: 256 };
  const all = enumerateCandidates(analysis, restrictions, 1);
  const staged = all.filter((c) => c.knobs?.window);
  assert.ok(staged.length > 0 && staged.length < all.length, `${staged.length} of ${all.length} staged`);
  const script = scheduleScript(staged[0]!.steps);
  assert.match(script, /\.prefetch\('w', \['di', 'dj'\]/);
  assert.match(script, /\.prefetch\('a', \[[^\]]*'di'[^\]]*'dj'/);
  // the 3 x 3 taps left to CUDA's compiler, which unrolls such loops where that pays; unrolled
  // for WGSL, whose compilers keep them loops, as a hand-written convolution reads its tile
  assert.equal(analyzeKernel(knl, sizes, cudaTarget()).window?.unrollTaps, false);
  assert.not.match(script, /'unr', dj: 'unr'/);
  const forWgsl = enumerateCandidates(analyzeKernel(knl, sizes, wgslTarget()), restrictions, 1).find(
    (c) => c.knobs?.window,
  );
  assert.match(scheduleScript(forWgsl!.steps), /\.tag\(\{ di: 'unr', dj: 'unr' \}\)/);
  // the neighbours read them where they are again, and stage nothing without the option
  assert.ok(neighbourCandidates(analysis, restrictions, staged[0]!.knobs!).some((c) => !c.knobs?.window));
  const unstaged = enumerateCandidates(analysis, { ...restrictions, localMemory: false }, 1);
  assert.not.ok(unstaged.some((c) => c.knobs?.window || scheduleScript(c.steps).includes('prefetch')));
});

for (const device of testDevices())
  test(`${device.name}: window-staged convolutions compute what the kernel as written computes`, async () => {
    const { knl, sizes, a, w, want } = CONVOLUTION;
    // the taps unrolled where the device's compilers would not (its WGSL), loops elsewhere
    const analysis = analyzeKernel(knl, sizes, device.target);
    const staged = enumerateCandidates(analysis, { candidates: 400, maxGroup: 256 }, 1).filter((c) => c.knobs?.window);
    // one with register blocks on both axes, one without, one with an iname whole on a group axis
    const blocked = staged.find((c) => c.knobs!.placements.every((p) => p.axis === undefined || p.block > 1));
    const plain = staged.find((c) => c.knobs!.placements.every((p) => p.block === 1 && p.local > 1));
    const whole = staged.find((c) => c.knobs!.placements.some((p) => p.axis !== undefined && p.local === 1));
    for (const c of [blocked, plain, whole]) {
      assert.ok(c, 'a candidate of each kind');
      const { out } = (await run(applySchedule(knl, c.steps), device, { a, w, ...sizes })) as { out: Float32Array };
      want.forEach((v, k) => {
        if (!(Math.abs(out[k]! - v) <= 1e-4 * (1 + Math.abs(v))))
          assert.unreachable(`${c.label}: out[${k}] is ${out[k]}, not ${v}`);
      });
    }
  });

/**
 * Kernels whose passes over a row read it alike: softmax (maximum, sum of exponentials,
 * quotients) and a row normalisation (mean, variance, the normalised values), rows of 256 and 192.
 */
const PASSES = [
  {
    name: 'softmax',
    domain: '{ [i,j,k,l]: 0<=i<n and 0<=j,k,l<m }',
    code: `mx[i] = max(k, x[i, k]) {id=mx}
           s[i] = sum(l, exp(x[i, l] - mx[i])) {id=s, dep=mx}
           y[i, j] = exp(x[i, j] - mx[i]) / s[i] {dep=s}`,
    sizes: { n: 5, m: 256 },
    reference: (row: Float32Array) => {
      const mx = Math.max(...row);
      const s = row.reduce((t, v) => t + Math.exp(v - mx), 0);
      return Array.from(row, (v) => Math.exp(v - mx) / s);
    },
  },
  {
    name: 'normalise',
    domain: '{ [i,j,k,l]: 0<=i<n and 0<=j,k,l<m }',
    code: `mu[i] = sum(k, x[i, k]) / m {id=mu}
           v[i] = sum(l, (x[i, l] - mu[i])**2) / m {id=v, dep=mu}
           y[i, j] = (x[i, j] - mu[i]) / sqrt(v[i] + 1e-5) {dep=v}`,
    sizes: { n: 3, m: 192 },
    reference: (row: Float32Array) => {
      const mu = row.reduce((t, v) => t + v, 0) / row.length;
      const v = row.reduce((t, x) => t + (x - mu) ** 2, 0) / row.length;
      return Array.from(row, (x) => (x - mu) / Math.sqrt(v + 1e-5));
    },
  },
].map((p) => {
  const results = p.name === 'softmax' ? ['mx', 's'] : ['mu', 'v'];
  const dtypes = Object.fromEntries(['x', 'y', ...results].map((n) => [n, 'float32' as const]));
  const written = kernel(p.domain, p.code, { name: p.name }).apply((k) => addDtypes(k, dtypes));
  const builder = written.fix(p.sizes);
  return { ...p, written: written.kernel, builder, knl: builder.kernel };
});

test('rows several passes read alike are held in registers: one read of x a row, a step of the group apart; the script rebuilds the kernel', () => {
  for (const { knl, sizes, builder, name } of PASSES) {
    const analysis = analyzeKernel(knl, sizes);
    assert.equal(
      analysis.heldRows?.reads.map((r) => `${r.array}: ${r.rows.join(', ')}`),
      ['x: j, k, l'],
      name,
    );
    const held = enumerateCandidates(analysis, { candidates: 0, maxGroup: 256 }, 1).filter((c) =>
      c.label.includes('held'),
    );
    // a work-item holds at most 16 elements of a row, of a group of 32 or more that divides it
    const groups = held.map((c) => Number(/over (\d+) work-items/.exec(c.label)![1]));
    assert.equal(groups, name === 'softmax' ? [32, 64, 128, 256] : [32, 64], name);
    const script = scheduleScript(held[0]!.steps);
    assert.match(script, ".renameInames(['j_inner', 'k_inner', 'l_inner'], 'j_lane')");
    assert.match(script, ".extractSubst('x_row', 'x[i, 32*x_step + j_lane]', ['x_step'])");
    // the row's results (softmax's maximum and sum, the mean and variance) kept in registers
    for (const result of name === 'softmax' ? ['mx', 's'] : ['mu', 'v'])
      assert.match(script, `.bufferArray('${result}', { temporaryAddressSpace: 'private', initExpression: '0' })`);
    const scheduled = applySchedule(knl, held[0]!.steps);
    assert.is(applyScript(builder, script).kernel.toString(), scheduled.toString());
    // x read once, from registers by every pass: the OpenCL C reads global x only in the fill
    const code = generateCode(scheduled, openclTarget()).code;
    assert.is(code.match(/\bx\[/g)?.length, sizes.m / 32, code);
  }
  // a kernel with one pass over its rows holds nothing
  const rowSums = addDtypes(makeKernel('{ [i,j]: 0<=i<n and 0<=j<m }', 's[i] = sum(j, a[i, j])'), { a: 'float32' });
  assert.is(analyzeKernel(rowSums, { n: 4, m: 256 }).heldRows, undefined);
  // nor an array the kernel writes too: softmax in place, each pass reading what the last may have written
  const inPlace = addDtypes(
    makeKernel(
      '{ [i,j,k,l]: 0<=i<n and 0<=j,k,l<m }',
      `mx[i] = max(k, x[i, k]) {id=mx}
       s[i] = sum(l, exp(x[i, l] - mx[i])) {id=s, dep=mx}
       x[i, j] = exp(x[i, j] - mx[i]) / s[i] {dep=s}`,
    ),
    { x: 'float32', mx: 'float32', s: 'float32' },
  );
  assert.is(analyzeKernel(inPlace, { n: 4, m: 256 }).heldRows, undefined);
  // a result written under a condition keeps its global array (a buffer would store 0 where it was not written)
  const guarded = addDtypes(
    makeKernel(
      '{ [i,j,k,l]: 0<=i<n and 0<=j,k,l<m }',
      `mx[i] = max(k, x[i, k]) {id=mx}
       if i > 0
         s[i] = sum(l, exp(x[i, l] - mx[i])) {id=s, dep=mx}
       end
       y[i, j] = exp(x[i, j] - mx[i]) / s[i] {dep=s}`,
    ),
    { x: 'float32', mx: 'float32', s: 'float32' },
  );
  assert.equal(analyzeKernel(guarded, { n: 4, m: 256 }).heldRows?.results, ['mx']);
  assert.equal(analyzeKernel(PASSES[0]!.knl, PASSES[0]!.sizes).heldRows?.results, ['mx', 's']);
  // nor where no group of 32 to 256 work-items divides the row
  const odd = fixParameters(PASSES[0]!.written, { n: 5, m: 250 });
  assert.not.ok(
    enumerateCandidates(analyzeKernel(odd, {}), { candidates: 0, maxGroup: 256 }, 1).some((c) =>
      c.label.includes('held'),
    ),
  );
});

for (const device of testDevices())
  test(`${device.name}: rows held in registers compute softmax and normalised rows as the kernels as written`, async () => {
    for (const { knl, sizes, reference, name } of PASSES) {
      const x = randomFloat32(sizes.n * sizes.m, 13);
      const want = Array.from({ length: sizes.n }, (_, i) =>
        reference(x.subarray(i * sizes.m, (i + 1) * sizes.m)),
      ).flat();
      const held = enumerateCandidates(
        analyzeKernel(knl, sizes, device.target),
        { candidates: 0, maxGroup: 256 },
        1,
      ).filter((c) => c.label.includes('held'));
      assert.ok(held.length > 0, name);
      for (const c of held) {
        const results = knl.args
          .filter((a) => a.name !== 'x' && a.name !== 'y')
          .map((a) => [a.name, new Float32Array(sizes.n)]);
        const { y } = (await run(applySchedule(knl, c.steps), device, { x, ...Object.fromEntries(results) })) as {
          y: Float32Array;
        };
        want.forEach((v, k) => {
          if (!(Math.abs(y[k]! - v) <= 1e-4 * (1 + Math.abs(v))))
            assert.unreachable(`${name}, ${c.label}: y[${k}] is ${y[k]}, not ${v}`);
        });
      }
    }
  });

const applyScript = <B>(b: B, script: string): B => new Function('k', `return k${script}`)(b) as B;

test.run();
