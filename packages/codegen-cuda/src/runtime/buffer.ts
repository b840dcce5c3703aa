/** Device memory of a CUDA context: a CUdeviceptr owned as core's `PooledBuffer` owns native memory. */
import { PooledBuffer } from '@loom/core';
import type { CudaContext } from './context.ts';

/** Device memory of a `CudaContext` (a CUdeviceptr); release it when done. */
export class CudaBuffer extends PooledBuffer<bigint, CudaContext> {
  /** Made by `CudaContext.createBuffer`. */
  constructor(
    context: CudaContext,
    byteLength: number,
    pointer: bigint,
    allocatedBytes: number,
    recycle: (pointer: bigint, allocatedBytes: number) => void,
    live: Set<WeakRef<object>>,
  ) {
    super(context, byteLength, pointer, allocatedBytes, recycle, live, {
      buffer: 'CudaBuffer',
      context: 'CudaContext',
    });
  }
}
