/**
 * Every kernel of the examples and of the tutorial tests, built without touching a
 * device, each under a stable id: what the golden test (test/golden.test.ts) pins the
 * generated code of, and what a refactoring of code generation is checked against.
 *
 * The examples are scripts that run their kernels as they go, so their kernels are
 * rebuilt here, transformation for transformation (examples/matmul.ts exports its
 * recipe, which is used as is). When an example changes its kernels, change them here:
 * the golden files then show what the change does to the code.
 */
import {
  addDtypes,
  addPrefetch,
  fieldArray,
  globalArg,
  makeKernel,
  prioritizeLoops,
  saveAndReloadTemporaries,
  setOptions,
  splitIname,
  structDType,
  tagArrayAxes,
  tagInames,
  temporaryVariable,
  cInstruction,
  type CodegenOptions,
  type DType,
  type LoopKernel,
  type Target,
} from '@loom/core';
import { openclTarget } from '@loom/codegen-opencl';
import { f32, kernel } from '@loom/dsl';
import { empty, pointwise, tensor } from '@loom/elementwise';
import { DEFAULT_MATMUL, matmulKernel, type MatmulConfig } from '../../examples/matmul.ts';
import { imageKernel } from './image-kernels.ts';

export interface GoldenKernel {
  /** A file name stem: `group/name`. */
  readonly id: string;
  /** Typed: every argument's dtype is known, so code can be generated for it. */
  readonly kernel: LoopKernel;
  /** How to generate it (default: as `generateCode` does). */
  readonly options?: CodegenOptions;
  /** More targets than every kernel's, each with the file extension its code is kept under (`ptx.cl`). */
  readonly variants?: readonly (readonly [string, Target])[];
}

/** The kernels of test/tutorial-kernels.test.ts (which builds them from here), untyped as the test runs them. */
export const tutorialKernels = {
  double: () => makeKernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]'),
  wrongTransposeAndDouble: () =>
    prioritizeLoops(
      makeKernel(
        '{ [i,j]: 0<=i,j<n }',
        `
      out[j,i] = a[i,j] {id=transpose}
      out[i,j] = 2*out[i,j] {dep=transpose}
      `,
        [globalArg('out', { shape: 'auto', isInput: false }), '...'],
        { name: 'transpose_and_dbl' },
      ),
      'i,j',
    ),
  transposeAndDouble: () =>
    prioritizeLoops(
      prioritizeLoops(
        makeKernel(
          '{ [i,j,ii,jj]: 0<=i,j,ii,jj<n }',
          `
      out[j,i] = a[i,j] {id=transpose}
      out[ii,jj] = 2*out[ii,jj] {dep=transpose}
      `,
          [globalArg('out', { shape: 'auto', isInput: false }), '...'],
        ),
        'i,j',
      ),
      'ii,jj',
    ),
  zeroFill: () => prioritizeLoops(makeKernel('{ [i,j]: 0<=i,j<n }', 'a[i,j] = 0'), 'j,i'),
  matvec: () => makeKernel('{ [i,k]: 0<=i<n and 0<=k<m }', 'y[i] = sum(k, A[i,k]*x[k])'),
  intReductions: () =>
    makeKernel(
      '{ [i,k]: 0<=i<n and 0<=k<4 }',
      `
      pr[i] = product(k, a[i,k])
      mx[i] = max(k, a[i,k])
      mn[i] = min(k, a[i,k])
    `,
    ),
  temporaries: () =>
    makeKernel(
      '{ [i]: 0<=i<n }',
      `
      <> t = a[i] * a[i]
      <float32> u = t + 1
      out[i] = u / 2
    `,
    ),
  triangular: () =>
    makeKernel('{ [i,j]: 0<=j<=i<n }', 'out[i,j] = a[i] + j', [
      globalArg('out', { shape: ['n', 'n'], isInput: false, dtype: 'float32' }),
      '...',
    ]),
  everyThird: () =>
    makeKernel('{ [i]: 0<=i<n and i mod 3 = 0 }', 'out[i] = 1', [
      globalArg('out', { shape: ['n'], dtype: 'int32', isInput: false }),
      '...',
    ]),
  evens: () =>
    makeKernel('{ [i]: 0<=i<n and (exists l: i = 2*l) }', 'out[i] = i', [
      globalArg('out', { shape: ['n'], dtype: 'int32', isInput: false }),
      '...',
    ]),
  intArithmetic: () => makeKernel('{ [i]: 0<=i<n }', 'out[i] = 3*a[i] - b[i] // 2 + b[i] % 3'),
  float64Sqrt: () => makeKernel('{ [i]: 0<=i<n }', 'out[i] = sqrt(a[i]) * 0.1'),
};

