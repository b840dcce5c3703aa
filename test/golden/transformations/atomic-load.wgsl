@group(0) @binding(0) var<storage, read_write> out: array<atomic<u32>>; // float32 bits, updated atomically

var<workgroup> temp: atomic<u32>;

fn store_out(index: i32, value: f32) {
  atomicStore(&out[u32(index)], bitcast<u32>(value));
}

@compute @workgroup_size(10)
fn loopy_kernel(@builtin(local_invocation_id) local_invocation_id: vec3<u32>) {
  let local_id = vec3<i32>(local_invocation_id);
  atomicStore(&temp, bitcast<u32>(0.0));
  workgroupBarrier();
  // temp = temp + 1, atomically
  {
    var old_bits = atomicLoad(&temp);
    loop {
      let old_value = bitcast<f32>(old_bits);
      let swap = atomicCompareExchangeWeak(&temp, old_bits, bitcast<u32>(old_value + 1.0));
      if (swap.exchanged) { break; }
      old_bits = swap.old_value;
    }
  }
  workgroupBarrier();
  store_out(local_id.x, bitcast<f32>(atomicLoad(&temp)));
}
