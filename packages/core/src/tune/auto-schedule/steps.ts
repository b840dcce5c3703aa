/**
 * A schedule as data: the chain of transformations that turns the user's kernel into a
 * candidate, each step one call of a public transformation (`splitIname`, `tagInames`,
 * `addPrefetch`, `doubleBuffer`, `asyncCopies`, `prioritizeLoops`, `fixParameters`, `renameInames`, `extractSubst`,
 * `precompute`, `bufferArray`). The same list is applied to kernels here and printed as
 * the `@loom/dsl` builder chain that does the same, so a pasted script rebuilds the kernel the
 * search measured, call for call.
 */
import { LoomError } from '../../errors.ts';
import type { LoopKernel } from '../../kernel/model.ts';
import { prioritizeLoops } from '../../transform/basic.ts';
import { addPrefetch } from '../../transform/prefetch.ts';
import { doubleBuffer } from '../../transform/double-buffer.ts';
import { asyncCopies } from '../../transform/async-copies.ts';
import { fixParameters } from '../../transform/fix-parameters.ts';
import { splitIname } from '../../transform/split-iname.ts';
import { renameInames } from '../../transform/rename-inames.ts';
import { extractSubst } from '../../transform/substitutions.ts';
import { precompute } from '../../transform/precompute.ts';
import { bufferArray } from '../../transform/buffer-array.ts';
import { tagInames } from '../../transform/tag-inames.ts';

/** One transformation of a schedule (plain data: a cache keeps it as JSON). */
export type ScheduleStep =
  | {
      readonly kind: 'split';
      readonly iname: string;
      readonly factor: number;
      readonly outer?: string;
      readonly inner?: string;
    }
  | { readonly kind: 'tag'; readonly tags: Readonly<Record<string, string>> }
  | {
      /**
       * The part of `array` the swept inames touch, staged in local memory, its loops spread over
       * the work-group and the rounds a tile larger than it takes unrolled (each work-item's loads of
       * the tile in flight together, as tileMatmul lays its panels out).
       */
      readonly kind: 'prefetch';
      readonly array: string;
      readonly sweep: readonly string[];
    }
  | {
      /**
       * Local tiles filled a step of `iname` ahead into a second buffer (doubleBuffer), or `stages - 1`
       * steps ahead into `stages` buffers.
       */
      readonly kind: 'doubleBuffer';
      readonly temporaries: readonly string[];
      readonly iname: string;
      readonly stages?: number;
    }
  | {
      /** Local tiles filled by asynchronous copies (asyncCopies). */
      readonly kind: 'asyncCopies';
      readonly temporaries: readonly string[];
    }
  | { readonly kind: 'prioritize'; readonly order: readonly string[] }
  | {
      /** Several loops with identical domains become one (renameInames): rows' work-items, one work-item each. */
      readonly kind: 'rename';
      readonly inames: readonly string[];
      readonly to: string;
    }
  | {
      /** Subexpressions shaped like `template` become calls of the rule `name` (extractSubst). */
      readonly kind: 'extractSubst';
      readonly name: string;
      readonly template: string;
      readonly parameters: readonly string[];
    }
  | {
      /**
       * A rule's values over the swept inames held in a work-item's registers, one entry per value of
       * the rule's `storageAxes` (precompute into private memory, its fill unrolled): a row's elements
       * read once from global memory, then read from registers by every pass over the row.
       */
      readonly kind: 'precompute';
      readonly rule: string;
      readonly sweep: readonly string[];
      readonly storageAxes: readonly string[];
      readonly fetchOuterInames: readonly string[];
    }
  | {
      /**
       * A row's result held in a work-item's register while the kernel runs (bufferArray into private
       * memory, starting from 0: its writer does not read it), stored once at the end.
       */
      readonly kind: 'bufferArray';
      readonly array: string;
    }
  | {
      /** The kernel specialised to these parameters (fixParameters; `autoSchedule`'s fixSizes). */
      readonly kind: 'fix';
      readonly values: Readonly<Record<string, number>>;
    };

/**
 * Applies a schedule's steps to a kernel, in order, with the transformations a user calls
 * (what `autoSchedule` returns as `steps`, e.g. on another kernel written the same way).
 * ```ts
 * const fast = applySchedule(knl, result.steps);
 * ```
 */