export function goldenKernels(): GoldenKernel[] {
  return [
    ...tutorialTests(),
    ...tutorialExample(),
    ...transformationsExample(),
    ...matmulExample(),
    ...dslExample(),
    ...pointwiseExample(),
    ...features(),
  ];
}

const typed = (knl: LoopKernel, dtypes: Record<string, DType>) => addDtypes(knl, dtypes);

function tutorialTests(): GoldenKernel[] {
  const t = tutorialKernels;
  const f = { a: 'float32' } as const;
  return [
    { id: 'tutorial-tests/double', kernel: typed(t.double(), f) },
    { id: 'tutorial-tests/wrong-transpose-and-double', kernel: typed(t.wrongTransposeAndDouble(), f) },
    { id: 'tutorial-tests/transpose-and-double', kernel: typed(t.transposeAndDouble(), f) },
    { id: 'tutorial-tests/zero-fill', kernel: typed(t.zeroFill(), f) },
    { id: 'tutorial-tests/matvec', kernel: typed(t.matvec(), { A: 'float32', x: 'float32' }) },
    { id: 'tutorial-tests/int-reductions', kernel: typed(t.intReductions(), { a: 'int32' }) },
    { id: 'tutorial-tests/temporaries', kernel: typed(t.temporaries(), f) },
    { id: 'tutorial-tests/triangular', kernel: typed(t.triangular(), f) },
    { id: 'tutorial-tests/every-third', kernel: t.everyThird() },
    { id: 'tutorial-tests/evens', kernel: t.evens() },
    { id: 'tutorial-tests/int-arithmetic', kernel: typed(t.intArithmetic(), { a: 'int32', b: 'int32' }) },
    { id: 'tutorial-tests/float64-sqrt', kernel: typed(t.float64Sqrt(), { a: 'float64' }) },
  ];
}

/** examples/tutorial.ts: the same kernels as the tutorial tests, the zero fill with writeCode off. */
function tutorialExample(): GoldenKernel[] {
  const t = tutorialKernels;
  return [
    {
      id: 'tutorial/zero-fill-options',
      kernel: typed(setOptions(t.zeroFill(), { writeCode: false }), { a: 'float32' }),
    },
  ];
}

