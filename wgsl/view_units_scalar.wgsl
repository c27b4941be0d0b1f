@group(0) @binding({{BINDING}}) var<storage, {{MODE}}> {{NAME}}: array<{{T}}>;
// Exactly the vector's elements: loads past the end repeat the last one (its
// lanes are masked by the caller), stores past the end are skipped.
fn {{NAME}}_load(u: u32) -> vec4<{{T}}> {
    let b = 4u * u;
    let last = arrayLength(&{{NAME}}) - 1u;
    return vec4<{{T}}>({{NAME}}[min(b, last)], {{NAME}}[min(b + 1u, last)], {{NAME}}[min(b + 2u, last)], {{NAME}}[min(b + 3u, last)]);
}
fn {{NAME}}_units() -> u32 { return (arrayLength(&{{NAME}}) + 3u) / 4u; }
//#if WRITABLE
fn {{NAME}}_store(u: u32, v: vec4<{{T}}>) {
    let b = 4u * u;
    let n = arrayLength(&{{NAME}});
    for (var k = 0u; k < 4u; k++) {
        if b + k < n {
            {{NAME}}[b + k] = v[k];
        }
    }
}
//#endif
