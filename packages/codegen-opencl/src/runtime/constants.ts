/**
 * The few numeric constants of the OpenCL API (Khronos `CL/cl.h`) that the runtime uses, by their
 * header names so that a reader can look each one up in the specification.
 */

export const CL_SUCCESS = 0;
export const CL_TRUE = 1;

// cl_device_type (a bitfield; cl_ulong)
export const CL_DEVICE_TYPE_CPU = 1n << 1n;
export const CL_DEVICE_TYPE_GPU = 1n << 2n;
export const CL_DEVICE_TYPE_ACCELERATOR = 1n << 3n;
export const CL_DEVICE_TYPE_ALL = 0xffffffffn;

// cl_platform_info
export const CL_PLATFORM_VERSION = 0x0901;
export const CL_PLATFORM_NAME = 0x0902;
export const CL_PLATFORM_VENDOR = 0x0903;

// cl_device_info
export const CL_DEVICE_TYPE = 0x1000;
export const CL_DEVICE_MAX_COMPUTE_UNITS = 0x1002;
export const CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS = 0x1003;
export const CL_DEVICE_MAX_WORK_GROUP_SIZE = 0x1004;
export const CL_DEVICE_MAX_WORK_ITEM_SIZES = 0x1005;
export const CL_DEVICE_MAX_MEM_ALLOC_SIZE = 0x1010;
export const CL_DEVICE_GLOBAL_MEM_SIZE = 0x101f;
export const CL_DEVICE_LOCAL_MEM_SIZE = 0x1023;
export const CL_DEVICE_AVAILABLE = 0x1027;
export const CL_DEVICE_NAME = 0x102b;
export const CL_DEVICE_VENDOR = 0x102c;
export const CL_DRIVER_VERSION = 0x102d;
export const CL_DEVICE_VERSION = 0x102f;
export const CL_DEVICE_EXTENSIONS = 0x1030;
export const CL_DEVICE_DOUBLE_FP_CONFIG = 0x1032;
export const CL_DEVICE_SINGLE_FP_CONFIG = 0x101b;
export const CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT = 1n << 7n;
export const CL_DEVICE_OPENCL_C_VERSION = 0x103d;
export const CL_DEVICE_IMAGE2D_MAX_WIDTH = 0x1011;
export const CL_DEVICE_IMAGE2D_MAX_HEIGHT = 0x1012;
export const CL_DEVICE_IMAGE3D_MAX_WIDTH = 0x1013;
export const CL_DEVICE_IMAGE3D_MAX_HEIGHT = 0x1014;
export const CL_DEVICE_IMAGE3D_MAX_DEPTH = 0x1015;
export const CL_DEVICE_IMAGE_SUPPORT = 0x1016;
/** NVIDIA's cl_nv_device_attribute_query: the 32-bit registers a work-group may hold. */
export const CL_DEVICE_REGISTERS_PER_BLOCK_NV = 0x4002;

// command queues
export const CL_QUEUE_PROPERTIES = 0x1093;
export const CL_QUEUE_PROFILING_ENABLE = 1n << 1n;

// memory objects (cl_mem_flags, a cl_ulong bitfield)
export const CL_MEM_READ_WRITE = 1n << 0n;
export const CL_MEM_READ_ONLY = 1n << 2n;

// images: one channel (cl_channel_order), its type (cl_channel_type), 2D or 3D (cl_mem_object_type)
export const CL_R = 0x10b0;
export const CL_SIGNED_INT32 = 0x10d9;
export const CL_UNSIGNED_INT32 = 0x10dc;
export const CL_FLOAT = 0x10de;
export const CL_MEM_OBJECT_IMAGE2D = 0x10f1;
export const CL_MEM_OBJECT_IMAGE3D = 0x10f2;

// programs and kernels
export const CL_PROGRAM_BUILD_LOG = 0x1183;
export const CL_PROGRAM_KERNEL_NAMES = 0x1168;
export const CL_KERNEL_NUM_ARGS = 0x1191;

// event profiling (cl_ulong nanoseconds on the device's clock)
export const CL_PROFILING_COMMAND_START = 0x1282;
export const CL_PROFILING_COMMAND_END = 0x1283;