/** examples/transformations.ts. */
function transformationsExample(): GoldenKernel[] {
  const f = { a: 'float32' } as const;
  const fill = (assumptions: string) => makeKernel('{ [i]: 0<=i<n }', 'a[i] = 0', undefined, { assumptions });
  let tiled = makeKernel('{ [i,j]: 0<=i,j<n }', 'out[i,j] = a[j,i]', undefined, {
    assumptions: 'n mod 16 = 0 and n >= 1',
  });
  tiled = prioritizeLoops(splitIname(splitIname(tiled, 'i', 16), 'j', 16), 'i_outer,j_outer,i_inner,j_inner');
  const localTemp = tagInames(
    makeKernel(
      '{ [i_outer,i_inner, k]: 0<= 16*i_outer + i_inner <n and 0<= i_inner,k <16}',
      `
  <> a_temp[i_inner] = a[16*i_outer + i_inner] {priority=10}
  out[16*i_outer + i_inner] = sum(k, a_temp[k])
`,
    ),
    { i_outer: 'g.0', i_inner: 'l.0' },
  );
  const prefetched = tagInames(
    makeKernel(
      '{ [i_outer,i_inner, k]: 0<= 16*i_outer + i_inner <n and 0<= i_inner,k <16}',
      'out[16*i_outer + i_inner] = sum(k, a[16*i_outer + i_inner])',
    ),
    { i_outer: 'g.0', i_inner: 'l.0' },
  );
  const rotate = splitIname(
    makeKernel(
      '[n] -> {[i] : 0<=i<n}',
      `
  for i
    <>tmp = arr[i] {id=maketmp,dep=*}
    ... gbarrier {id=bar,dep=*maketmp}
    arr[(i + 1) % n] = tmp {id=rotate,dep=*bar}
  end`,
      [globalArg('arr', { shape: ['n'], dtype: 'int32' }), '...'],
      { name: 'rotate_v2', assumptions: 'n mod 16 = 0' },
    ),
    'i',
    16,
    { innerTag: 'l.0', outerTag: 'g.0' },
  );
  let hist = makeKernel(
    '{ [i]: 0<=i<n }',
    'out[i%20] = out[i%20] + 2*a[i] {atomic}',
    [
      globalArg('out', { dtype: 'float32', shape: [20], forAtomic: true }),
      globalArg('a', { dtype: 'float32', shape: 'auto' }),
      '...',
    ],
    { assumptions: 'n>0' },
  );
  hist = splitIname(hist, 'i', 64, { outerTag: 'g.0', innerTag: 'l.0' });
  // loopy's test_atomic_load: atomic stores and loads of a local forAtomic counter and a global array
  const counter = makeKernel(
    '{ [j]: 0<=j<10 }',
    `for j
       temp = 0 {id=init, atomic}
       ... lbarrier {id=lb1, dep=init}
       temp = temp + 1 {id=temp_sum, dep=lb1, atomic}
       ... lbarrier {id=lb2, dep=temp_sum}
       out[j] = temp {id=final, dep=lb2, atomic=init, nosync=init:temp_sum}
     end`,
    [
      globalArg('out', { dtype: 'float32', shape: [10], forAtomic: true }),
      temporaryVariable('temp', { dtype: 'float32', forAtomic: true, addressSpace: 'local' }),
      '...',
    ],
    { silencedWarnings: ['write_race(temp_sum)', 'write_race(init)'] },
  );
  // loopy's test_c_instruction: C code as given, where the target compiles C (refused elsewhere)
  const cCode = makeKernel(
    '{[i,j]: 0<=i,j<n }',
    [cInstruction('i,j', 'x = sin((float) i*j);', { assignees: 'x' }), 'a[i,j] = x'],
    [globalArg('a', { shape: 'auto', dtype: 'float32' }), temporaryVariable('x', { dtype: 'float32' }), '...'],
    { assumptions: 'n>=1' },
  );
  let mm = makeKernel('{ [i,j,k]: 0<=i<n and 0<=j<n and 0<=k<n }', 'c[i, j] = sum(k, a[i, k]*b[k, j])', undefined, {
    assumptions: 'n >= 1',
  });
  mm = splitIname(mm, 'i', 16, { outerTag: 'g.1', innerTag: 'l.1' });
  mm = splitIname(mm, 'j', 16, { outerTag: 'g.0', innerTag: 'l.0' });
  mm = splitIname(mm, 'k', 16);
  mm = addPrefetch(mm, 'a', ['k_inner', 'i_inner'], { defaultTag: 'l.auto' });
  mm = addPrefetch(mm, 'b', ['j_inner', 'k_inner'], { defaultTag: 'l.auto' });
  mm = prioritizeLoops(mm, 'k_outer,k_inner');
  return [
    {
      id: 'transformations/split',
      kernel: typed(prioritizeLoops(splitIname(fill('n>=1'), 'i', 16), 'i_outer,i_inner'), f),
    },
    {
      id: 'transformations/split-inner-outside',
      kernel: typed(prioritizeLoops(splitIname(fill('n>=1'), 'i', 16), 'i_inner,i_outer'), f),
    },
    { id: 'transformations/tiled-transpose', kernel: typed(tiled, f) },
    {
      id: 'transformations/unrolled-mod-4',
      kernel: typed(
        prioritizeLoops(
          tagInames(splitIname(fill('n>=0 and n mod 4 = 0'), 'i', 4), { i_inner: 'unr' }),
          'i_outer,i_inner',
        ),
        f,
      ),
    },
    {
      id: 'transformations/unrolled-guards',
      kernel: typed(
        prioritizeLoops(tagInames(splitIname(fill('n>=0'), 'i', 4), { i_inner: 'unr' }), 'i_outer,i_inner'),
        f,
      ),
    },
    {
      id: 'transformations/slabs',
      kernel: typed(
        prioritizeLoops(splitIname(fill('n>=0'), 'i', 4, { slabs: [0, 1], innerTag: 'unr' }), 'i_outer,i_inner'),
        f,
      ),
    },
    {
      id: 'transformations/parallel-fill',
      kernel: typed(splitIname(fill('n>=0'), 'i', 128, { outerTag: 'g.0', innerTag: 'l.0' }), f),
    },
    { id: 'transformations/local-temporary', kernel: typed(localTemp, f) },
    { id: 'transformations/prefetch-no-sweep', kernel: typed(addPrefetch(prefetched, 'a'), f) },
    {
      id: 'transformations/prefetch-across-i-inner',
      kernel: typed(addPrefetch(prefetched, 'a', ['i_inner'], { defaultTag: 'l.0' }), f),
    },
    { id: 'transformations/rotate-saved', kernel: saveAndReloadTemporaries(rotate) },
    { id: 'transformations/atomic-histogram', kernel: hist },
    { id: 'transformations/atomic-load', kernel: tagInames(counter, { j: 'l.0' }) },
    { id: 'transformations/c-instruction', kernel: splitIname(cCode, 'i', 128, { outerTag: 'g.0', innerTag: 'l.0' }) },
    { id: 'transformations/tiled-matmul', kernel: typed(mm, { a: 'float32', b: 'float32' }) },
  ];
}

