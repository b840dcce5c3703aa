const g = globalThis as { UVU_DEFER?: number; UVU_QUEUE?: unknown[][] };
g.UVU_DEFER = 1;
g.UVU_QUEUE = [[null]];
