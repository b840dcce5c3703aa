/**
 * Steps of the pipeline before code generation, as transformations (loopy exposes them so):
 * types inferred, the kernel linearized (reductions realized: reductions.ts).
 */
import { checkOptionKeys, optionKeys } from '../option-keys.ts';
import type { DType } from '../dtypes.ts';
import { LoomError } from '../errors.ts';
import type { LoopKernel } from '../kernel/model.ts';
import { inferTypes } from '../preprocess/infer-types.ts';
import { linearizeKernel, type LinearizedKernel } from '../codegen/generate.ts';
import { preprocess } from '../preprocess/pipeline.ts';
import type { Target } from '../codegen/target.ts';
import { addDtypes } from './basic.ts';

/** The options inferUnknownTypes reads; any other key is an error. */
const TYPE_INFERENCE_OPTIONS = optionKeys<{ readonly expectCompletion?: boolean }>()(['expectCompletion']);

/**
 * The dtypes of the temporaries and output arguments nobody declared, from what is written
 * to them. With `expectCompletion`, a dtype that cannot be inferred yet is an error; without,
 * the kernel is returned as it is when inference cannot complete (run infers the rest from data).
 * @param options.expectCompletion a dtype that cannot be inferred yet is an error
 */
export function inferUnknownTypes(knl: LoopKernel, options: { readonly expectCompletion?: boolean } = {}): LoopKernel {
  checkOptionKeys('inferUnknownTypes', options, TYPE_INFERENCE_OPTIONS);
  try {
    return inferTypes(knl);
  } catch (e) {
    if (e instanceof LoomError && !options.expectCompletion) return knl;
    throw e;
  }
}

/**
 * `addDtypes`, then `inferUnknownTypes` (loopy's add_and_infer_dtypes).
 * @param options.expectCompletion a dtype that cannot be inferred yet is an error
 */
export function addAndInferDtypes(
  knl: LoopKernel,
  dtypes: Readonly<Record<string, DType>>,
  options: { readonly expectCompletion?: boolean } = {},
): LoopKernel {
  checkOptionKeys('addAndInferDtypes', options, TYPE_INFERENCE_OPTIONS);
  return inferUnknownTypes(addDtypes(knl, dtypes), options);
}

/**
 * The kernel as code generation prepares it (loopy's `preprocess_kernel`): types inferred,
 * reductions realized, temporaries placed. Transformations still apply to what it returns,
 * and `generateCode` accepts it as it accepts any kernel.
 * ```ts
 * const pre = preprocessKernel(knl);
 * pre.temporaries.get('acc')?.addressSpace; // 'private'
 * ```
 */
export function preprocessKernel(knl: LoopKernel, target?: Target): LoopKernel {
  return preprocess(knl, target);
}

/**
 * The kernel preprocessed and linearized (loopy's `linearize`): the preprocessed kernel, the
 * schedule of each device kernel (loops, instructions and barriers, in order) and the host
 * steps that launch them. Every instruction of the kernel is in a schedule, else an
 * `UnscheduledInstructionError`.
 * ```ts
 * const { kernel, subkernels } = linearize(knl);
 * subkernels[0].schedule; // [{ kind: 'loop', iname: 'i', body: [{ kind: 'insn', id: 'insn' }] }]
 * ```
 */
export function linearize(knl: LoopKernel, target?: Target): LinearizedKernel {
  return linearizeKernel(knl, target);
}

/** The kernel as code generation prepares it, and its device kernels' schedules (loopy's get_one_linearized_kernel). */
export function getOneLinearizedKernel(knl: LoopKernel, target?: Target): ReturnType<typeof linearizeKernel> {
  return linearizeKernel(knl, target);
}