/** examples/matmul.ts: the configurations its main() checks, at n = 128. */
function matmulExample(): GoldenKernel[] {
  const configs: [string, MatmulConfig][] = [
    ['default', DEFAULT_MATMUL],
    ['blocked-unrolled', { ...DEFAULT_MATMUL, layout: 'blocked', unrollK: true }],
    [
      '128x64-8x4',
      { tileM: 128, tileN: 64, tileK: 16, regM: 8, regN: 4, layout: 'strided', prefetch: true, unrollK: true },
    ],
    ['no-prefetch', { ...DEFAULT_MATMUL, prefetch: false }],
    ['float4', { ...DEFAULT_MATMUL, vectorWidth: 4, vectorReads: true }],
  ];
  return configs.map(([name, config]) => ({
    id: `matmul/${name}`,
    kernel: typed(matmulKernel(config, 128), { a: 'float32', b: 'float32' }),
  }));
}

/** examples/tutorial-dsl.ts: its builders, the template kernels written with literal strings. */
function dslExample(): GoldenKernel[] {
  const doubleF32 = kernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]').args({ a: f32('n'), out: f32.out('n') });
  const matmul = kernel('{ [i,j,k]: 0<=i<n and 0<=j<m and 0<=k<l }', 'c[i, j] = sum(k, a[i, k]*b[k, j])', {
    name: 'matmul',
    assumptions: 'n >= 1 and m >= 1 and l >= 1',
  })
    .args({ a: f32('n', 'l'), b: f32('l', 'm'), c: f32.out('n', 'm') })
    .tile('i', 'j', 16, 16, { outer: 'g', inner: 'l' })
    .split('k', 16)
    .prefetch('a', ['k_inner', 'i_inner'], { defaultTag: 'l.auto' })
    .prefetch('b', ['j_inner', 'k_inner'], { defaultTag: 'l.auto' })
    .prioritize('k_outer,k_inner');
  const scaled = kernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]', { name: 'scaled' }).dtypes({ a: 'float32' });
  return [
    { id: 'dsl/double', kernel: doubleF32.kernel },
    { id: 'dsl/scaled', kernel: scaled.kernel },
    { id: 'dsl/split-and-tagged', kernel: doubleF32.split('i', 128, { outer: 'g.0', inner: 'l.0' }).kernel },
    {
      id: 'dsl/unrolled',
      kernel: doubleF32.assume('n mod 4 = 0').split('i', 4, { inner: 'unr' }).prioritize('i_outer,i_inner').kernel,
    },
    { id: 'dsl/tiled-matmul', kernel: matmul.kernel },
  ];
}