export function applySchedule(knl: LoopKernel, steps: readonly ScheduleStep[]): LoopKernel {
  return steps.reduce(applyStep, knl);
}

function applyStep(knl: LoopKernel, step: ScheduleStep): LoopKernel {
  switch (step.kind) {
    case 'split':
      return splitIname(knl, step.iname, step.factor, { outerTag: step.outer, innerTag: step.inner });
    case 'tag':
      return tagInames(knl, step.tags);
    case 'prefetch':
      return addPrefetch(knl, step.array, step.sweep, {
        temporaryAddressSpace: 'local',
        defaultTag: 'l.auto',
        roundTag: 'unr',
      });
    case 'doubleBuffer':
      return doubleBuffer(knl, step.temporaries, step.iname, step.stages ? { stages: step.stages } : {});
    case 'asyncCopies':
      return asyncCopies(knl, step.temporaries);
    case 'prioritize':
      return prioritizeLoops(knl, step.order);
    case 'fix':
      return fixParameters(knl, step.values);
    case 'rename':
      return renameInames(knl, step.inames, step.to);
    case 'extractSubst':
      return extractSubst(knl, step.name, step.template, step.parameters);
    case 'precompute':
      return precompute(knl, step.rule, step.sweep, {
        storageAxes: step.storageAxes,
        fetchOuterInames: step.fetchOuterInames,
        temporaryAddressSpace: 'private',
        defaultTag: 'unr',
      });
    case 'bufferArray':
      return bufferArray(knl, step.array, { temporaryAddressSpace: 'private', initExpression: '0' });
    default: {
      const never: never = step;
      throw new LoomError(`applySchedule: unknown step ${JSON.stringify(never)}`);
    }
  }
}

/**
 * The steps as `@loom/dsl` builder code, one verb a line, to paste after the kernel:
 * `.split('i', 64, { outer: 'g.0', inner: 'l.0' })`. Empty for no steps.
 */
export function scheduleScript(steps: readonly ScheduleStep[]): string {
  return steps.map((s) => `.${verbOf(s)}`).join('\n');
}

function verbOf(step: ScheduleStep): string {
  switch (step.kind) {
    case 'split': {
      const tags = [step.outer && `outer: ${quote(step.outer)}`, step.inner && `inner: ${quote(step.inner)}`];
      const options = tags.filter(Boolean).join(', ');
      return `split(${quote(step.iname)}, ${step.factor}${options ? `, { ${options} }` : ''})`;
    }
    case 'tag':
      return `tag({ ${Object.entries(step.tags)
        .map(([k, v]) => `${key(k)}: ${quote(v)}`)
        .join(', ')} })`;
    case 'prefetch':
      return `prefetch(${quote(step.array)}, ${list(step.sweep)}, { space: 'local', defaultTag: 'l.auto', roundTag: 'unr' })`;
    case 'doubleBuffer':
      return `doubleBuffer(${list(step.temporaries)}, ${quote(step.iname)}${step.stages ? `, { stages: ${step.stages} }` : ''})`;
    case 'asyncCopies':
      return `asyncCopies(${list(step.temporaries)})`;
    case 'prioritize':
      return `prioritize(${quote(step.order.join(','))})`;
    case 'fix':
      return `fix({ ${Object.entries(step.values)
        .map(([k, v]) => `${key(k)}: ${v}`)
        .join(', ')} })`;
    case 'rename':
      return `renameInames(${list(step.inames)}, ${quote(step.to)})`;
    case 'extractSubst':
      return `extractSubst(${quote(step.name)}, ${quote(step.template)}, ${list(step.parameters)})`;
    case 'precompute':
      return `precompute(${quote(step.rule)}, ${list(step.sweep)}, { storageAxes: ${list(step.storageAxes)}, fetchOuterInames: ${list(step.fetchOuterInames)}, space: 'private', defaultTag: 'unr' })`;
    case 'bufferArray':
      return `bufferArray(${quote(step.array)}, { temporaryAddressSpace: 'private', initExpression: '0' })`;
    default: {
      const never: never = step;
      throw new LoomError(`scheduleScript: unknown step ${JSON.stringify(never)}`);
    }
  }
}

const quote = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
/** A list of names as a TypeScript array literal. */
const list = (names: readonly string[]) => `[${names.map(quote).join(', ')}]`;
const key = (s: string) => (/^[A-Za-z_$][\w$]*$/.test(s) ? s : quote(s));
