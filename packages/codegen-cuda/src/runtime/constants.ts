/**
 * The few numbers of the CUDA driver API (`cuda.h`) the runtime uses, by their header names
 * so that a reader can look each one up.
 */

export const CUDA_SUCCESS = 0;
export const CUDA_ERROR_INVALID_VALUE = 1;
export const CUDA_ERROR_NO_DEVICE = 100;
export const CUDA_ERROR_NOT_FOUND = 500;

/**
 * Errors after which the context cannot be used any more (a kernel faulted): every later call
 * returns the same code, until the process ends.
 */
export const STICKY_ERRORS: ReadonlySet<number> = new Set([
  700, // CUDA_ERROR_ILLEGAL_ADDRESS
  702, // CUDA_ERROR_LAUNCH_TIMEOUT
  714, // CUDA_ERROR_HARDWARE_STACK_ERROR
  715, // CUDA_ERROR_ILLEGAL_INSTRUCTION
  716, // CUDA_ERROR_MISALIGNED_ADDRESS
  717, // CUDA_ERROR_INVALID_ADDRESS_SPACE
  718, // CUDA_ERROR_INVALID_PC
  719, // CUDA_ERROR_LAUNCH_FAILED
]);

// CUdevice_attribute
export const CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1;
export const CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X = 2;
export const CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y = 3;
export const CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z = 4;
export const CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5;
export const CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = 6;
export const CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z = 7;
/** Static `__shared__` memory one block may declare (48 KiB; more is only for dynamic shared memory, opted in). */
export const CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8;
export const CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10;
export const CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK = 12;
export const CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
export const CU_DEVICE_ATTRIBUTE_COMPUTE_MODE = 20;
export const CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38;
export const CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
export const CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
/** Shared memory one block may use once its function opts in (dynamic shared memory): 227 KiB on an H100. */
export const CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97;

/** CUcomputemode: no context may be made on the device. */
export const CU_COMPUTEMODE_PROHIBITED = 2;

// CUfunction_attribute
/** The most threads a block of this function may have: the device's, or fewer when it needs many registers. */
export const CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0;
/** The static `__shared__` bytes a function declares. */
export const CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1;
export const CU_FUNC_ATTRIBUTE_NUM_REGS = 4;
/** The most dynamic shared memory a launch of the function may ask for (its opt-in; 48 KiB less its static bytes by default). */
export const CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;

/** CUevent_flags: an event that records time (the default; CU_EVENT_DISABLE_TIMING would not). */
export const CU_EVENT_DEFAULT = 0;

// nvrtcResult
export const NVRTC_SUCCESS = 0;
export const NVRTC_ERROR_COMPILATION = 6;