/**
 * examples/pointwise.ts: the variants its calls run, from `plan()` (which generates no code and
 * launches nothing; the tensors it needs live on the CPU device).
 */
function pointwiseExample(): GoldenKernel[] {
  const abs = pointwise({ promotionMethods: [[0, 'COMPLEX_TO_FLOAT']] }, (x: number) => Math.abs(x));
  const add = pointwise(
    {
      isTensor: [true, true, false],
      dtypes: [null, null, 'float'],
      promotionMethods: [[0, 1, 'DEFAULT']],
      name: 'add',
    },
    (x: number, y: number, alpha: number) => x + y * alpha,
  );
  const polar = pointwise(
    {
      promotionMethods: [
        [[0, 1], 'DEFAULT'],
        [[0, 1], 'DEFAULT'],
      ],
      numOutputs: 2,
      name: 'polar',
    },
    (magnitude: number, angle: number) => [magnitude * Math.cos(angle), magnitude * Math.sin(angle)],
  );
  const copy = pointwise({ promotionMethods: [[0, 'DEFAULT']], name: 'copy' }, (x: number) => x);
  const a = tensor(new Float32Array(8 * 4), [8, 4]);
  const b = tensor(new Float32Array(4), [4]);
  const z = tensor([
    { re: 3, im: 4 },
    { re: 0, im: -1 },
  ]);
  const flipped = a.flip(0, 1);
  return [
    { id: 'pointwise/abs-complex64', kernel: abs.plan(z).kernel },
    { id: 'pointwise/add-broadcast', kernel: add.plan(a, b, 0.2).kernel },
    { id: 'pointwise/polar', kernel: polar.plan(a, b).kernel },
    { id: 'pointwise/add-in-place', kernel: add.plan(a, b, -0.2, { out0: a }).kernel },
    { id: 'pointwise/copy-flipped', kernel: copy.plan(flipped, { out0: empty(a.shape, { dtype: a.dtype }) }).kernel },
  ];
}

/**
 * Not from the examples: what code generation does beyond them and the run-time side relies
 * on — `sep` axes (one device array per index), `vec` axes and a `vec` loop (one vector
 * statement), names a target reserves, the bounds-check flag buffer, float16 arithmetic, and
 * a work-group sized at launch (`l.0` over n: no reqd_work_group_size, WGSL's `override`),
 * image arguments (OpenCL images, WGSL textures, arrays elsewhere, CUDA's refusal), and a local
 * array sized at launch (OpenCL's __local argument, CUDA's dynamic shared memory, WGSL's
 * override-sized workgroup array, a C variable-length array, the launcher's typed array).
 */
