@group(0) @binding(6) var<storage, read> values_in: array<T>;
@group(0) @binding(7) var<storage, read_write> values_out: array<T>;
