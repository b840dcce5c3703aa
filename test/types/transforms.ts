/**
 * Issue 15's verbs change the iname types where the transformation changes the inames,
 * and take only what exists (inames, match expressions where `within` goes).
 */
import { kernel } from '@loom/dsl';
import type { Equal, Expect } from './helpers.ts';

export function transformCases(): void {
  const knl = kernel('{ [i,j]: 0<=i,j<n }', 'out[i,j] = a[i,j] {id=w}');
  type Inames<B> = B extends { readonly inames: readonly (infer N)[] } ? N : never;

  // chunk trades i for i_outer and i_inner, like split
  const chunked = knl.chunk('i', 3, { inner: 'l.0' });
  type _chunked = Expect<Equal<Inames<typeof chunked>, 'i_outer' | 'i_inner' | 'j'>>;
  // @ts-expect-error: 'i' was chunked
  chunked.tag({ i: 'l.0' });
  // @ts-expect-error: unknown iname
  knl.chunk('q', 3);

  // with within, the instructions outside keep the old iname
  const someSplit = knl.split('i', 4, { within: 'id:w' });
  type _someSplit = Expect<Equal<Inames<typeof someSplit>, 'i' | 'i_outer' | 'i_inner' | 'j'>>;
  const someJoin = knl.join(['i', 'j'], 'ij', { within: 'writes:out' });
  type _someJoin = Expect<Equal<Inames<typeof someJoin>, 'i' | 'j' | 'ij'>>;
  const someRename = knl.rename('i', 'row', { within: 'id:w' });
  type _someRename = Expect<Equal<Inames<typeof someRename>, 'i' | 'row' | 'j'>>;

  const fused = knl.renameInames(['i', 'j'], 'ij');
  type _fused = Expect<Equal<Inames<typeof fused>, 'ij'>>;
  // @ts-expect-error: 'i' was renamed
  fused.untag('i');
  // @ts-expect-error: unknown iname
  knl.renameInames(['i', 'q'], 'iq');

  // a batch of renamings: each key replaces the inames it lists
  const batched = kernel('{ [i,j,k]: 0<=i,j,k<n }', 'a[i] = 1\nb[j] = 2\nc[k] = 3').renameInamesInBatch({
    ifused: ['i', 'j'],
  });
  type _batched = Expect<Equal<Inames<typeof batched>, 'ifused' | 'k'>>;
  // @ts-expect-error: 'i' was renamed
  batched.untag('i');
  // @ts-expect-error: unknown iname
  knl.renameInamesInBatch({ iq: ['i', 'q'] });
  const fromMap = knl.renameInamesInBatch(new Map([['ij', ['i', 'j'] as const]]));
  type _fromMap = Expect<Equal<Inames<typeof fromMap>, string>>;

  const removed = kernel('{ [i,j]: 0<=i<n and 0<=j<4 }', 'out[i] = a[i]').removeUnusedInames(['j']);
  type _removed = Expect<Equal<Inames<typeof removed>, 'i'>>;
  // @ts-expect-error: 'j' was removed
  removed.tag({ j: 'unr' });

  const mapped = knl.mapDomain('[n] -> { [i] -> [i_outer, i_inner]: 0 <= i_inner < 16 and i = 16*i_outer + i_inner }');
  type _mapped = Expect<Equal<Inames<typeof mapped>, 'i_outer' | 'i_inner' | 'j'>>;
  // @ts-expect-error: 'i' was mapped away
  mapped.tag({ i: 'l.0' });

  const affine = knl.affineMapInames(['i'], ['i0'], 'i0 = i + 1');
  type _affine = Expect<Equal<Inames<typeof affine>, 'i0' | 'j'>>;
  // @ts-expect-error: only inames are mapped
  knl.affineMapInames(['q'], ['q0'], 'q0 = q');

  const unique = knl.makeReductionInamesUnique();
  type _unique = Expect<Equal<Inames<typeof unique>, 'i' | 'j' | `i_${number}` | `j_${number}`>>;
  knl.splitReductionInward('i').splitReductionOutward(['i', 'j'], 'id:w').untag('j', 'local');
  // @ts-expect-error: unknown iname
  knl.splitReductionInward('q');
  knl.addInamesToInsn('i', 'id:w').removeInamesFromInsn(['j'], 'id:w').addInamesForUnusedHwAxes();
  // @ts-expect-error: unknown iname
  knl.addInamesToInsn('q', 'id:w');

  const dup = knl.dup('i', { within: 'id:w', newInames: ['irow'], tags: { i: 'l.0' } });
  type _dup = Expect<Equal<Inames<typeof dup>, 'i' | 'j' | 'irow'>>;

  // prefetch with named inames, or a spelled-out footprint; precompute names by the rule's parameters
  const fetched = knl.prefetch('a[i, :]', ['i'], { dimArgNames: ['ai', 'aj'], within: 'id:w' });
  type _fetched = Expect<Equal<Inames<typeof fetched>, 'i' | 'j' | 'ai' | 'aj'>>;
  // @ts-expect-error: 'b' is not an array of the kernel
  knl.prefetch('b[i, :]', ['i']);
  // l.auto may split a fetch iname to fit the work-group (loopy's names for the parts)
  const fitted = knl.prefetch('a[i, :]', ['i'], { dimArgNames: ['ai', 'aj'], defaultTag: 'l.auto' });
  type _fitted = Expect<
    Equal<Inames<typeof fitted>, 'i' | 'j' | 'ai' | 'aj' | 'ai_outer' | 'aj_outer' | 'ai_inner' | 'aj_inner'>
  >;
  const named = kernel('{ [i]: 0<=i<n }', 'f(x) := 2*a[x]\nout[i] = f(i)').precompute('f', ['i'], {
    precomputeInames: ['fi'],
  });
  type _named = Expect<Equal<Inames<typeof named>, 'i' | 'fi'>>;
  const loose = kernel('{ [i]: 0<=i<n }', 'f(x) := 2*a[x]\nout[i] = f(i)').precompute('f', ['i']);
  type _loose = Expect<Equal<Inames<typeof loose>, string>>;
  knl
    .extractSubst('twice', '2*x', 'x')
    .expandSubst('id:w')
    .priority('id:w', 2)
    .addDependency('id:w', 'id:w')
    .tagInstructions('t', 'writes:out');
}

