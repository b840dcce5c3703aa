/**
 * PLACEHOLDER until branch s7-cfamily is merged: the CUDA target (printing CUDA C) is written
 * there, and replaces this file whole. Here it only gives the device a target to name, whose
 * `generate` says it is not there yet.
 */
import { LoomError, type Target } from '@loom/core';

/** What the CUDA target tells its device about the code: nothing yet. */
export type CudaExtra = undefined;

/** The CUDA target (placeholder: generating code is an error until the real target is merged). */
export function cudaTarget(): Target<CudaExtra> {
  return {
    name: 'cuda',
    generate: () => {
      throw new LoomError('the CUDA target is not merged yet (branch s7-cfamily)');
    },
  };
}
