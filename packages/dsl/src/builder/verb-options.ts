/**
 * The option names of the builder's verbs, in the builder's spelling, each list checked
 * complete against its options type (`optionKeys`). A verb that renames or drops options
 * on the way to its core function (`split`'s `outer` is `splitIname`'s `outerTag`) checks
 * them here, before mapping: core would never see a misspelt key that was dropped. Verbs
 * that pass their options on unchanged under the core function's name leave it to core.
 */
import {
  checkOptionKeys,
  optionKeys,
  type AddNosyncOptions,
  type DuplicateInamesOptions,
  type JoinInamesOptions,
  type KernelOptions,
  type RenameInameOptions,
} from '@loom/core';
import type {
  KernelBuilderOptions,
  PrecomputeOptions,
  PrefetchOptions,
  SplitOptions,
  StatsOptions,
  TileOptions,
} from './options.ts';

/** Core spellings someone may give a verb, and the verb's name for the same option. */
const CORE_SPELLINGS: Readonly<Record<string, string>> = {
  outerTag: 'outer',
  innerTag: 'inner',
  temporaryAddressSpace: 'space',
};

const SPLIT_OPTIONS = optionKeys<SplitOptions<string, string, string>>()([
  'outer',
  'inner',
  'outerIname',
  'innerIname',
  'slabs',
  'within',
]);

export const VERB_OPTIONS = {
  kernel: optionKeys<KernelBuilderOptions>()([
    'name',
    'assumptions',
    'silencedWarnings',
    'seqDependencies',
    'fixedParameters',
    'defaultOffset',
    'defaultOrder',
    'substitutions',
    'indexDtype',
    'preambles',
    'args',
    'temporaries',
  ]),
  split: SPLIT_OPTIONS,
  chunk: SPLIT_OPTIONS,
  tile: optionKeys<TileOptions<string>>()(['outer', 'inner']),
  dup: optionKeys<DuplicateInamesOptions>()(['within', 'newInames', 'newNames', 'suffix', 'tags']),
  rename: optionKeys<RenameInameOptions>()(['existingOk', 'within']),
  join: optionKeys<JoinInamesOptions>()(['tag', 'within']),
  prefetch: optionKeys<PrefetchOptions<string, readonly string[]>>()([
    'defaultTag',
    'roundTag',
    'fetchOuterInames',
    'temporaryName',
    'space',
    'dimArgNames',
    'dimNames',
    'within',
    'prefetchInsnId',
    'ruleName',
    'footprintSubscripts',
    'fetchBoundingBox',
  ]),
  precompute: optionKeys<PrecomputeOptions<string, readonly string[]>>()([
    'within',
    'storageAxes',
    'temporaryName',
    'precomputeInames',
    'precomputeOuterInames',
    'fetchOuterInames',
    'storageAxisToTag',
    'defaultTag',
    'dtype',
    'fetchBoundingBox',
    'space',
    'computeInsnId',
  ]),
  reductionRule: optionKeys<{ readonly ruleName?: string; readonly within?: string | readonly string[] }>()([
    'ruleName',
    'within',
  ]),
  nosync: optionKeys<AddNosyncOptions>()(['bidirectional', 'force', 'emptyOk']),
  options: optionKeys<KernelOptions>()([
    'writeCode',
    'buildOptions',
    'allowTerminalColors',
    'fusedMultiplyAdd',
    'enforceVariableAccessOrdered',
    'traceAssignments',
    'traceAssignmentValues',
    'minGroupsPerComputeUnit',
    'bulkRelease',
    'warpSpecialized',
  ]),
  stats: optionKeys<StatsOptions>()(['subgroupSize', 'countRedundantWork', 'countWithinSubscripts']),
} as const;

/** A LoomError naming the verb and the key, unless every key of `options` is one of the verb's. */
export function checkVerbOptions(verb: keyof typeof VERB_OPTIONS, options: object | undefined): void {
  const known = VERB_OPTIONS[verb];
  const aliases = Object.fromEntries(Object.entries(CORE_SPELLINGS).filter(([, ours]) => known.includes(ours)));
  checkOptionKeys(verb, options, known, { aliases });
}
