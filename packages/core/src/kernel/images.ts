/**
 * Image arguments (loopy's `ImageArg`): a read-only array of 2 or 3 axes that a target with
 * images binds as one (OpenCL `image2d_t`/`image3d_t`, WGSL `texture_2d`/`texture_3d`) and
 * reads through its texture hardware, and that the other targets read as a global array.
 *
 * What an image may be is stated here once, so that `changeArgToImage`, `imageArg` and the
 * checks before code generation refuse the same things with the same words:
 *  - read only: loopy's `ImageArg` is never an output (`is_output = False`), and a kernel
 *    cannot read back through a sampler what it wrote in the same launch;
 *  - 2 or 3 axes, row-major, starting at its buffer's start: the texture's coordinates are its
 *    indices, the last one moving fastest (`x`), as loopy reverses the index tuple;
 *  - one channel of float32, int32 or uint32: the formats both OpenCL (`CL_R` of `CL_FLOAT`,
 *    `CL_SIGNED_INT32`, `CL_UNSIGNED_INT32`) and WebGPU (`r32float`, `r32sint`, `r32uint`) read
 *    without conversion, so an image reads the same numbers on every device.
 */
import type { DType } from '../dtypes.ts';
import { LoomError } from '../errors.ts';
import { namesWritten } from './accesses.ts';
import type { KernelArg, LoopKernel } from './model.ts';

/** The element dtypes an image may have: one 32-bit channel that every target reads unconverted. */
export const IMAGE_DTYPES: readonly DType[] = Object.freeze(['float32', 'int32', 'uint32']);

/** The numbers of axes an image may have (`image2d_t`/`texture_2d`, `image3d_t`/`texture_3d`). */
export const IMAGE_DIMENSIONS: readonly number[] = Object.freeze([2, 3]);

/**
 * Refuses an image argument the targets cannot read as an image (see above), naming the
 * argument and what to write instead. `where` starts the message (`changeArgToImage`).
 */
export function checkImageArgument(knl: LoopKernel, arg: KernelArg, where: string): void {
  function say(problem: string): never {
    throw new LoomError(`${where}: image argument '${arg.name}' ${problem}`);
  }
  const writer = knl.instructions.find((i) => namesWritten(i).includes(arg.name));
  if (writer || arg.isOutput)
    say(
      `is written${writer ? ` by instruction '${writer.id}'` : ' (isOutput)'}; images are read-only (loopy's ImageArg is never an output): keep it a global argument`,
    );
  if (arg.forAtomic) say('is for atomic updates; images are read-only');
  if (arg.shape === undefined)
    say('has no shape; an image needs one (2 or 3 axes): declare it, or let the accesses give it');
  if (!IMAGE_DIMENSIONS.includes(arg.shape.length))
    say(
      `has ${arg.shape.length} ax${arg.shape.length === 1 ? 'is' : 'es'}; an image has 2 or 3 (image2d_t/texture_2d, image3d_t/texture_3d): keep it a global argument`,
    );
  if (arg.offset !== undefined) say("has an offset; an image starts at its data's first element");
  if (arg.dimTags?.some((t, axis) => t.kind !== 'nested' || t.level !== arg.shape!.length - 1 - axis))
    say("is not row-major (C order); an image's coordinates are its row-major indices");
  if (arg.dtype !== undefined && !IMAGE_DTYPES.includes(arg.dtype))
    say(`has dtype ${arg.dtype}; an image holds ${IMAGE_DTYPES.join(', ')} (one 32-bit channel)`);
}

/** Every image argument of `knl` checked (`checkImageArgument`), as code generation needs them. */
export function checkImageArguments(knl: LoopKernel): void {
  for (const a of knl.args) if (a.kind === 'image') checkImageArgument(knl, a, `kernel '${knl.name}'`);
}