function features(): GoldenKernel[] {
  const separate = makeKernel(
    '{ [i,j]: 0<=i<n and 0<=j<2 }',
    `
    out[i, 0] = a[0, i] + a[1, i]
    out[i, 1] = a[0, i] - a[1, i]
    swapped[j, i] = a[1 - j, i]
  `,
  );
  const vector = makeKernel('{ [i,k]: 0<=i<n and 0<=k<4 }', 'out[i, k] = 2*a[i, k] + a[i, 3 - k]');
  const vectorLoop = tagInames(
    tagArrayAxes(
      tagArrayAxes(makeKernel('{ [i,k]: 0<=i<n and 0<=k<4 }', 'out[i, k] = 2*a[i, k] + b[i, k]'), 'a,b', 'c,vec'),
      'out',
      'c,vec',
    ),
    {
      k: 'vec',
    },
  );
  const parametric = tagInames(makeKernel('{ [i,j]: 0<=i<n and 0<=j<m }', 'out[j, i] = 2*a[j, i]'), {
    i: 'l.0',
    j: 'g.0',
  });
  // loopy's test_variable_size_temporary in local memory: each group's 4 rows of a (4*n floats)
  const rows = splitIname(makeKernel('{ [i,j]: 0<=i,j<n }', 'out[i] = sum(j, a[i,j])'), 'i', 4, {
    outerTag: 'g.0',
    innerTag: 'l.0',
  });
  const localRows = addPrefetch(typed(rows, { a: 'float32' }), 'a', ['i_inner', 'j'], {
    temporaryAddressSpace: 'local',
    defaultTag: 'l.auto',
  });
  const half = makeKernel('{ [i]: 0<=i<n }', ['<> t = a[i] * b[i] + 1', 'out[i] = sqrt(t) + a[i] // b[i]']);
  const reserved = makeKernel(
    '{[int]:0<=int<n}',
    ['int_[int] = 2*this[int]', 'float[int] = int_[int] + kernel[int]'],
    undefined,
    { name: 'kernel' },
  );
  const gather = splitIname(
    makeKernel('{ [i]: 0<=i<n }', 'out[i] = a[idx[i]]', [
      globalArg('idx', { dtype: 'int32', shape: ['n'] }),
      globalArg('a', { dtype: 'float32', shape: ['m'] }),
      '...',
    ]),
    'i',
    64,
    { outerTag: 'g.0', innerTag: 'l.0' },
  );
  // an array of structs with a nested struct and an array field, read and written field by field
  const point = structDType('point', [
    ['x', 'float32'],
    ['y', 'float32'],
  ]);
  const particle = structDType('particle', [
    ['id', 'uint32'],
    ['at', point],
    ['w', fieldArray('int32', 3)],
  ]);
  const structs = splitIname(
    makeKernel(
      '{ [i]: 0<=i<n }',
      ['out[i].at.x = p[i].at.y * p[i].w[2] {id=x}', 'out[i].id = p[i].id + 1 {id=id, nosync_query=writes:out}'],
      [globalArg('p', { dtype: particle, shape: ['n'] }), globalArg('out', { dtype: particle, shape: ['n'] }), '...'],
    ),
    'i',
    64,
    { outerTag: 'g.0', innerTag: 'l.0' },
  );
  // every subgroup function, over work-groups of whole warps; OpenCL also in NVIDIA's PTX spelling
  const subgroups = tagInames(
    makeKernel(
      '{ [g, l]: 0<=g<n and 0<=l<64 }',
      [
        '<> x = a[64*g + l]',
        'sum[64*g + l] = subgroupAdd(x) + subgroupMin(x) * subgroupMax(x)',
        'scan[64*g + l] = subgroupInclusiveAdd(x) - subgroupExclusiveAdd(x)',
        'moved[64*g + l] = subgroupShuffle(x, subgroupSize() - 1 - subgroupLocalId()) + subgroupShuffleXor(x, 2) + subgroupBroadcast(x, 0)',
        'ids[64*g + l] = subgroupId()',
      ],
      [globalArg('a', { dtype: 'float32', shape: ['64*n'] }), '...'],
    ),
    { g: 'g.0', l: 'l.0' },
  );
  return [
    {
      id: 'features/subgroups',
      kernel: subgroups,
      variants: [['ptx.cl', openclTarget({ subgroups: 'nvidia-ptx' })]],
    },
    { id: 'features/struct-arrays', kernel: structs },
    {
      id: 'features/sep-axes',
      kernel: typed(
        tagArrayAxes(tagArrayAxes(tagArrayAxes(separate, 'a', 'sep,c'), 'out', 'c,sep'), 'swapped', 'sep,c'),
        { a: 'float32' },
      ),
    },
    {
      id: 'features/vec-axes',
      kernel: typed(
        tagInames(prioritizeLoops(tagArrayAxes(tagArrayAxes(vector, 'a', 'c,vec'), 'out', 'c,vec'), 'i,k'), {
          k: 'unr',
        }),
        { a: 'float32' },
      ),
    },
    { id: 'features/reserved-names', kernel: typed(reserved, { this: 'float32', kernel: 'float32' }) },
    { id: 'features/gather-checked', kernel: gather, options: { checkBounds: true } },
    { id: 'features/vec-loop', kernel: typed(vectorLoop, { a: 'float32', b: 'float32' }) },
    { id: 'features/float16', kernel: typed(half, { a: 'float16', b: 'float16' }) },
    { id: 'features/parametric-work-group', kernel: typed(parametric, { a: 'float32' }) },
    { id: 'features/images', kernel: imageKernel() },
    { id: 'features/local-array-sized-at-launch', kernel: localRows },
  ];
}