export function argumentCases(): void {
  const knl = kernel('{ [i]: 0<=i<n }', 'out[i] = a[i] + 2*b[i]');
  const renamed = knl.renameArgument('a', 'x');
  renamed.renameArgument('x', 'y');
  // @ts-expect-error: 'a' was renamed
  renamed.renameArgument('a', 'z');
  // @ts-expect-error: no argument 'q'
  knl.renameArgument('q', 'r');
  knl.setArgumentOrder(['out', 'a', 'b', 'n']);
  // @ts-expect-error: no argument 'q'
  knl.setArgumentOrder(['q']);
  const spare = kernel('{ [i]: 0<=i<n }', 'out[i] = a[i]').removeUnusedArguments(['n']);
  // @ts-expect-error: 'q' is not an argument
  spare.removeUnusedArguments(['q']);
  knl.addBarrier('id:a', 'id:b', { synchronizationKind: 'local' }).realizeReduction().inferUnknownTypes();
  // a scan's sweep iname is one of the kernel's, and its tracking iname can be tagged after
  const scan = kernel('{ [i,j]: 0<=i<n and 0<=j<=i }', 'out[i] = sum(j, a[j])').realizeReduction({
    forceScan: true,
    forceOuterInameForScan: 'i',
  });
  scan.tag({ i_scan: 'unr' });
  // @ts-expect-error: unknown sweep iname
  knl.realizeReduction({ forceScan: true, forceOuterInameForScan: 'q' });
}

export function dataCases(): void {
  const derivative = kernel('{ [i]: 0<=i<n }', 'z[i] = sin(x[i])').diffKernel('z', 'x');
  derivative.renameArgument('z_dx', 'gradient');
  type DerivativeInames<B> = B extends { readonly inames: readonly (infer N)[] } ? N : never;
  type _derivative = Expect<
    Equal<DerivativeInames<typeof derivative>, 'i' | `diff_i${number}` | `diff_i${number}_${number}`>
  >;
  // @ts-expect-error: 'q' is not an argument to differentiate by
  kernel('{ [i]: 0<=i<n }', 'z[i] = sin(x[i])').diffKernel('z', 'q');
  const knl = kernel('{ [i,j]: 0<=i,j<n }', 'out[i] = sum(j, a[i,j]*x[j])');
  const batched = knl.toBatched('nbatches', ['out', 'x']);
  type Inames<B> = B extends { readonly inames: readonly (infer N)[] } ? N : never;
  type _batched = Expect<Equal<Inames<typeof batched>, 'i' | 'j' | 'ibatch'>>;
  batched.renameArgument('nbatches', 'nb');
  // @ts-expect-error: 'q' is not an argument to batch
  knl.toBatched('nb', ['q']);
  knl
    .privatize('i')
    .unprivatize(['i'])
    .splitArrayAxis('a', 0, 4)
    .addPadding('a', 0, 64)
    .addPaddingToAvoidBankConflicts()
    .concatenateTemporaries(['t', 'u']);
  // @ts-expect-error: unknown iname
  knl.privatize('q');
}
