/** An OpenCL buffer: a cl_mem owned as core's `PooledBuffer` owns native memory. */
import { PooledBuffer } from '@loom/core';
import type { Handle } from './bindings.ts';
import type { OpenCLContext } from './context.ts';

/** An OpenCL buffer (cl_mem) of a context; release it when done. */
export class OpenCLBuffer extends PooledBuffer<Handle, OpenCLContext> {
  /** Made by `OpenCLContext.createBuffer`. */
  constructor(
    context: OpenCLContext,
    byteLength: number,
    handle: Handle,
    allocatedBytes: number,
    recycle: (handle: Handle, allocatedBytes: number) => void,
    live: Set<WeakRef<object>>,
  ) {
    super(context, byteLength, handle, allocatedBytes, recycle, live, {
      buffer: 'OpenCLBuffer',
      context: 'OpenCLContext',
    });
  }
}
