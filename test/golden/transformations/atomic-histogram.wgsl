struct Params {
  n: i32,
}

@group(0) @binding(0) var<storage, read_write> out: array<atomic<u32>>; // float32 bits, updated atomically
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;

@compute @workgroup_size(64)
fn loopy_kernel(@builtin(workgroup_id) workgroup_id: vec3<u32>, @builtin(local_invocation_id) local_invocation_id: vec3<u32>) {
  let n = params.n;
  let group_id = vec3<i32>(workgroup_id);
  let local_id = vec3<i32>(local_invocation_id);
  if (64i * group_id.x <= n - local_id.x - 1i) {
    // out[(64*gid(0) + lid(0)) % 20] = out[(64*gid(0) + lid(0)) % 20] + 2*a[64*gid(0) + lid(0)], atomically
    {
      var old_bits = atomicLoad(&out[(64i * group_id.x + local_id.x) % 20i]);
      loop {
        let old_value = bitcast<f32>(old_bits);
        let swap = atomicCompareExchangeWeak(&out[(64i * group_id.x + local_id.x) % 20i], old_bits, bitcast<u32>(old_value + 2.0 * a[64i * group_id.x + local_id.x]));
        if (swap.exchanged) { break; }
        old_bits = swap.old_value;
      }
    }
  }
}
